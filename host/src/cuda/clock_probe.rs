//! The SM clock from inside a kernel: a probe of one warp per block, one block per SM, each
//! spinning on `%globaltimer` for a fixed time and giving the `%clock64` cycles and the
//! nanoseconds it spanned. Cycles over nanoseconds is the SM's clock; over 2 ms it is known to
//! better than 0.1% (`../shared/notes/h200-energy-and-clock.md`), where NVML's reading is an
//! average over a window of its own. The probe is its own module and launch: no timed kernel is
//! changed, and it runs only beside the energy phase's windows, never inside a timed sample.

use std::time::Duration;

use cudarc::driver::CudaSlice;
use kernels_gpu::abi::{ArgSink, HostParams, KernelArg, Param, ParamKind};

use super::device::Gpu;
use super::error::CudaError;
use super::launch::{Launch, LaunchShape};
use super::module::Module;

/// The probe's entry.
const ENTRY: &str = "lab_clock_probe";

/// The probe: thread 0 of each block stores (cycles, nanoseconds) at `out[2 * block]`.
const PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64

.visible .entry lab_clock_probe(
    .param .u64 out,
    .param .u64 spin_ns
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<14>;

    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [spin_ns];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u64 %rd3, %globaltimer;
    mov.u64 %rd4, %clock64;
    add.u64 %rd5, %rd3, %rd2;
SPIN:
    mov.u64 %rd6, %globaltimer;
    setp.lt.u64 %p1, %rd6, %rd5;
    @%p1 bra SPIN;
    mov.u64 %rd7, %clock64;
    mov.u64 %rd8, %globaltimer;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra DONE;
    mov.u32 %r2, %ctaid.x;
    mul.wide.u32 %rd9, %r2, 16;
    add.u64 %rd10, %rd1, %rd9;
    sub.u64 %rd11, %rd7, %rd4;
    sub.u64 %rd12, %rd8, %rd3;
    st.global.v2.u64 [%rd10], {%rd11, %rd12};
DONE:
    ret;
}
";

/// The probe's parameters.
struct ProbeParams {
    out: u64,
    spin_ns: u64,
}

impl HostParams for ProbeParams {
    const PARAMS: &'static [Param] = &[
        Param {
            name: "out",
            kind: ParamKind::Ptr,
        },
        Param {
            name: "spin_ns",
            kind: ParamKind::U64,
        },
    ];
    fn push_args(&self, sink: &mut impl ArgSink) {
        sink.push(KernelArg::Ptr(self.out));
        sink.push(KernelArg::U64(self.spin_ns));
    }
}

/// How long each block spins.
pub const SPIN: Duration = Duration::from_millis(2);

/// The probe loaded on a GPU with its output buffer.
pub struct ClockProbe {
    module: Module,
    out: CudaSlice<u64>,
    blocks: u32,
}

impl ClockProbe {
    /// The probe on `gpu`, one block per SM.
    pub fn new(gpu: &Gpu) -> Result<Self, CudaError> {
        let module = Module::load(gpu, "in-kernel clock probe", PTX.as_bytes())?;
        let blocks = gpu.info().sm_count.max(1);
        let out = gpu.zeros::<u64>(2 * blocks as usize)?;
        Ok(Self {
            module,
            out,
            blocks,
        })
    }

    /// Runs the probe now and waits for it: the median over blocks of the SM clock, MHz.
    pub fn mhz(&mut self, gpu: &Gpu) -> Result<Option<f64>, CudaError> {
        let kernel = self.module.kernel(ENTRY)?;
        let shape = LaunchShape {
            grid: (self.blocks, 1),
            threads: 32,
            dyn_smem: 0,
        };
        let mut l = Launch::new(gpu);
        let params = ProbeParams {
            out: l.output(&mut self.out),
            spin_ns: SPIN.as_nanos() as u64,
        };
        // SAFETY: the entry takes (out, spin_ns) as declared above; `out` holds two u64 per
        // block of the grid and thread 0 of block b writes out[2b] and out[2b + 1] alone.
        unsafe { l.launch(&kernel, shape, &params)? };
        gpu.synchronize()?;
        let words = gpu.download(&self.out)?;
        Ok(median_mhz(&pairs(&words)))
    }
}

/// The (cycles, nanoseconds) pairs of the probe's output words.
pub fn pairs(words: &[u64]) -> Vec<(u64, u64)> {
    words.chunks_exact(2).map(|p| (p[0], p[1])).collect()
}

/// The median over blocks of cycles per microsecond (MHz); blocks that spanned no time are
/// left out.
pub fn median_mhz(pairs: &[(u64, u64)]) -> Option<f64> {
    let mut mhz: Vec<f64> = pairs
        .iter()
        .filter(|&&(_, ns)| ns > 0)
        .map(|&(cycles, ns)| cycles as f64 * 1e3 / ns as f64)
        .collect();
    if mhz.is_empty() {
        return None;
    }
    mhz.sort_by(f64::total_cmp);
    let n = mhz.len();
    Some(if n % 2 == 1 {
        mhz[n / 2]
    } else {
        (mhz[n / 2 - 1] + mhz[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_over_nanoseconds_is_the_clock_and_the_median_is_over_blocks() {
        // 2 ms at 1965 MHz is 3,930,000 cycles.
        let words = [
            3_930_000, 2_000_000, 3_270_000, 2_000_000, 4_000_000, 2_000_000, 5, 0,
        ];
        let p = pairs(&words);
        assert_eq!(p.len(), 4);
        // 1965, 1635 and 2000 MHz; the block that spanned no time is left out.
        assert_eq!(median_mhz(&p), Some(1965.0));
        assert_eq!(median_mhz(&p[..2]), Some((1965.0 + 1635.0) / 2.0));
        assert_eq!(median_mhz(&[(5, 0)]), None);
    }

    /// The probe's PTX assembles for sm_90 with the ptxas the host finds (`$PTXAS`, PATH, the CUDA
    /// toolkit, pip's wheel): the tests need one, as the README says, and fail without it.
    #[test]
    fn the_probe_ptx_declares_its_entry_and_assembles() {
        assert!(PTX.contains(&format!(".visible .entry {ENTRY}(")));
        assert_eq!(ProbeParams::PARAMS.len(), 2);
        let ptxas =
            crate::cuda::ptx_assembly::find_ptxas().expect("ptxas (set PTXAS; see the README)");
        let dir = std::env::temp_dir().join(format!("lab-clock-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ptx = dir.join("probe.ptx");
        std::fs::write(&ptx, PTX).unwrap();
        let out = std::process::Command::new(ptxas)
            .args(["--gpu-name", "sm_90", "-o"])
            .arg(dir.join("probe.cubin"))
            .arg(&ptx)
            .output()
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
