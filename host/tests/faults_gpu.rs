//! GPU-only tests of faults and hangs: a compared module (or ours) whose seed GEMM writes 1 TiB
//! past its C, and one whose seed GEMM spins for ever. The modules are the built-in PTX cut to
//! the few entries a test runs (quick to compile), with the fault or the spin written at the top
//! of one entry's body. Where the build found no CUDA driver (build.rs sets `lab_gpu` when it
//! finds libcuda), `cargo test` lists them as ignored with the reason; asked to run anyway
//! (`--ignored`) without a driver, they fail.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use host::cuda::{driver_present, Module};
use host::experiments::gemm::{launch_shape, Fp32};
use host::experiments::gemm_sides::{GemmKind, Operands};
use host::results::GemmDims;
use kernels_gpu::variants::{find_gemm, GemmVariant, GEMM};
use support::gpu;

fn line(label: &str) -> &'static GemmVariant {
    find_gemm(GEMM, label).expect("a line of the table")
}

/// What is written at the top of a broken entry's body.
#[derive(Clone, Copy)]
enum Broken {
    /// A store 1 TiB past C (the entry's third parameter): CUDA_ERROR_ILLEGAL_ADDRESS.
    WritesOutOfBounds,
    /// A loop on a volatile load of A's first word until it holds a NaN the inputs never hold.
    Spins,
}

fn patch(entry: &str, how: Broken) -> String {
    match how {
        Broken::WritesOutOfBounds => format!(
            "\t{{\n\t.reg .b64 %lab_bad;\n\tld.param.u64 %lab_bad, [{entry}_param_2];\n\
             \tadd.u64 %lab_bad, %lab_bad, 1099511627776;\n\
             \tst.global.f32 [%lab_bad], 0f00000000;\n\t}}\n"
        ),
        Broken::Spins => format!(
            "\t{{\n\t.reg .b64 %lab_a;\n\t.reg .b32 %lab_v;\n\t.reg .pred %lab_p;\n\
             \tld.param.u64 %lab_a, [{entry}_param_0];\n$LAB_SPIN:\n\
             \tld.volatile.global.u32 %lab_v, [%lab_a];\n\
             \tsetp.ne.u32 %lab_p, %lab_v, 2143289345;\n\t@%lab_p bra $LAB_SPIN;\n\t}}\n"
        ),
    }
}

/// The built-in module cut to the entries of `keep`, `broken` (entry, how) written in.
fn module(keep: &[&str], broken: Option<(&str, Broken)>) -> String {
    let mut out = String::new();
    let mut current: Option<String> = None;
    let mut patched = false;
    for l in host::kernel_source::builtin::MAIN.lines() {
        if let Some(name) = l.trim_start().strip_prefix("// .globl") {
            current = Some(name.trim().to_owned());
        }
        let kept = current.as_deref().is_none_or(|c| keep.contains(&c));
        if kept {
            out.push_str(l);
            out.push('\n');
            if let (Some(c), Some((entry, how))) = (current.as_deref(), broken) {
                if c == entry && l == "{" && !patched {
                    out.push_str(&patch(entry, how));
                    patched = true;
                }
            }
        }
        if current.is_some() && l == "}" {
            current = None;
        }
    }
    assert!(
        broken.is_none() || patched,
        "the broken entry is in the module"
    );
    out
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("host-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the host binary; a run still going after `limit` is killed and fails the test (a hang
/// guard, not a measurement).
fn host(args: &[&str], limit: Duration) -> Output {
    let exe = std::env::var_os("LAB_HOST")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_host")), PathBuf::from);
    let mut child = Command::new(exe)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "host {args:?} still running after {limit:?}; stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    eprintln!(
        "host {args:?}: {:?} after {:.1} s\nstderr:\n{}",
        out.status.code(),
        start.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `host occupancy` of `variants` at 256^3 with `ours` beside the compared `theirs`, `samples`
/// samples of two launches, the results into `out`, and `more` flags.
fn occupancy(
    ours: &Path,
    theirs: &Path,
    variants: &str,
    samples: &str,
    out: &Path,
    more: &[&str],
) -> Vec<String> {
    let mut args: Vec<String> = [
        "occupancy",
        "--module",
        ours.to_str().unwrap(),
        "--compare",
        theirs.to_str().unwrap(),
        "--variants",
        variants,
        "--size",
        "256",
        "--iters",
        "2",
        "--samples",
        samples,
    ]
    .map(String::from)
    .to_vec();
    args.extend(more.iter().map(|a| a.to_string()));
    args.extend(["--out".to_owned(), out.to_str().unwrap().to_owned()]);
    args
}

fn results(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("results.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A kernel's fault names it (side, entry, module) and loses the context: every call after it
/// fails.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_fault_names_the_kernel_and_loses_the_context() {
    let gpu = gpu();
    let s = line("S");
    let dims = GemmDims::square(256);
    let bad_ptx = module(&[s.entry], Some((s.entry, Broken::WritesOutOfBounds)));
    let bad = Module::load(&gpu, "bad.ptx", bad_ptx.as_bytes()).unwrap();
    bad.mark_compared();
    let kernel = bad.kernel(s.entry).unwrap();
    let n = 256 * 256;
    let (a, b, mut c) = (
        gpu.zeros::<f32>(n).unwrap(),
        gpu.zeros::<f32>(n).unwrap(),
        gpu.zeros::<f32>(n).unwrap(),
    );
    let ops = Operands {
        dims,
        a: &a,
        b: &b,
        c: &mut c,
        setting: (1.0, 0.0),
    };
    Fp32::launch(&gpu, &kernel, launch_shape(s, dims), ops).unwrap();
    let e = gpu.synchronize().unwrap_err();
    let text = e.to_string();
    assert!(e.is_fault(), "{text}");
    assert!(
        text.contains(&format!(
            "`{}` of the compared module (bad.ptx) faulted",
            s.entry
        )) && text.contains("CUDA_ERROR_ILLEGAL_ADDRESS"),
        "{text}"
    );
    let again = gpu
        .zeros::<f32>(1)
        .map(|_| ())
        .and_then(|()| gpu.synchronize());
    assert!(again.is_err(), "the fault is sticky");
}

/// `host occupancy`: the compared module faults in S, ours in D; both rows are failed checks
/// naming the side and the kernel (exit 1), the row between them measured (each fault makes the
/// run go on in a new process), cuBLAS's row too.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_faulting_row_fails_and_the_run_goes_on() {
    assert!(driver_present(), "no CUDA driver: asked to run and cannot");
    let dir = scratch("rows");
    let (s, a, d) = (line("S"), line("A"), line("D"));
    let entries = [s.entry, a.entry, d.entry];
    let ours = write(
        &dir,
        "ours_d_bad.ptx",
        &module(&entries, Some((d.entry, Broken::WritesOutOfBounds))),
    );
    let theirs = write(
        &dir,
        "theirs_s_bad.ptx",
        &module(&entries, Some((s.entry, Broken::WritesOutOfBounds))),
    );
    let out_dir = dir.join("run");
    let args = occupancy(&ours, &theirs, "S,A,D", "3", &out_dir, &[]);
    let out = host(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        Duration::from_secs(180),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a failed check");
    let failed = |variant: &str| {
        let start = format!("FAILED occupancy variant {variant} faulted: ");
        let line = stderr.lines().find(|l| l.starts_with(&start));
        line.unwrap_or_else(|| panic!("no `{start}` line in:\n{stderr}"))
            .to_owned()
    };
    let s_line = failed("S");
    assert!(
        s_line.contains(&format!("`{}` of the compared module", s.entry))
            && s_line.contains("theirs_s_bad.ptx")
            && s_line.contains("CUDA_ERROR_ILLEGAL_ADDRESS"),
        "{s_line}"
    );
    let d_line = failed("D");
    assert!(
        d_line.contains(&format!("`{}` of ours", d.entry)) && d_line.contains("ours_d_bad.ptx"),
        "{d_line}"
    );
    let r = results(&out_dir);
    let occupancy = &r["occupancy"];
    let rows: Vec<&str> = occupancy["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(rows, ["A"]);
    assert_eq!(occupancy["rows"][0]["check"]["passed"], true);
    let faults: Vec<&str> = occupancy["faults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["variant"].as_str().unwrap())
        .collect();
    assert_eq!(faults, ["S", "D"]);
    assert_eq!(occupancy["cublas"]["status"], "measured", "{occupancy}");
}

/// `host occupancy` with a compared kernel that never completes: the run ends after
/// `--launch-timeout` with exit code 4, the kernel named.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_kernel_that_never_completes_ends_the_run_after_the_limit() {
    assert!(driver_present(), "no CUDA driver: asked to run and cannot");
    let dir = scratch("spin");
    let s = line("S");
    let ours = write(&dir, "ours.ptx", &module(&[s.entry], None));
    let theirs = write(
        &dir,
        "spin.ptx",
        &module(&[s.entry], Some((s.entry, Broken::Spins))),
    );
    let out_dir = dir.join("run");
    let args = occupancy(
        &ours,
        &theirs,
        "S",
        "2",
        &out_dir,
        &["--launch-timeout", "3"],
    );
    let out = host(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        // The limit, the compiles, and the backstop's grace, with room to spare.
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("had not finished after 3 s (--launch-timeout)")
            && stderr.contains(&format!("`{}` of the compared module", s.entry))
            && stderr.contains("never completed"),
        "{stderr}"
    );
}
