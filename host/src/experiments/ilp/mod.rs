//! Experiment 5, instruction-level parallelism: FMA kernels with 1 to 16 independent chains per
//! thread over 1 to 64 resident warps per SM (blocks held by dynamic shared memory, one full
//! wave), each point's GFLOP/s against the FP32 peak at the SM clock measured during the run,
//! every launch checked bit for bit on a sample of threads. Volkov's table answers: for each
//! ILP, how few warps reach 90% of the peak?
//!
//! ```text
//! host ilp                                        # ILP 1..16 x warps/SM 1..64
//! host ilp --ilp 1,4 --warps-per-sm 4,8,64 --noise 1
//! host ilp --compare peer/peer.cubin --out results/ilp
//! ```
//!
//! Layout: [`plan`] (points and arithmetic), [`mod@reference`] (the CPU's FMA chains and the
//! check), [`row`] (typed results, Volkov's table), [`claims`] (verdict rules), [`plots`],
//! [`table`], and [`run`] — the one file that touches the kernels and the driver.

pub mod claims;
pub mod plan;
pub mod plots;
pub mod reference;
pub mod row;
pub mod run;
pub mod table;

use std::path::PathBuf;

use kernels_gpu::variants::{FmaVariant, FMA};
use plan::{ilps, DEFAULT_TARGET_CYCLES, FMA_WARPS_PER_SM};

use crate::sampling::SamplingArgs;

/// `host ilp`: arithmetic throughput against warps per SM and ILP.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct IlpArgs {
    /// CUDA device ordinal.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: u32,
    /// Independent chains per thread to run (ILPs of the variant table's fma_ilp line).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = ilps(),
          value_parser = parse_ilp)]
    pub ilp: Vec<u32>,
    /// Resident warps per SM to hold (1..64; a count that does not split into whole blocks of
    /// at most the largest block is skipped with a note).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = FMA_WARPS_PER_SM,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub warps_per_sm: Vec<u32>,
    /// SM cycles one launch is sized for (rounds per thread follow from it).
    #[arg(long, value_name = "CYCLES", default_value_t = DEFAULT_TARGET_CYCLES,
          value_parser = parse_cycles)]
    pub target_cycles: f64,
    /// Module to measure instead of the built-in kernels (PTX, cubin or fatbin).
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,
    /// Module timed against ours at every point, samples interleaved.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,
    #[command(flatten)]
    pub sampling: SamplingArgs,
    /// Output format of the tables (json: the full results).
    #[arg(long, value_enum, default_value_t = crate::tables::Format::Table)]
    pub format: crate::tables::Format,
    /// Folder for the results (JSON, Markdown tables, SVG plots); created, and checked writable
    /// before any GPU work.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of the sampled threads.
    #[arg(long, default_value_t = crate::experiments::DEFAULT_SEED)]
    pub seed: u64,
}

fn parse_cycles(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (1e3..=1e12).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is not a cycle count in 1e3..=1e12"))
    }
}

/// An ILP the kernels are not built for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--ilp {0}: no fma_ilp{0} kernel (built: {built})", built = built_ilps())]
pub struct UnknownIlp(pub u32);

fn built_ilps() -> String {
    ilps()
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One value of `--ilp`: an ILP with a kernel. Refused at parse time, so an unknown ILP is a
/// usage error (clap's exit code 2) like any other bad flag.
fn parse_ilp(s: &str) -> Result<u32, String> {
    let ilp: u32 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    kernel(ilp)
        .map(|_| ilp)
        .ok_or_else(|| UnknownIlp(ilp).to_string())
}

impl IlpArgs {
    /// Refuses ILPs without a kernel, before any GPU work (the command line already refuses
    /// them; this covers arguments built in code).
    pub fn validate(&self) -> Result<(), UnknownIlp> {
        match self.ilp.iter().find(|&&i| kernel(i).is_none()) {
            Some(&i) => Err(UnknownIlp(i)),
            None => Ok(()),
        }
    }
}

/// The variant table's kernel for an ILP.
pub fn kernel(ilp: u32) -> Option<&'static FmaVariant> {
    FMA.iter().find(|v| v.ilp == ilp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        args: IlpArgs,
    }

    fn parse(args: &[&str]) -> Result<IlpArgs, clap::Error> {
        Cmd::try_parse_from(std::iter::once("ilp").chain(args.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn defaults_span_every_ilp_and_warps_1_to_64() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.ilp, FMA.iter().map(|v| v.ilp).collect::<Vec<_>>());
        assert_eq!(a.warps_per_sm.first(), Some(&1));
        assert_eq!(a.warps_per_sm.last(), Some(&64));
        assert!(a.validate().is_ok());
        assert_eq!(kernel(12).map(|k| k.entry), Some("fma_ilp12"));
        assert_eq!(kernel(7), None);
    }

    #[test]
    fn bad_values_are_usage_errors() {
        let e = parse(&["--ilp", "4,7"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2, "a usage error");
        assert!(
            e.to_string().contains("no fma_ilp7 kernel (built: 1, 2, 3"),
            "{e}"
        );
        assert!(parse(&["--ilp", "x"]).is_err());
        assert!(parse(&["--warps-per-sm", "65"]).is_err());
        assert!(parse(&["--warps-per-sm", "0"]).is_err());
        assert!(parse(&["--target-cycles", "0"]).is_err());
        assert!(parse(&["--target-cycles", "NaN"]).is_err());
        let a = parse(&["--ilp", "1,16", "--warps-per-sm", "8,64"]).unwrap();
        assert_eq!((a.ilp, a.warps_per_sm), (vec![1, 16], vec![8, 64]));
    }

    #[test]
    fn arguments_built_in_code_are_validated_too() {
        let mut a = parse(&[]).unwrap();
        a.ilp = vec![1, 7];
        assert_eq!(a.validate(), Err(UnknownIlp(7)));
    }
}
