//! A kernel's fault met earlier in the run, as the process that goes on after it
//! ([`super::resume`]) is told of it: which experiment, which line, the error.

use serde::{Deserialize, Serialize};

use super::error::ExperimentError;

/// A fault met earlier in the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    pub experiment: String,
    /// The line it faulted in, where the experiment goes on without the line (`occupancy`);
    /// otherwise the experiment is a failed check as a whole.
    pub variant: Option<String>,
    /// The error, naming the kernel(s) in flight.
    pub error: String,
}

impl Fault {
    /// The fault `err` (in experiment `experiment`): of a line when `by_line` (the experiment goes
    /// on without its faulting lines) and the error names one.
    pub fn of(experiment: &str, err: &ExperimentError, by_line: bool) -> Self {
        Fault {
            experiment: experiment.to_owned(),
            variant: by_line.then(|| err.variant().map(str::to_owned)).flatten(),
            error: err.innermost().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which line faulted is kept for `occupancy`, which goes on without it; a fault elsewhere
    /// fails its experiment as a whole.
    #[test]
    fn a_fault_names_its_line_where_the_experiment_goes_on_without_it() {
        use crate::cuda::CudaError;
        let e = ExperimentError::from(CudaError::NoSuchDevice {
            ordinal: 1,
            count: 1,
        })
        .in_variant("S");
        let e = ExperimentError::InExperiment {
            experiment: "occupancy",
            source: Box::new(e),
        };
        let f = Fault::of("occupancy", &e, true);
        assert_eq!(f.variant.as_deref(), Some("S"));
        assert!(
            f.error.starts_with("device 1 does not exist"),
            "{}",
            f.error
        );
        assert_eq!(Fault::of("regs", &e, false).variant, None);
    }
}
