//! Which kernel faulted. A kernel's fault (an out-of-bounds write, say) is not reported by its
//! launch but by the next call that waits for the GPU, and then by every call after it: the
//! error is sticky, the context is lost. So the GPU keeps the launches enqueued since its last
//! completed wait ([`InFlight`]); a wait that fails names them: one kernel is the culprit, several
//! are suspects, to be told apart by running each alone in a fresh context.

use std::fmt;
use std::sync::Mutex;

use cudarc::driver::sys::CUresult;

/// Whose kernel a launch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The lab's kernels (built-in, or `--module`), the check kernels included.
    Ours,
    /// The module compared with ours (`--compare`).
    Compared,
    /// cuBLAS's kernel.
    Cublas,
}

impl Side {
    pub fn words(self) -> &'static str {
        match self {
            Side::Ours => "ours",
            Side::Compared => "the compared module",
            Side::Cublas => "cuBLAS",
        }
    }
}

/// One launch: whose, which entry, and the module it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launched {
    pub side: Side,
    pub entry: String,
    pub module: String,
}

impl fmt::Display for Launched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.side {
            Side::Cublas => write!(f, "cuBLAS's {}", self.entry),
            side => write!(f, "`{}` of {} ({})", self.entry, side.words(), self.module),
        }
    }
}

/// The kernels that may have faulted: those enqueued since the last wait that completed, each
/// once, in launch order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Suspects(pub Vec<Launched>);

impl fmt::Display for Suspects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [] => write!(
                f,
                "no launch of ours was in flight (an earlier call faulted?)"
            ),
            [one] => write!(f, "{one} faulted"),
            many => {
                let names: Vec<String> = many.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "one of {} faulted (they ran between two waits)",
                    names.join(", ")
                )
            }
        }
    }
}

/// The launches enqueued on a GPU since its last completed wait.
#[derive(Debug, Default)]
pub struct InFlight(Mutex<Vec<Launched>>);

/// More distinct kernels than this between two waits are not told apart one by one (a wait
/// comes after every sample, so a handful is the most a run has in flight).
const KEPT: usize = 16;

impl InFlight {
    /// Notes a launch (a kernel already noted since the last wait is noted once).
    pub fn launched(&self, side: Side, entry: &str, module: &str) {
        let mut v = self.lock();
        if v.len() < KEPT
            && !v
                .iter()
                .any(|l| l.side == side && l.entry == entry && l.module == module)
        {
            v.push(Launched {
                side,
                entry: entry.to_owned(),
                module: module.to_owned(),
            });
        }
    }

    /// A wait completed: everything enqueued before it ran without a fault.
    pub fn settled(&self) {
        self.lock().clear();
    }

    /// What was in flight when a wait failed.
    pub fn suspects(&self) -> Suspects {
        Suspects(self.lock().clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Launched>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Whether a driver error is a kernel's fault that has lost the context: every later call in it
/// fails the same way, so the context must be rebuilt before anything else runs.
pub fn is_sticky(code: CUresult) -> bool {
    matches!(
        code,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_LAUNCH_TIMEOUT
            | CUresult::CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_names_what_ran_since_the_last_one() {
        let f = InFlight::default();
        f.launched(Side::Ours, "sgemm_s", "built-in kernels");
        f.settled();
        f.launched(Side::Compared, "sgemm_s", "faulty.cubin");
        f.launched(Side::Compared, "sgemm_s", "faulty.cubin");
        let s = f.suspects();
        let [one] = s.0.as_slice() else {
            panic!("one kernel in flight: {s:?}")
        };
        assert_eq!((one.side, one.entry.as_str()), (Side::Compared, "sgemm_s"));
        assert_eq!(
            s.to_string(),
            "`sgemm_s` of the compared module (faulty.cubin) faulted"
        );
    }

    #[test]
    fn several_kernels_in_flight_are_suspects_not_a_culprit() {
        let f = InFlight::default();
        f.launched(Side::Compared, "sgemm_s", "faulty.cubin");
        f.launched(Side::Ours, "gemm_check", "built-in kernels");
        f.launched(Side::Cublas, "cublasSgemm", "cuBLAS");
        let s = f.suspects();
        let sides: Vec<Side> = s.0.iter().map(|l| l.side).collect();
        assert_eq!(sides, [Side::Compared, Side::Ours, Side::Cublas]);
        let text = s.to_string();
        assert!(
            text.starts_with("one of `sgemm_s` of the compared module"),
            "{text}"
        );
        assert!(text.contains("cuBLAS's cublasSgemm"), "{text}");
        f.settled();
        assert_eq!(f.suspects(), Suspects::default());
    }

    #[test]
    fn the_list_is_bounded() {
        let f = InFlight::default();
        for i in 0..100 {
            f.launched(Side::Ours, &format!("k{i}"), "m");
        }
        assert_eq!(f.suspects().0.len(), KEPT);
    }

    #[test]
    fn faults_are_sticky_and_usage_errors_are_not() {
        assert!(is_sticky(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert!(is_sticky(CUresult::CUDA_ERROR_LAUNCH_FAILED));
        assert!(!is_sticky(CUresult::CUDA_ERROR_INVALID_VALUE));
        assert!(!is_sticky(CUresult::CUDA_ERROR_NOT_READY));
    }
}
