//! nvcc's twin run on the CPU (`nvcc/cpu/`): its kernel headers compiled with the host's C++
//! compiler, GPU threads as OS threads, cp.async as queued copies that land only at the wait.
//! Every GEMM line must match an f64 product at sizes that take each of its paths, every copy of
//! the grid must copy exactly, and every FMA line must give, bit for bit, what the lab's CPU
//! reference (`kernels_gpu::reference`) says the Rust kernel gives. This checks the CUDA C++
//! algorithm before any GPU time is spent on it; nvcc's code is checked on the GPU.

use std::path::{Path, PathBuf};
use std::process::Command;

use kernels_gpu::reference;
use kernels_gpu::variants::{GemmFamily, FMA, GEMM, MEMCPY_GRID};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Compiles and runs `nvcc/cpu/twin_on_cpu.cpp`; gives its exit status and output.
fn run_on_cpu() -> (bool, String) {
    let ws = workspace();
    let dir = ws.join("target/test-twin");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("twin_on_cpu");
    let cxx = std::env::var_os("CXX").unwrap_or_else(|| "c++".into());
    // -O0: the check runs in seconds and compiles fastest; no contraction of a*b+c into an fma
    // the source did not write.
    let built = Command::new(&cxx)
        .args([
            "-std=c++20",
            "-O0",
            "-ffp-contract=off",
            "-Wall",
            "-Wno-unknown-pragmas",
            "-pthread",
        ])
        .arg(ws.join("nvcc/cpu/twin_on_cpu.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("running the C++ compiler");
    assert!(
        built.status.success(),
        "compiling nvcc/cpu/twin_on_cpu.cpp with {cxx:?}:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = Command::new(&exe).output().expect("running twin_on_cpu");
    (
        ran.status.success(),
        String::from_utf8_lossy(&ran.stdout).into_owned(),
    )
}

#[test]
#[cfg_attr(
    not(lab_cxx),
    ignore = "needs a C++20 compiler: set CXX or put c++ on PATH"
)]
fn the_twin_computes_the_tables_results_on_the_cpu() {
    let (passed, out) = run_on_cpu();
    let failed: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        passed && failed.is_empty(),
        "the twin on the CPU:\n{}",
        failed.join("\n")
    );
    // Every table line was checked: two sizes per seed line, four per tuned line, one per copy.
    let checks = |entry: &str| {
        out.lines()
            .filter(|l| {
                l.strip_prefix("ok ")
                    .is_some_and(|r| r.starts_with(&format!("{entry} ")))
            })
            .count()
    };
    for v in GEMM {
        let want = match v.family {
            GemmFamily::Seed => 2,
            GemmFamily::Tuned => 4,
        };
        assert_eq!(checks(v.entry), want, "{} ({})", v.label, v.entry);
    }
    for p in MEMCPY_GRID {
        assert_eq!(checks(p.entry), 1, "{}", p.entry);
    }
    // FMA: bit for bit what the lab's CPU reference gives for the Rust kernel.
    let mut compared = 0;
    for line in out.lines().filter_map(|l| l.strip_prefix("fma ")) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [ilp, g, a, b, iters, got] = w[..] else {
            panic!("unreadable fma line `{line}`")
        };
        let (ilp, g): (u32, u32) = (ilp.parse().unwrap(), g.parse().unwrap());
        let (a, b) = (
            f32::from_bits(a.parse().unwrap()),
            f32::from_bits(b.parse().unwrap()),
        );
        let iters: i32 = iters.parse().unwrap();
        let want = reference::fma_ilp(g, ilp, a, b, iters);
        assert_eq!(
            got.parse::<u32>().unwrap(),
            want.to_bits(),
            "fma_ilp{ilp} thread {g}, iters {iters}: twin {}, reference {want}",
            f32::from_bits(got.parse().unwrap())
        );
        compared += 1;
    }
    assert_eq!(
        compared,
        FMA.len() * 10,
        "5 threads x 2 iteration counts per FMA line"
    );
}
