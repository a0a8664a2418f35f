//! `cargo xtask build` and `cargo xtask sweep`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use xtask::{modules, ptx::PtxBuild, ptxas};

#[derive(Parser)]
#[command(about = "Build the Rust kernels to PTX and run the occupancy lab")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Compile kernels-gpu to PTX (launch-bounded, register-capped and unbounded modules) and,
    /// when ptxas is found, assemble every module and write its resource manifest.
    Build(BuildArgs),
    /// Build, run the three experiments on the GPU, print the tables and write a results folder.
    Sweep(SweepArgs),
}

#[derive(clap::Args)]
struct BuildArgs {
    /// GPU architecture: the PTX target and the ptxas arch.
    #[arg(long, default_value = xtask::ptx::DEFAULT_ARCH, value_parser = parse_arch)]
    arch: String,
    /// Output folder (default: target/kernels/ARCH).
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct SweepArgs {
    /// Results folder (default: results/<date>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Build this CUDA C++ file with nvcc (exporting the lab's entry names) and compare against it.
    #[arg(long, value_name = "FILE.cu")]
    compare_nvcc: Option<PathBuf>,
    /// Extra arguments for `host all` (e.g. `--device 1 --iters 20`).
    #[arg(last = true)]
    host_args: Vec<String>,
}

fn parse_arch(s: &str) -> Result<String, String> {
    match s
        .strip_prefix("sm_")
        .map(|n| n.trim_end_matches(['a', 'f']).parse::<u32>())
    {
        Some(Ok(n)) if (50..=130).contains(&n) => Ok(s.to_string()),
        _ => Err(format!(
            "`{s}` is not a GPU architecture; expected sm_XX, e.g. sm_80 or sm_90"
        )),
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn build(args: &BuildArgs) -> Result<PathBuf> {
    let ws = workspace();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| ws.join("target/kernels").join(&args.arch));
    eprintln!("compiling kernels-gpu for nvptx64 ({})", args.arch);
    let plain = PtxBuild::new(&ws, &args.arch)
        .compile()
        .context("building the kernels")?;
    let written = modules::write_all(&plain, &out)?;
    eprintln!("wrote {} modules to {}", written.len(), out.display());
    let Some(ptxas_path) = ptxas::find() else {
        eprintln!("{}", ptxas::PtxasError::NotFound);
        eprintln!("(the PTX is written; the driver JIT-compiles it at load time)");
        return Ok(out);
    };
    let manifest = modules::assemble_all(&ptxas_path, &written, &out, &args.arch)?;
    println!("{}", render_manifest(&manifest));
    let bad = modules::check_bars(&manifest);
    for line in &bad {
        eprintln!("warning: {line}");
    }
    let spills = modules::grid_spills(&manifest);
    if !spills.is_empty() {
        eprintln!(
            "note: {} memcpy grid points spill under their launch bound (they stage more floats than it leaves registers for):",
            spills.len()
        );
        for line in &spills {
            eprintln!("  {line}");
        }
    }
    eprintln!(
        "ptxas ({}) report: {}",
        manifest.ptxas,
        out.join(format!("manifest_{}.json", args.arch)).display()
    );
    Ok(out)
}

fn render_manifest(m: &modules::Manifest) -> String {
    let mut s = format!(
        "{:<28} {:<22} {:>5} {:>6} {:>7} {:>7} {:>6}\n",
        "module", "entry", "regs", "stack", "spill-st", "spill-ld", "smem"
    );
    for module in &m.modules {
        for e in &module.entries {
            s += &format!(
                "{:<28} {:<22} {:>5} {:>6} {:>7} {:>7} {:>6}\n",
                module.module.file,
                e.name,
                e.registers,
                e.stack_frame,
                e.spill_stores,
                e.spill_loads,
                e.shared
            );
        }
    }
    s
}

fn sweep(args: &SweepArgs) -> Result<()> {
    let ws = workspace();
    build(&BuildArgs {
        arch: xtask::ptx::DEFAULT_ARCH.into(),
        out: None,
    })?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| ws.join("results").join(today()));
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
    if let Some(cu) = &args.compare_nvcc {
        let cubin = nvcc_module(cu, &out)?;
        host.arg("--compare")
            .arg(cubin.0)
            .arg("--compare-caps")
            .arg(cubin.1);
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

/// Builds a CUDA C++ file exporting the lab's entry names with nvcc: the launch-bounded cubin and
/// one capped cubin per register cap (no launch bounds), with ptxas reports beside them.
fn nvcc_module(cu: &Path, out: &Path) -> Result<(PathBuf, PathBuf)> {
    let dir = out.join("nvcc");
    std::fs::create_dir_all(&dir)?;
    let arch = std::env::var("LAB_NVCC_ARCH").unwrap_or_else(|_| "native".into());
    let nvcc = |extra: &[String], cubin: &Path| -> Result<()> {
        let o = Command::new("nvcc")
            .args(["-cubin", "-O3", &format!("-arch={arch}"), "-Xptxas", "-v"])
            .args(extra)
            .arg(cu)
            .arg("-o")
            .arg(cubin)
            .output()
            .context("running nvcc (is the CUDA toolkit installed?)")?;
        std::fs::write(cubin.with_extension("ptxas.txt"), &o.stderr)?;
        if !o.status.success() {
            bail!(
                "nvcc failed on {}:\n{}",
                cu.display(),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        Ok(())
    };
    let main = dir.join("nvcc.cubin");
    nvcc(&[], &main)?;
    for cap in kernels_gpu::variants::REGS.caps {
        nvcc(
            &["-DNO_LAUNCH_BOUNDS".into(), format!("-maxrregcount={cap}")],
            &dir.join(format!("nvcc_cap{cap}.cubin")),
        )?;
    }
    Ok((main, dir))
}

fn today() -> String {
    let out = Command::new("date").arg("-u").arg("+%Y-%m-%d").output();
    out.ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "latest".into())
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Cmd::Build(a) => build(&a).map(|_| ()),
        Cmd::Sweep(a) => sweep(&a),
    }
}
