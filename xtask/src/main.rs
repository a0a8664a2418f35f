//! `cargo xtask build` and `cargo xtask sweep`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use tabled::builder::Builder;
use tabled::settings::Style;
use xtask::{driver, modules, nvcc, ptx::PtxBuild, ptxas, twin};

#[derive(Parser)]
#[command(about = "Build the Rust kernels to PTX and run the occupancy lab")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compile kernels-gpu to PTX (launch-bounded, register-capped and unbounded modules) and,
    /// when ptxas is found, assemble every module and write its resource manifest. With --nvcc,
    /// build nvcc's twin of the kernels instead.
    Build(BuildArgs),
    #[command(about = sweep_about())]
    Sweep(SweepArgs),
}

#[derive(clap::Args)]
struct BuildArgs {
    /// GPU architecture: the PTX target and the ptxas arch (sm_XY of a real GPU; one the ptxas
    /// found takes). Checked before anything is compiled.
    #[arg(long, default_value = xtask::ptx::DEFAULT_ARCH, value_parser = xtask::arch_flag::parse_arch)]
    arch: String,
    /// Output folder (default: target/kernels/ARCH; with --nvcc, target/nvcc/ARCH).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Build nvcc's twin of the kernels (nvcc/twin.cu, CUDA C++) instead of the Rust kernels:
    /// regenerate nvcc/variants.h from the variant table (also without nvcc), build the
    /// launch-bounded and capped cubins with nvcc, and check their entries, parameter lists and
    /// launch bounds against the table.
    #[arg(long)]
    nvcc: bool,
}

#[derive(clap::Args)]
struct SweepArgs {
    /// Results folder (default: results/<date>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also build CUDA C++ with nvcc and compare against it: without FILE, the lab's own twin of
    /// every kernel (nvcc/twin.cu); with FILE, that file (it must export the lab's entry names).
    /// nvcc builds for $LAB_NVCC_ARCH (default: native, the GPU of this machine).
    #[arg(long, value_name = "FILE.cu", num_args = 0..=1)]
    compare_nvcc: Option<Option<PathBuf>>,
    /// Extra arguments for `host all` (e.g. `--device 1 --iters 20 --samples 10`).
    #[arg(last = true)]
    host_args: Vec<String>,
}

/// `cargo xtask sweep`'s line in `--help`: every experiment of the host's registry, by name (from
/// kernels-gpu's copy of the names, which the host's build holds to its registry).
fn sweep_about() -> String {
    let names = kernels_gpu::experiment_names::EXPERIMENT_NAMES;
    format!(
        "Build, run all {} experiments ({}) on the GPU, print the tables and write a results folder",
        names.len(),
        names.join(", ")
    )
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// How much of the build to print.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Print {
    /// The ptxas table of every entry (`cargo xtask build`).
    Table,
    /// One summary line (`cargo xtask sweep`; the table is in the manifest).
    Summary,
}

fn build(args: &BuildArgs, print: Print) -> Result<PathBuf> {
    let ws = workspace();
    if args.nvcc {
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| ws.join("target/nvcc").join(&args.arch));
        // The header first, so that a table change reaches the twin even where nvcc is missing.
        if xtask::twin_header::write(&ws)? {
            eprintln!(
                "{} rewritten from the variant table",
                xtask::twin_header::HEADER
            );
        }
        let nvcc = nvcc::find().ok_or(nvcc::NvccError::NotFound)?;
        build_twin(&ws, &nvcc, &args.arch, &out, print)?;
        return Ok(out);
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| ws.join("target/kernels").join(&args.arch));
    let ptxas_path = ptxas::find();
    if let Some(targets) = ptxas_path
        .as_deref()
        .and_then(xtask::arch_flag::ptxas_targets)
    {
        if !targets.contains(&args.arch) {
            eprintln!(
                "error: --arch {}: the ptxas found ({}) does not take it; it takes {}; nothing \
                 was compiled",
                args.arch,
                ptxas_path
                    .as_deref()
                    .unwrap_or(Path::new("ptxas"))
                    .display(),
                targets.join(", ")
            );
            std::process::exit(2);
        }
    }
    if print == Print::Table {
        eprintln!("compiling kernels-gpu for nvptx64 ({})", args.arch);
    }
    let plain = PtxBuild::new(&ws, &args.arch)
        .compile()
        .context("building the kernels")?;
    let written = modules::write_all(&plain, &out)?;
    let Some(ptxas_path) = ptxas_path else {
        eprintln!(
            "kernels: {} PTX modules for {} in {} (no ptxas: {}; the driver JIT-compiles the PTX)",
            written.len(),
            args.arch,
            out.display(),
            ptxas::PtxasError::NotFound
        );
        return Ok(out);
    };
    let manifest = modules::assemble_all(&ptxas_path, &written, &out, &args.arch)?;
    let manifest_path = out.join(format!("manifest_{}.json", args.arch));
    let bad = modules::check_bars(&manifest);
    match print {
        Print::Table => {
            println!("{}", render_manifest(&manifest));
            for line in &bad {
                eprintln!("warning: {line}");
            }
            eprintln!(
                "ptxas ({}) report: {}",
                manifest.ptxas,
                manifest_path.display()
            );
        }
        Print::Summary => {
            let entries: usize = manifest.modules.iter().map(|m| m.entries.len()).sum();
            eprintln!(
                "kernels: {} modules, {entries} entries for {} ({}); {}; ptxas table in {}",
                manifest.modules.len(),
                args.arch,
                manifest.ptxas,
                if bad.is_empty() {
                    "no unexpected spills or stack".to_owned()
                } else {
                    format!("{} warning(s): {}", bad.len(), bad.join("; "))
                },
                manifest_path.display()
            );
        }
    }
    let spills = modules::grid_spills(&manifest);
    if !spills.is_empty() {
        eprintln!(
            "note: {} memcpy grid points spill under their launch bound (they stage more floats than it leaves registers for){}",
            spills.len(),
            match print {
                Print::Table => ":",
                Print::Summary => "; see the manifest",
            }
        );
        if matches!(print, Print::Table) {
            for line in &spills {
                eprintln!("  {line}");
            }
        }
    }
    build_hopper(&ws, &ptxas_path, &out)?;
    Ok(out)
}

/// Builds the sm_90a module (the wgmma entries) into `out` and assembles it; a serialized wgmma
/// or a spill on a wgmma entry fails the build. Skipped, with a note, where ptxas cannot
/// target sm_90a.
fn build_hopper(ws: &Path, ptxas_path: &Path, out: &Path) -> Result<()> {
    let arch = xtask::ptx::HOPPER_ARCH;
    let plain = PtxBuild::hopper(ws)
        .compile()
        .context("building the sm_90a kernels")?;
    let path = xtask::hopper::write(&plain, out)?;
    if xtask::arch_flag::ptxas_targets(ptxas_path).is_some_and(|t| !t.iter().any(|a| a == arch)) {
        eprintln!(
            "note: {} written, not assembled: the ptxas found does not take {arch}",
            path.display()
        );
        return Ok(());
    }
    let log = xtask::hopper::assemble(ptxas_path, out)?;
    let bad = xtask::hopper::check_bars(&log);
    if !bad.is_empty() {
        bail!("{} fails its bars:\n{}", path.display(), bad.join("\n"));
    }
    eprintln!(
        "kernels: {} assembled for {arch}: no serialized wgmma, no spills",
        path.display()
    );
    Ok(())
}

/// Builds nvcc's twin into `out` and checks it against the table: a mismatch is an error, a
/// missed bar (a spill, a cap that does not bind) a warning, as in the Rust build.
fn build_twin(ws: &Path, nvcc: &Path, arch: &str, out: &Path, print: Print) -> Result<twin::Twin> {
    eprintln!(
        "building nvcc's twin ({}) for {arch} with {}",
        xtask::twin_header::SOURCE,
        nvcc.display()
    );
    let built = twin::build(ws, nvcc, arch, out).context("building nvcc's twin")?;
    if built.header_rewritten {
        eprintln!(
            "{} rewritten from the variant table (commit it with the table change)",
            xtask::twin_header::HEADER
        );
    }
    let wrong = twin::mismatches(&built)?;
    if !wrong.is_empty() {
        bail!(
            "nvcc's twin does not match the variant table:\n  {}",
            wrong.join("\n  ")
        );
    }
    let bad = twin::bars(&built);
    if print == Print::Table {
        println!("{}", render_manifest(&built.manifest));
    }
    for line in &bad {
        eprintln!("warning: {line}");
    }
    let spills = twin::grid_spills(&built);
    if !spills.is_empty() {
        eprintln!(
            "note: {} memcpy grid points spill in the twin (nvcc's allocation of copies that keep every load in flight)",
            spills.len()
        );
        if print == Print::Table {
            for line in &spills {
                eprintln!("  {line}");
            }
        }
    }
    let entries = built.manifest.modules[0].entries.len();
    eprintln!(
        "twin: {entries} entries for {}{} ({}), entries, parameters and launch bounds as the table; {} in {}",
        built.manifest.arch,
        match &built.hopper {
            Some(_) => format!(
                " and {} for sm_90a",
                xtask::hopper::hopper_entries().count()
            ),
            None => String::new(),
        },
        built.manifest.ptxas,
        if bad.is_empty() {
            "no unexpected spills or stack".to_owned()
        } else {
            format!("{} warning(s)", bad.len())
        },
        out.display()
    );
    Ok(built)
}

fn render_manifest(m: &modules::Manifest) -> String {
    let mut b = Builder::default();
    b.push_record([
        "module", "entry", "regs", "stack", "spill-st", "spill-ld", "smem",
    ]);
    for module in &m.modules {
        for e in &module.entries {
            b.push_record([
                module.module.file.clone(),
                e.name.clone(),
                e.registers.to_string(),
                e.stack_frame.to_string(),
                e.spill_stores.to_string(),
                e.spill_loads.to_string(),
                e.shared.to_string(),
            ]);
        }
    }
    let mut t = b.build();
    t.with(Style::psql());
    t.to_string()
}

/// The sweep's own flags checked, and the driver looked for, before anything is built.
fn check_sweep(args: &SweepArgs, out: &Path) -> Result<()> {
    if !driver::installed() {
        eprintln!(
            "xtask: no CUDA driver: libcuda is not installed on this machine (the sweep runs the \
             kernels on a GPU); nothing was built"
        );
        std::process::exit(3);
    }
    std::fs::create_dir_all(out)
        .with_context(|| format!("--out: cannot create {}", out.display()))?;
    let probe = out.join(format!(".xtask-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"ok")
        .with_context(|| format!("--out: cannot write into {}", out.display()))?;
    let _ = std::fs::remove_file(&probe);
    if let Some(file) = &args.compare_nvcc {
        let twin = workspace().join(xtask::twin_header::SOURCE);
        let cu = file.as_deref().unwrap_or(&twin);
        let text = std::fs::read_to_string(cu)
            .with_context(|| format!("--compare-nvcc: cannot read {}", cu.display()))?;
        if !text.contains("__global__") {
            bail!(
                "--compare-nvcc: {} has no __global__ function; expected the CUDA C++ of the \
                 lab's kernels",
                cu.display()
            );
        }
        if nvcc::find().is_none() {
            bail!("--compare-nvcc: {}", nvcc::NvccError::NotFound);
        }
    }
    Ok(())
}

fn sweep(args: &SweepArgs) -> Result<()> {
    let ws = workspace();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| ws.join("results").join(today()));
    check_sweep(args, &out)?;
    // The host checks its own flags (its --out, modules and caps) before it touches the GPU:
    // build it and ask it to check only, so a bad flag stops the sweep here.
    let checked = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&ws)
        .args(["run", "--quiet", "--release", "-p", "host", "--"])
        .args(["all", "--check-only", "--out"])
        .arg(&out)
        .args(&args.host_args)
        .status()
        .context("building and running the host")?;
    if !checked.success() {
        // The host (or cargo) has said what is wrong.
        std::process::exit(checked.code().unwrap_or(2));
    }
    build(
        &BuildArgs {
            arch: xtask::ptx::DEFAULT_ARCH.into(),
            out: None,
            nvcc: false,
        },
        Print::Summary,
    )?;
    let mut host = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    host.current_dir(&ws)
        .args([
            "run",
            "--quiet",
            "--release",
            "-p",
            "host",
            "--",
            "all",
            "--out",
        ])
        .arg(&out);
    if let Some(file) = &args.compare_nvcc {
        let (cubin, caps) = nvcc_module(file.as_deref(), &out)?;
        // The folder passed the host's check (new or empty) before nvcc's build was put in it.
        if !args.host_args.iter().any(|a| a == "--force") {
            host.arg("--force");
        }
        host.arg("--compare")
            .arg(cubin)
            .arg("--compare-caps")
            .arg(caps);
        if !args.host_args.iter().any(|a| a == "--compare-label") {
            host.args(["--compare-label", "nvcc"]);
        }
    }
    host.args(&args.host_args);
    eprintln!("running {host:?}");
    let status = host.status().context("running the host")?;
    if !status.success() {
        // The host has said why (one line for a missing driver); pass its exit code on.
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}

/// Builds the CUDA C++ to compare with into `OUT/nvcc/STEM/`: the lab's twin (`file` None: built
/// and checked against the table) or `file` (exporting the lab's entry names); gives the
/// launch-bounded cubin and the folder of capped ones.
fn nvcc_module(file: Option<&Path>, out: &Path) -> Result<(PathBuf, PathBuf)> {
    let stem = file.map_or(twin::STEM.into(), |f| {
        f.file_stem().unwrap_or_default().to_string_lossy()
    });
    let dir = out.join("nvcc").join(&*stem);
    let arch = std::env::var("LAB_NVCC_ARCH").unwrap_or_else(|_| "native".into());
    let nvcc = nvcc::find().ok_or(nvcc::NvccError::NotFound)?;
    let main = match file {
        None => {
            build_twin(&workspace(), &nvcc, &arch, &dir, Print::Summary)?
                .built
                .main
                .cubin
        }
        Some(cu) => {
            nvcc::build(&workspace(), &nvcc, cu, &arch, &dir, nvcc::Sm90a::Build)
                .with_context(|| format!("building {} with nvcc", cu.display()))?
                .main
                .cubin
        }
    };
    Ok((main, dir))
}

/// Today's UTC date, `YYYY-MM-DD` (the results folder's name).
fn today() -> String {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    stamp[..10].to_string()
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Cmd::Build(a) => build(&a, Print::Table).map(|_| ()),
        Cmd::Sweep(a) => sweep(&a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(args: &[&str]) -> Result<SweepArgs, clap::Error> {
        let argv = ["xtask", "sweep"].iter().chain(args);
        match Cli::try_parse_from(argv)?.command {
            Cmd::Sweep(a) => Ok(a),
            Cmd::Build(_) => unreachable!("parsed a sweep"),
        }
    }

    #[test]
    fn compare_nvcc_takes_the_twin_or_a_file() {
        assert!(sweep(&[]).unwrap().compare_nvcc.is_none());
        assert_eq!(sweep(&["--compare-nvcc"]).unwrap().compare_nvcc, Some(None));
        assert_eq!(
            sweep(&["--compare-nvcc", "peer.cu"]).unwrap().compare_nvcc,
            Some(Some(PathBuf::from("peer.cu")))
        );
        // The host's arguments after `--` are not taken for the file.
        let a = sweep(&["--compare-nvcc", "--", "--device", "1"]).unwrap();
        assert_eq!(a.compare_nvcc, Some(None));
        assert_eq!(a.host_args, ["--device", "1"]);
        assert!(sweep(&["--compare-nvcc", "a.cu", "b.cu"]).is_err());
    }

    #[test]
    fn build_nvcc_is_a_flag() {
        let Cmd::Build(b) = Cli::try_parse_from(["xtask", "build", "--nvcc", "--arch", "sm_90"])
            .unwrap()
            .command
        else {
            panic!("parsed a build")
        };
        assert!(b.nvcc);
        assert_eq!(b.arch, "sm_90");
    }
}
