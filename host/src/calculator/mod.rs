//! `host calc`: the occupancy calculator's command line, and (on a GPU) its check against the
//! driver (the driver's own answer is [`Kernel::max_active_blocks`](crate::cuda::Kernel)). The
//! arithmetic is [`crate::occupancy`], which needs no GPU.

pub mod driver_sweep;

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::occupancy::arch::Arch;
use crate::occupancy::block_size::max_potential_block_size;
use crate::occupancy::calc::{occupancy_with_carveout, Carveout, KernelResources};
use crate::occupancy::cliff::cliff_table;
use crate::occupancy::curves::all_curves;
use crate::occupancy::device_limits::DeviceAttributes;
use crate::occupancy::golden::{replay, table_vs_device, GoldenFile};
use crate::occupancy::render;
use crate::occupancy::size::parse_size;

use crate::cuda::{driver_present, CudaError, Gpu};
use crate::flag_values::whole;
use crate::flags::UsageError;
use crate::kernel_source::kind::ModuleKind;
use crate::kernel_source::module_file::read_module;
use crate::table::Format;
use driver_sweep::{seed_entry, sweep, REG_CAPS};

/// The flags that configure the one kernel `host calc` computes, which the check against the
/// driver (`--verify`, `--record-golden`: thousands of configurations) does not read.
const ONE_KERNEL: [&str; 12] = [
    "arch",
    "threads",
    "regs",
    "smem",
    "dyn_smem",
    "carveout",
    "sms",
    "max_potential_block_size",
    "cliff",
    "curves",
    "format",
    "json",
];

/// Occupancy of a kernel configuration, without a GPU (`--arch`) or from a real one (`--device`).
/// A flag that has no effect in the mode given is refused: the check's flags (`--ptx`,
/// `--reg-caps`, `--all-entries`) without the check, one kernel's with it, and
/// `--block-size-limit` without `--max-potential-block-size`.
#[derive(Debug, Clone, Args)]
#[command(group = clap::ArgGroup::new("driver_check").multiple(true).args(["verify", "record_golden"]))]
pub struct CalcArgs {
    /// Architecture: sm_70, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_120.
    #[arg(long, default_value = "sm_90", conflicts_with = "device", value_parser = parse_arch)]
    pub arch: String,
    /// Take the limits from GPU N instead of the table.
    #[arg(long, value_name = "N", value_parser = whole(0u32..=1023))]
    pub device: Option<u32>,
    /// Threads per block: 1..=1024.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = whole(1u32..=1024))]
    pub threads: u32,
    /// Registers per thread: 0..=255.
    #[arg(long, value_name = "N", default_value_t = 32, value_parser = whole(0u32..=255))]
    pub regs: u32,
    /// Static shared memory per block (bytes, or 16K, 1M).
    #[arg(long, default_value = "0", value_parser = parse_size)]
    pub smem: u32,
    /// Dynamic shared memory per block (bytes, or 48K).
    #[arg(long, default_value = "0", value_parser = parse_size)]
    pub dyn_smem: u32,
    /// Preferred shared memory carveout, percent of the maximum: 0..=100 (default: none).
    #[arg(long, value_name = "PCT", value_parser = whole(0u8..=100))]
    pub carveout: Option<u8>,
    /// Number of SMs, for the minimum grid (a device reports its own): 1..=1024.
    #[arg(long, value_name = "N", value_parser = whole(1u32..=1024))]
    pub sms: Option<u32>,
    /// Also find the block size with the highest occupancy, as
    /// cudaOccupancyMaxPotentialBlockSize.
    #[arg(long)]
    pub max_potential_block_size: bool,
    /// Largest block size the search may pick: 1..=1024.
    #[arg(long, value_name = "N", value_parser = whole(1u32..=1024),
          requires = "max_potential_block_size")]
    pub block_size_limit: Option<u32>,
    /// Print the register cliff table (registers/thread -> warps -> occupancy).
    #[arg(long)]
    pub cliff: bool,
    /// Print occupancy vs registers, vs block size and vs dynamic shared memory.
    #[arg(long)]
    pub curves: bool,
    /// Output format of the tables (json: everything as one JSON document).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Same as --format json.
    #[arg(long, hide = true)]
    pub json: bool,
    /// Compare the calculator with the driver on this GPU over thousands of configurations.
    #[arg(long, conflicts_with_all = ONE_KERNEL)]
    pub verify: bool,
    /// Record the driver's answers to a golden CSV file (needs a GPU).
    #[arg(long, value_name = "FILE", conflicts_with_all = ONE_KERNEL)]
    pub record_golden: Option<PathBuf>,
    /// Register caps for --verify/--record-golden (0: uncapped), e.g. 0,32,64; each in 0..=255.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = REG_CAPS,
          value_parser = whole(0u32..=255), requires = "driver_check")]
    pub reg_caps: Vec<u32>,
    /// PTX module for --verify/--record-golden (default: the built-in unbounded kernels); a
    /// regular file of PTX text.
    #[arg(long, value_name = "FILE", requires = "driver_check")]
    pub ptx: Option<PathBuf>,
    /// --verify/--record-golden over every entry of the module; by default only the GEMM lines,
    /// the `bandwidth` experiment's labelled copies and entries the variant table does not make
    /// are asked about (the rest of the memcpy grid, the FMA, chase, tensor-core, read, copy and
    /// GEMM-check entries and the traced twins are left out).
    #[arg(long, requires = "driver_check")]
    pub all_entries: bool,
}

impl CalcArgs {
    fn kernel(&self) -> KernelResources {
        KernelResources {
            threads: self.threads,
            regs_per_thread: self.regs,
            static_smem: self.smem,
            dyn_smem: self.dyn_smem,
        }
    }

    /// The PTX of `--ptx` (a regular file of PTX text), or the built-in unbounded kernels.
    fn ptx(&self) -> anyhow::Result<String> {
        match &self.ptx {
            Some(p) => match read_module("--ptx", p)? {
                (ModuleKind::Ptx, image) => Ok(String::from_utf8_lossy(&image).into_owned()),
                _ => Err(UsageError(format!(
                    "--ptx: {} is a binary module; --verify JIT-compiles PTX text under each \
                     register cap",
                    p.display()
                ))
                .into()),
            },
            None => Ok(crate::kernel_source::builtin::UNBOUNDED.to_string()),
        }
    }
}

/// `--arch`: an architecture of the calculator's table.
fn parse_arch(s: &str) -> Result<String, String> {
    s.parse::<Arch>().map_err(|e| e.to_string())?;
    Ok(s.to_owned())
}

/// `calc --verify` found the calculator disagreeing with the driver: a failed check (exit code
/// 1), with the comparison to print.
#[derive(Debug, thiserror::Error)]
#[error("the calculator disagrees with the driver")]
pub struct Disagreement {
    pub report: String,
}

/// Runs `host calc` and returns what to print.
pub fn run(args: &CalcArgs) -> anyhow::Result<String> {
    if args.verify || args.record_golden.is_some() {
        return run_gpu(args);
    }
    let mut limits = match args.device {
        Some(n) => {
            // Without a driver, the one-line no-driver message (exit code 3) of every command.
            if !driver_present() {
                return Err(CudaError::NoDriver.into());
            }
            let limits = Gpu::open(n).map(|gpu| gpu.limits().clone());
            limits.with_context(|| format!("reading GPU {n}"))?
        }
        None => args
            .arch
            .parse::<Arch>()
            .map_err(|e| UsageError(e.to_string()))?
            .limits(),
    };
    if args.sms.is_some() {
        limits.sm_count = args.sms;
    }
    let kernel = args.kernel();
    let carveout = args.carveout.map_or(Carveout::Default, Carveout::Percent);
    // A configuration the architecture cannot launch is a usage error: the input is wrong.
    let occ = occupancy_with_carveout(&limits, &kernel, carveout)
        .map_err(|e| UsageError(format!("{} cannot launch this kernel: {e}", limits.name)))?;
    let block_size = args
        .max_potential_block_size
        .then(|| max_potential_block_size(&limits, &kernel, args.block_size_limit))
        .transpose()
        .map_err(|e| UsageError(format!("--max-potential-block-size: {e}")))?;
    let cliff = args.cliff.then(|| cliff_table(&limits, &[args.regs]));
    let curves = args.curves.then(|| all_curves(&limits, &kernel));

    let format = if args.json { Format::Json } else { args.format };
    if format == Format::Json {
        let v = serde_json::json!({
            "limits": limits,
            "kernel": kernel,
            "occupancy": occ,
            "max_potential_block_size": block_size,
            "cliff": cliff,
            "curves": curves,
        });
        return Ok(serde_json::to_string_pretty(&v)? + "\n");
    }
    let mut out = render::occupancy_report(format, &limits, &kernel, &occ);
    if let Some(b) = &block_size {
        out.push('\n');
        out.push_str(&render::block_size_report(b));
    }
    if let Some(rows) = &cliff {
        out.push('\n');
        out.push_str(&render::cliff_report(format, &limits, rows));
    }
    if let Some(curves) = &curves {
        for c in curves {
            out.push('\n');
            out.push_str(&render::curve_report(format, c));
        }
    }
    Ok(out)
}

fn run_gpu(args: &CalcArgs) -> anyhow::Result<String> {
    let ordinal = args.device.unwrap_or(0);
    let ptx = args.ptx()?;
    if !driver_present() {
        return Err(CudaError::NoDriver.into());
    }
    let gpu = Gpu::open(ordinal)?;
    let device_limits = gpu.limits().clone();
    // The attributes the occupancy arithmetic needs, as the driver reported them at open.
    let attributes = DeviceAttributes::from_device_info(
        gpu.info(),
        device_limits.max_threads_per_block,
        device_limits.reserved_smem_per_block,
    );
    let mut out = String::new();
    let keep: &dyn Fn(&str) -> bool = if args.all_entries {
        &|_| true
    } else {
        &seed_entry
    };
    let rows = sweep(
        &gpu,
        &ptx,
        &device_limits,
        &args.reg_caps,
        keep,
        &mut |line| crate::stdout::note(line),
    )?;
    let golden = GoldenFile { attributes, rows };
    if let Some(path) = &args.record_golden {
        crate::atomic_file::write_atomic(path, &golden.render())
            .with_context(|| format!("writing {}", path.display()))?;
        out.push_str(&format!(
            "recorded {} configurations on {} to {}\n",
            golden.rows.len(),
            golden.attributes.name,
            path.display()
        ));
    }
    // Against the device's own limits (works on any GPU) ...
    let live = replay(&golden.rows, &device_limits);
    out.push_str(&format!(
        "against the device's limits: {}",
        live.summary(20)
    ));
    // ... and against the table, when the table knows this part.
    let mut failed = !live.mismatches.is_empty();
    if let Ok(table) = golden.table_limits() {
        for (field, t, d) in table_vs_device(&table, &device_limits) {
            failed = true;
            out.push_str(&format!("table {field} = {t}, device reports {d}\n"));
        }
        let by_table = replay(&golden.rows, &table);
        failed |= !by_table.mismatches.is_empty();
        out.push_str(&format!(
            "against the {} table: {}",
            table.name,
            by_table.summary(20)
        ));
    }
    if args.verify && failed {
        return Err(Disagreement { report: out }.into());
    }
    Ok(out)
}
