//! nvcc's twin run on the CPU (`nvcc/cpu/`): its kernel headers compiled with the host's C++
//! compiler, GPU threads as OS threads (the tensor-core kernels' as fibers, their warp-wide
//! instructions modelled), cp.async as queued copies that land only at the wait. Every GEMM line
//! must match an f64 product at sizes that take each of its paths, every BF16 GEMM line an exact
//! product of small integers, every copy of the grid must copy exactly, and every FMA and mma line
//! must give, bit for bit, what the lab's CPU reference (`kernels_gpu::models::probe_results`) and
//! mma model (`kernels_gpu::models::mma_sync`) say the Rust kernel gives. This checks the CUDA C++
//! algorithm before any GPU time is spent on it; nvcc's code is checked on the GPU.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kernels_gpu::models::mma_sync::{mma_bf16_ilp_outputs, mma_m16n8k16};
use kernels_gpu::models::probe_results;
use kernels_gpu::variants::{
    FmaOp, GemmFamily, RingMma, SmemPath, BF16_GEMM, FMA, FMA_CONTROLS, GEMM, MEMCPY_GRID, MMA_ILP,
    PERSISTENT_COPY, READ, SMEM_COPY, WGEMM, WGMMA_BF16,
};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The exit status and output of `nvcc/cpu/twin_on_cpu.cpp`, compiled and run once for the tests
/// below.
fn on_cpu() -> &'static (bool, String) {
    static RUN: OnceLock<(bool, String)> = OnceLock::new();
    RUN.get_or_init(|| run_on_cpu("twin_on_cpu"))
}

/// The same for `nvcc/cpu/twin_sm90a_on_cpu.cpp`, the sm_90a module's GEMMs on the model of
/// Hopper's asynchronous units (`nvcc/cpu/hopper_on_cpu.h`).
fn sm90a_on_cpu() -> &'static (bool, String) {
    static RUN: OnceLock<(bool, String)> = OnceLock::new();
    RUN.get_or_init(|| run_on_cpu("twin_sm90a_on_cpu"))
}

/// Compiles and runs `nvcc/cpu/{program}.cpp`; gives its exit status and output.
fn run_on_cpu(program: &str) -> (bool, String) {
    let ws = workspace();
    let dir = ws.join("target/test-twin");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(program);
    let source = ws.join(format!("nvcc/cpu/{program}.cpp"));
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
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("running the C++ compiler");
    assert!(
        built.status.success(),
        "compiling {} with {cxx:?}:\n{}",
        source.display(),
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = Command::new(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running {program}: {e}"));
    let mut out = String::from_utf8_lossy(&ran.stdout).into_owned();
    // What a run that aborts (a deadlock, an access outside shared memory) says is on stderr.
    out.push_str(&String::from_utf8_lossy(&ran.stderr));
    (ran.status.success(), out)
}

/// How many `ok ENTRY CASE` lines `out` has for `entry` and `case`.
fn passed(out: &str, entry: &str, case: &str) -> usize {
    out.lines()
        .filter(|l| *l == format!("ok {entry} {case}"))
        .count()
}

#[test]
#[cfg_attr(
    not(lab_cxx),
    ignore = "needs a C++20 compiler: set CXX or put c++ on PATH"
)]
fn the_twin_computes_the_tables_results_on_the_cpu() {
    let (passed, out) = on_cpu();
    let failed: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        *passed && failed.is_empty(),
        "the twin on the CPU:\n{}",
        failed.join("\n")
    );
    // Every table line was checked: two sizes per seed line, four per tuned line, five per BF16
    // line, one per copy and per read.
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
    for l in PERSISTENT_COPY {
        assert_eq!(checks(l.entry), 1, "{}", l.entry);
    }
    for p in READ {
        assert_eq!(checks(p.entry), 1, "{}", p.entry);
    }
    for v in BF16_GEMM {
        assert_eq!(checks(v.entry), 5, "{} ({})", v.label, v.entry);
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
        let want = probe_results::fma_ilp(g, ilp, a, b, iters);
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
    // The FMA line's controls: bit for bit the reference of their op.
    let mut controls = 0;
    for line in out.lines().filter_map(|l| l.strip_prefix("fma_control ")) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [op, ilp, g, a, b, iters, got] = w[..] else {
            panic!("unreadable fma_control line `{line}`")
        };
        let op = FmaOp::named(op).unwrap_or_else(|| panic!("no op {op}"));
        let (ilp, g): (u32, u32) = (ilp.parse().unwrap(), g.parse().unwrap());
        let (a, b) = (
            f32::from_bits(a.parse().unwrap()),
            f32::from_bits(b.parse().unwrap()),
        );
        let iters: i32 = iters.parse().unwrap();
        let want = probe_results::op_ilp(op, g, ilp, a, b, iters);
        assert_eq!(
            got.parse::<u32>().unwrap(),
            want.to_bits(),
            "{}_ilp{ilp} thread {g}, iters {iters}: twin {}, reference {want}",
            op.name(),
            f32::from_bits(got.parse().unwrap())
        );
        controls += 1;
    }
    assert_eq!(
        controls,
        FMA_CONTROLS.len() * 10,
        "5 threads x 2 iteration counts per control"
    );
}

/// The numbers after each label of a `mma_ilp` or `mma_op` line, by label.
fn fields<'a>(line: &'a str, labels: &[&str]) -> Vec<Vec<&'a str>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    labels
        .iter()
        .map(|label| {
            let start = words
                .iter()
                .position(|w| w == label)
                .unwrap_or_else(|| panic!("no `{label}` in `{line}`"))
                + 1;
            words[start..]
                .iter()
                .take_while(|w| w.parse::<u32>().is_ok())
                .copied()
                .collect()
        })
        .collect()
}

fn numbers(words: &[&str]) -> Vec<u32> {
    words.iter().map(|w| w.parse().unwrap()).collect()
}

#[test]
#[cfg_attr(
    not(lab_cxx),
    ignore = "needs a C++20 compiler: set CXX or put c++ on PATH"
)]
fn the_twins_mma_kernels_match_the_fragment_model_bit_for_bit() {
    let (passed, out) = on_cpu();
    assert!(*passed, "the twin on the CPU failed a check");
    // Every mma line, at every iteration count the C++ side runs: each thread g writes what the
    // model gives lane g % 32 (every warp holds the same fragments).
    let mut compared = 0;
    for line in out.lines().filter(|l| l.starts_with("mma_ilp ")) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (ilp, iters): (u32, i32) = (w[1].parse().unwrap(), w[2].parse().unwrap());
        let f = fields(line, &["a", "b", "out"]);
        let (a, b, got) = (numbers(&f[0]), numbers(&f[1]), numbers(&f[2]));
        assert_eq!((a.len(), b.len(), got.len()), (128, 64, 128), "{line}");
        let want = mma_bf16_ilp_outputs(&a, &b, ilp, iters)
            .unwrap_or_else(|why| panic!("ilp {ilp} iters {iters}: the model refuses ({why:?})"));
        for (g, &bits) in got.iter().enumerate() {
            assert_eq!(
                bits,
                want[g % 32].to_bits(),
                "mma_bf16_ilp{ilp}, iters {iters}, thread {g}: twin {}, model {}",
                f32::from_bits(bits),
                want[g % 32]
            );
        }
        compared += 1;
    }
    assert_eq!(
        compared,
        MMA_ILP.len() * 6,
        "6 iteration counts per mma line"
    );
    // The CPU model of one mma.sync the twin runs on, against the lab's.
    let line = out
        .lines()
        .find(|l| l.starts_with("mma_op "))
        .expect("an mma_op line");
    let f = fields(line, &["a", "b", "c", "d"]);
    let (a, b) = (numbers(&f[0]), numbers(&f[1]));
    let regs = |words: &[&str]| -> [[f32; 4]; 32] {
        let v = numbers(words);
        assert_eq!(v.len(), 128, "{line}");
        core::array::from_fn(|l| core::array::from_fn(|q| f32::from_bits(v[4 * l + q])))
    };
    let (c, d) = (regs(&f[2]), regs(&f[3]));
    let want = mma_m16n8k16(&a, &b, &c).expect("integer fragments");
    assert_eq!(d, want, "one m16n8k16 mma, lane-major");
    assert!(
        want.iter().flatten().any(|&x| x != 0.0),
        "a product that shows its layout"
    );
}

#[test]
#[cfg_attr(
    not(lab_cxx),
    ignore = "needs a C++20 compiler: set CXX or put c++ on PATH"
)]
fn the_sm90a_twins_gemms_compute_exact_products_on_the_model_of_hopper() {
    let (ok, out) = sm90a_on_cpu();
    let failed: Vec<&str> = out.lines().filter(|l| !l.starts_with("ok ")).collect();
    assert!(
        *ok && failed.is_empty(),
        "the sm_90a twin on the CPU:\n{}",
        failed.join("\n")
    );
    // The model catches what it is there to catch: a read before the mbarrier, a lost arrival.
    for case in ["tma_lands_at_its_barrier", "a_lost_arrival_is_a_deadlock"] {
        assert_eq!(passed(out, "model", case), 1, "model {case}");
    }
    for v in WGMMA_BF16 {
        assert_eq!(passed(out, v.entry, "tile"), 1, "{}", v.entry);
    }
    for l in SMEM_COPY.iter().filter(|l| l.path == SmemPath::Bulk) {
        assert_eq!(passed(out, l.entry, "copy"), 1, "{}", l.entry);
    }
    // Every GEMM line at every case its paths call for, as the Rust rules say the line takes them:
    // split-K where the line cuts K, a streamed tail where it streams one.
    for v in WGEMM {
        let cases: Vec<&str> = match v.mma {
            RingMma::Wgmma => ["edges", "inside", "odd_n", "many_tiles"]
                .into_iter()
                .chain(v.splits_k().then_some("split_k"))
                .chain(v.streams_tail().then_some("streamed_tail"))
                .collect(),
            RingMma::Sync => vec!["edges", "inside"],
        };
        for case in cases {
            assert_eq!(
                passed(out, v.entry, case),
                1,
                "{} ({}) {case}",
                v.label,
                v.entry
            );
        }
    }
}
