//! The sweep experiments (bytes in flight, ILP): their flags and plan (a sweep's own flags and
//! the module files), and their run loop: every point measured in turn under one progress bar. A
//! point that cannot be placed at its residency is skipped with a note instead of stopping the
//! run; where only the compared module's build cannot be placed, ours is measured alone and the
//! row says why.

use std::fmt::Debug;

use indicatif::ProgressBar;
use kernels_gpu::abi::Param;

use super::contract::{self, Output};
use super::error::ExperimentError;
use super::module_source::plan_files;
use crate::flags::{CliError, ModuleFiles, Shared};
use crate::kernel_source::sources::{Kernels, Needs, Sources};

/// A sweep's own flags: the entries it launches and their parameter list, the sweep `host all`
/// runs, and what the sweep gives.
pub trait SweepFlags: clap::Args + clap::FromArgMatches + Clone + Debug + PartialEq {
    /// The parameter list of every entry.
    const SIGNATURE: &'static [Param];
    /// The sweep's flags in `host all` (its other axes take their defaults there).
    type AllArgs: clap::Args + Clone + Debug;
    /// What running the sweep gives.
    type Output: Output;
    /// Every entry the sweep may launch; an error names a flag value with no kernel.
    fn entries(&self) -> Result<Vec<&'static str>, CliError>;
    /// The sweep `host all` runs.
    fn in_all(args: &Self::AllArgs) -> Self;
}

/// A sweep experiment's subcommand: the sweep's flags and the module files.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct Args<S: SweepFlags> {
    #[command(flatten)]
    pub sweep: S,
    #[command(flatten)]
    pub modules: ModuleFiles,
}

/// A sweep experiment, validated: the sweep, and where its kernels come from (each module file
/// checked to export every entry the sweep may launch).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan<S> {
    pub sweep: S,
    pub sources: Sources<Kernels>,
}

impl<S: SweepFlags> Plan<S> {
    /// The plan of `sweep` with the kernels of `files`.
    pub fn of(sweep: S, files: &ModuleFiles) -> Result<Self, CliError> {
        let entries = sweep.entries()?;
        let needs = Needs {
            entries: &entries,
            signature: S::SIGNATURE,
        };
        let sources = plan_files(files, needs)?;
        Ok(Plan { sweep, sources })
    }
}

impl<S: SweepFlags> contract::Plan for Plan<S> {
    type Args = Args<S>;
    type AllArgs = S::AllArgs;
    type Output = S::Output;
    type Kernels = Kernels;
    fn new(args: &Args<S>) -> Result<Self, CliError> {
        Self::of(args.sweep.clone(), &args.modules)
    }
    fn in_all(shared: &Shared, args: &S::AllArgs) -> Result<Self, CliError> {
        Self::of(S::in_all(args), &shared.module_files())
    }
    fn sources(&self) -> &Sources<Kernels> {
        &self.sources
    }
}

/// What became of one point.
pub enum Step<R> {
    Row(R),
    /// Not run, and why (the whole note).
    Skipped(String),
}

/// What a sweep measured: a row per point run, and a note per point that was not.
#[derive(Debug, Clone, PartialEq)]
pub struct Swept<R> {
    pub rows: Vec<R>,
    pub skipped: Vec<String>,
}

/// Measures every point with `measure`, advancing `bar`. A point's `name` is the bar's message
/// while it runs, its note when it cannot be placed (the error's words after it) and the variant
/// any other error names; such an error stops the sweep.
pub fn sweep<P, R>(
    bar: &ProgressBar,
    points: impl IntoIterator<Item = P>,
    name: impl Fn(&P) -> String,
    mut measure: impl FnMut(&P) -> Result<Step<R>, ExperimentError>,
) -> Result<Swept<R>, ExperimentError> {
    let mut swept = Swept {
        rows: Vec::new(),
        skipped: Vec::new(),
    };
    for point in points {
        let name = name(&point);
        bar.set_message(name.clone());
        match measure(&point) {
            Ok(Step::Row(row)) => swept.rows.push(row),
            Ok(Step::Skipped(why)) => swept.skipped.push(why),
            Err(e) if e.is_unplaceable() => swept.skipped.push(format!("{name}: {e}")),
            Err(e) => return Err(e.in_variant(name)),
        }
        bar.inc(1);
    }
    Ok(swept)
}

/// `measure` with the compared module `other` where there is one; when the point cannot be
/// placed with it (its build may need more registers or threads than ours), ours is measured
/// alone and `flags` says why.
pub fn with_compared<K: Copy, T>(
    other: Option<K>,
    flags: &mut Vec<String>,
    mut measure: impl FnMut(Option<K>) -> Result<T, ExperimentError>,
) -> Result<T, ExperimentError> {
    match measure(other) {
        Err(e) if other.is_some() && e.is_unplaceable() => {
            flags.push(format!("compared module not timed: {e}"));
            measure(None)
        }
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::error::ResidencyError;

    fn unplaceable() -> ExperimentError {
        ExperimentError::NoResidency {
            entry: "e".into(),
            module: "m".into(),
            threads: 1024,
            regs: 255,
            dyn_smem: 0,
        }
    }

    #[test]
    fn points_that_cannot_be_placed_are_skipped_and_other_errors_stop_the_sweep() {
        let bar = ProgressBar::hidden();
        let name = |p: &u32| format!("p{p}");
        let swept = sweep(&bar, 1..=4, name, |&p| match p {
            2 => Err(unplaceable()),
            3 => Ok(Step::Skipped("p3: off the grid".into())),
            _ => Ok(Step::Row(p * 10)),
        })
        .unwrap();
        assert_eq!(swept.rows, [10, 40]);
        assert_eq!(swept.skipped.len(), 2);
        assert!(swept.skipped[0].starts_with("p2: `e` in m: not one block"));
        assert_eq!(swept.skipped[1], "p3: off the grid");
        assert_eq!(bar.position(), 4);
        let failing = |e: fn() -> ExperimentError| {
            sweep(&bar, 1..=2, name, move |_| Err::<Step<u32>, _>(e()))
        };
        let driver_disagrees = || {
            ExperimentError::Residency(ResidencyError::DriverDisagrees {
                entry: "e".into(),
                threads: 32,
                dyn_smem: 0,
                got: 1,
                blocks: 2,
                hint: "",
            })
        };
        let stopped = failing(driver_disagrees);
        assert!(stopped.is_ok(), "a residency that cannot be held is a skip");
        let e = failing(|| ExperimentError::GridTooLarge {
            entry: "e".into(),
            blocks: 1 << 40,
            floats: 1 << 50,
        })
        .unwrap_err();
        assert!(e.to_string().starts_with("variant p1: `e`"), "{e}");
    }

    #[test]
    fn a_compared_module_that_cannot_be_placed_is_left_out_with_a_flag() {
        let mut flags = Vec::new();
        let mut tries = Vec::new();
        let got = with_compared(Some("theirs"), &mut flags, |other| {
            tries.push(other);
            match other {
                Some(_) => Err(unplaceable()),
                None => Ok("ours alone"),
            }
        })
        .unwrap();
        assert_eq!(got, "ours alone");
        assert_eq!(tries, [Some("theirs"), None]);
        assert_eq!(flags.len(), 1);
        assert!(
            flags[0].starts_with("compared module not timed: `e`"),
            "{flags:?}"
        );
        let mut flags = Vec::new();
        let both = with_compared(Some(1), &mut flags, Ok).unwrap();
        assert_eq!((both, flags.len()), (Some(1), 0));
    }
}
