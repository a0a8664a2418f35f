//! A kernel entry's spill and stack figures, from the compiler's report for the module actually
//! run (the driver JIT's info log, or a `ptxas -v` report beside a cubin), else the driver's
//! local memory for the function.

use serde::{Deserialize, Serialize};

use super::module_source::Loaded;
use crate::cuda::{CudaError, Kernel};

/// Spill and stack figures of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spills {
    /// Spill stores and loads, bytes; `None` where the module came with no compiler report.
    pub stores: Option<u32>,
    pub loads: Option<u32>,
    /// Bytes of stack frame (the report's, else the function's local memory).
    pub stack_frame: u32,
}

impl Spills {
    /// `kernel`'s figures in `loaded`: the compiler report's entry, else the driver's local
    /// memory (stack frame) with the spills unknown.
    pub fn of(loaded: &Loaded, kernel: &Kernel<'_>) -> Result<Self, CudaError> {
        let entry = loaded.report.as_ref().and_then(|r| r.entry(kernel.entry()));
        Ok(Spills {
            stores: entry.map(|e| e.spill_stores),
            loads: entry.map(|e| e.spill_loads),
            stack_frame: match entry {
                Some(e) => e.stack_frame,
                None => kernel.local_bytes()?,
            },
        })
    }

    /// Whether the entry keeps values in local memory: spill stores or loads, or a stack frame
    /// (which is all a report-less module shows of its spills).
    pub fn in_local_memory(&self) -> bool {
        self.stores.unwrap_or(0) > 0 || self.loads.unwrap_or(0) > 0 || self.stack_frame > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_or_a_stack_frame_mean_local_memory() {
        let s = |stores, loads, stack_frame| Spills {
            stores,
            loads,
            stack_frame,
        };
        assert!(!s(Some(0), Some(0), 0).in_local_memory());
        assert!(s(Some(792), Some(792), 800).in_local_memory());
        assert!(s(Some(4), Some(0), 0).in_local_memory());
        assert!(
            s(None, None, 64).in_local_memory(),
            "a report-less module's stack"
        );
        assert!(!s(None, None, 0).in_local_memory());
    }
}
