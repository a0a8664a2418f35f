//! The `held` experiment's marker (`Spec`, whose `Run` and `Report` are in `mod.rs`) and its flags,
//! validated into its plan: its own file so that the folder's parts can name them without
//! importing `mod.rs`.

use super::binary::{Binary, BINARIES};
use super::row::HeldRow;
use crate::experiments::contract::{self, Registered, Run};
use crate::flags::{check_tiling, own_labels, select, CliError, GemmDims, GemmSize, Shared};
use crate::kernel_source::sources::{Kernels, Sources};
use crate::results::RunMeta;

/// The `held` experiment.
pub struct Spec;

/// `host held`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct Args {
    /// Binaries to run, by label (comma-separated); default all.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub variants: Vec<String>,
    #[command(flatten)]
    pub gemm: GemmSize,
}

/// The `held` experiment adds no flag to `host all`.
#[derive(Debug, Clone, clap::Args)]
#[group(skip)]
pub struct AllArgs {}

/// The `held` experiment, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub binaries: Vec<Binary>,
    pub size: GemmDims,
    /// The built-in kernels (the binaries are the lab's own).
    pub sources: Sources<Kernels>,
}

fn planned(labels: &[String], size: GemmDims) -> Result<Plan, CliError> {
    let binaries: Vec<Binary> = select(labels, &BINARIES, |b| b.0, "binary")?
        .into_iter()
        .map(|chosen| Binary::all().into_iter().find(|b| b.label == chosen.0))
        .collect::<Option<_>>()
        .expect("every label of BINARIES is a binary");
    let experiment = format!("experiment {} ({})", Spec::NUMBER, Spec::NAME);
    let lines: Vec<_> = binaries.iter().map(|b| b.line).collect();
    check_tiling(size, &experiment, &lines, String::new)?;
    Ok(Plan {
        binaries,
        size,
        sources: Sources::new(Kernels::Builtin, None),
    })
}

impl contract::Plan for Plan {
    type Args = Args;
    type AllArgs = AllArgs;
    type Output = Vec<HeldRow>;
    type Kernels = Kernels;
    fn new(a: &Args) -> Result<Plan, CliError> {
        planned(&a.variants, a.gemm.size)
    }
    fn in_all(s: &Shared, _: &AllArgs) -> Result<Plan, CliError> {
        planned(
            &own_labels(&s.run.variants, &Spec::variant_labels()),
            s.run.gemm.size,
        )
    }
    fn sources(&self) -> &Sources<Kernels> {
        &self.sources
    }
    fn record(&self, meta: &mut RunMeta) {
        meta.set_gemm(self.size);
    }
}
