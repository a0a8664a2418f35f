//! The kernel a library call really ran (cuBLAS chooses its GEMM kernel at run time), read through
//! CUPTI, and that kernel's theoretical occupancy by the lab's calculator, so that a library's row
//! stands beside the lab's kernels on the same terms. The calculator counts what one SM holds;
//! a cluster launch also needs its blocks co-resident across the SMs of a GPC, which can only
//! lower what the GPU runs at once, not the per-SM figure.

use serde::{Deserialize, Serialize};

use super::cupti::cupti;
use super::cupti_record::KernelRecord;
use super::device::Gpu;
use super::error::CudaError;
use crate::occupancy::{limiter_names, occupancy, OccupancyError};

/// The kernel a call ran, and its residency by the calculator on this GPU's limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryKernel {
    /// The longest-running kernel of the call: the GEMM itself.
    pub kernel: KernelRecord,
    /// Any other kernels the call launched (a split-K reduction, say), in launch order.
    pub others: Vec<KernelRecord>,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    /// Resident warps over the SM's maximum, 0..=1.
    pub occupancy: f64,
    /// What limits the resident blocks, by the calculator.
    pub limiter: String,
}

/// Why a call's kernel was not read (CUPTI's failures come as [`CudaError::Cupti`]).
#[derive(Debug, thiserror::Error)]
pub enum LibraryKernelError {
    #[error(transparent)]
    Cuda(#[from] CudaError),
    #[error("CUPTI recorded no kernel during the call")]
    NoKernel,
    #[error("`{kernel}` as CUPTI recorded it does not fit an SM by the calculator: {source}")]
    Calculator {
        kernel: String,
        #[source]
        source: OccupancyError,
    },
}

impl LibraryKernel {
    /// Reads the kernels `call` launches on `gpu` (one library call) and the residency of the
    /// longest-running one.
    pub fn read(
        gpu: &Gpu,
        call: impl FnOnce() -> Result<(), CudaError>,
    ) -> Result<Self, LibraryKernelError> {
        let records = cupti()
            .map_err(CudaError::from)?
            .kernels_during(gpu, call)?;
        Self::from_records(gpu, records)
    }

    /// The library kernel among `records` (the longest-running; the first of equals) and its
    /// residency on `gpu`'s limits.
    pub fn from_records(gpu: &Gpu, records: Vec<KernelRecord>) -> Result<Self, LibraryKernelError> {
        Self::on_limits(gpu.limits(), records)
    }

    /// The library kernel among `records` and its residency on `limits` (a device's, or an
    /// architecture's for a run without one).
    pub fn on_limits(
        limits: &crate::occupancy::Limits,
        mut records: Vec<KernelRecord>,
    ) -> Result<Self, LibraryKernelError> {
        let main = (0..records.len())
            .rev()
            .max_by_key(|&i| records[i].duration_ns)
            .ok_or(LibraryKernelError::NoKernel)?;
        let kernel = records.remove(main);
        let o = occupancy(limits, &kernel.resources()).map_err(|source| {
            LibraryKernelError::Calculator {
                kernel: kernel.name.clone(),
                source,
            }
        })?;
        Ok(Self {
            blocks_per_sm: o.blocks_per_sm,
            warps_per_sm: o.warps_per_sm,
            occupancy: o.occupancy,
            limiter: limiter_names(&o.binding),
            kernel,
            others: records,
        })
    }

    /// The kernel, its launch and its residency in words, for a row's note.
    pub fn describe(&self, library: &str) -> String {
        let others = match self.others.len() {
            0 => String::new(),
            n => format!(
                "; the call also launched {n} other kernel(s): {}",
                self.others
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "{library} ran `{}` ({}): {} block(s)/SM, {} warps/SM, {:.1}% theoretical occupancy \
             by the lab's calculator (limited by {}){others}",
            self.kernel.name,
            self.kernel.launch_text(),
            self.blocks_per_sm,
            self.warps_per_sm,
            self.occupancy * 100.0,
            self.limiter
        )
    }
}

/// A row's note when the kernel could not be read.
pub fn unread(library: &str, why: &LibraryKernelError) -> String {
    format!("the kernel {library} ran was not read: {why}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::Arch;

    fn record(name: &str, threads: u32, regs: u32, dyn_smem: u32, ns: u64) -> KernelRecord {
        KernelRecord {
            name: name.into(),
            grid: [132, 1, 1],
            block: [threads, 1, 1],
            registers_per_thread: regs,
            static_shared_bytes: 0,
            dynamic_shared_bytes: dyn_smem,
            local_bytes_per_thread: 0,
            cluster: [0, 0, 0],
            shared_memory_executed: 0,
            duration_ns: ns,
        }
    }

    #[test]
    fn the_longest_kernel_is_the_librarys_and_its_occupancy_is_the_calculators() {
        let limits = Arch::Sm90.limits();
        let records = vec![
            record("splitk_reduce", 256, 32, 0, 2_000),
            record("sm90_gemm", 384, 168, 200 * 1024, 900_000),
        ];
        let k = LibraryKernel::on_limits(&limits, records).unwrap();
        assert_eq!(k.kernel.name, "sm90_gemm");
        assert_eq!(k.others.len(), 1);
        // 200 KiB of shared memory: one block of 12 warps out of 64.
        assert_eq!((k.blocks_per_sm, k.warps_per_sm), (1, 12));
        assert!((k.occupancy - 12.0 / 64.0).abs() < 1e-12);
        assert!(k.limiter.contains("shared memory"), "{}", k.limiter);
        let text = k.describe("cuBLAS");
        assert!(
            text.starts_with("cuBLAS ran `sm90_gemm` (grid 132x1x1"),
            "{text}"
        );
        assert!(text.contains("18.8% theoretical occupancy"), "{text}");
        assert!(text.contains("other kernel(s): splitk_reduce"), "{text}");
    }

    #[test]
    fn no_kernel_or_one_that_cannot_fit_is_an_error_that_says_so() {
        let limits = Arch::Sm90.limits();
        let e = LibraryKernel::on_limits(&limits, Vec::new()).unwrap_err();
        assert!(matches!(e, LibraryKernelError::NoKernel));
        assert_eq!(
            unread("cuBLAS", &e),
            "the kernel cuBLAS ran was not read: CUPTI recorded no kernel during the call"
        );
        let huge = record("too_big", 1024, 255, 0, 1);
        let e = LibraryKernel::on_limits(&limits, vec![huge]).unwrap_err();
        assert!(
            e.to_string().starts_with("`too_big` as CUPTI recorded it"),
            "{e}"
        );
    }
}
