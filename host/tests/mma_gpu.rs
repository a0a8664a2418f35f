//! GPU-only runs of experiment 6 (tensor-core throughput vs warps per SM and independent MMAs;
//! sm_80 or newer): a small sweep through the library with every thread of every point checked
//! bit for bit, each point at the residency asked for and the ceiling filled in; and `host mma`
//! end to end with the built-in mma module as the compared module too, writing its
//! results folder. No timing decides anything here.
//!
//! Ignored by default; on a GPU machine:
//! `cargo test --release -p host --test mma_gpu -- --ignored --nocapture`.
//! Without a driver (or on a GPU older than sm_80) they fail with the reason; they never skip.

mod support;
mod tensor_support;

use host::experiments::contract::RunContext;
use host::experiments::ilp_sweep::layout;
use host::experiments::mma;
use host::experiments::mma::reference::Fragments;
use support::{host_until, path, run_verified, scratch, stderr};

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test mma_gpu -- --ignored"]
fn a_small_mma_sweep_runs_with_every_thread_verified() {
    let gpu = tensor_support::sm80_gpu("experiment 6");
    let ctx = RunContext {
        seed: 11,
        ..support::fixed_context(&gpu, 2, 5)
    };
    // 5 warps/SM: one block of 160 threads, not a power of two; 32 warps/SM: one block of 1024
    // (ILP 8's registers allow no second block, so 48 and 64 would be skipped as not held).
    let r = run_verified::<mma::Spec>(
        &gpu,
        &ctx,
        &[
            "mma",
            "--ilp",
            "1,8",
            "--warps-per-sm",
            "1,5,8,32",
            "--target-cycles",
            "200000",
        ],
    );
    assert_eq!(r.not_run, None);
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    assert_eq!(r.rows.len(), 8);
    let info = gpu.info();
    let inputs = Fragments::draw(ctx.seed);
    for row in &r.rows {
        let want = layout(row.point.warps_per_sm, 32, 1024, info.max_blocks_per_sm).unwrap();
        assert_eq!(row.point.layout, want, "{}", row.point.entry);
        assert!(row.measured.check.passed, "{}", row.measured.check.what);
        assert!(
            row.measured.check.what.contains(&format!(
                "every one of {} threads",
                info.sm_count * row.point.warps_per_sm * 32
            )),
            "{}",
            row.measured.check.what
        );
        assert!(row.point.iters >= 1 && row.point.iters <= inputs.most_exact_iters(row.point.ilp));
        assert!(
            !row.measured
                .flags
                .iter()
                .any(|f| f.starts_with("driver gives")),
            "{:?}",
            row.measured.flags
        );
        assert!(row.tflops > 0.0 && row.fraction_of_ceiling <= 1.0);
        if matches!(info.compute_capability, (8, 0) | (9, 0)) {
            assert!(row.fraction_of_spec.is_some_and(|f| f > 0.0 && f < 1.0));
        }
        eprintln!(
            "{} at {} warps/SM: {:.1} TFLOP/s, {:.1}% of the ceiling, {} regs, {} rounds",
            row.point.entry,
            row.point.warps_per_sm,
            row.tflops,
            row.fraction_of_ceiling * 100.0,
            row.point.regs,
            row.point.iters
        );
    }
    let ceiling = r.ceiling_tflops().expect("a ceiling");
    assert!(r.rows.iter().any(|row| row.tflops == ceiling));
    eprintln!("mma.sync ceiling: {ceiling:.1} TFLOP/s");
}

#[test]
#[ignore = "needs a CUDA GPU (sm_80+): cargo test --release -p host --test mma_gpu -- --ignored"]
fn host_mma_writes_its_results_folder_with_a_compared_module() {
    let _gpu = tensor_support::sm80_gpu("experiment 6");
    let dir = scratch("mma");
    // The built-in mma PTX as a file: the compared side runs the same kernels.
    let module = dir.join("mma_ilp.ptx");
    std::fs::write(&module, host::kernel_source::builtin::MMA_ILP).unwrap();
    let out = dir.join("run");
    let o = host_until(
        &[
            "mma",
            "--ilp",
            "1,4",
            "--warps-per-sm",
            "4,64",
            "--compare",
            path(&module),
            "--compare-label",
            "again",
            "--noise",
            "2",
            "--format",
            "csv",
            "--out",
            path(&out),
        ],
        std::time::Duration::from_secs(120),
        std::process::Stdio::piped(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in [
        "results.json",
        "tables.md",
        "mma.csv",
        "mma.svg",
        "report.md",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let r = host::results_io::read_results(&out.join("results.json")).unwrap();
    let m = r.mma.expect("experiment 6 in results.json");
    assert_eq!(m.rows.len(), 4);
    for row in &m.rows {
        let c = row.measured.compare.as_ref().expect("the compared side");
        assert!(c.check.passed, "{}", c.check.what);
        assert_eq!(c.regs, row.point.regs, "the same PTX");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("Experiment 6"), "{report}");
    let tables = std::fs::read_to_string(out.join("tables.md")).unwrap();
    assert!(tables.contains("mma.sync ceiling on this GPU"), "{tables}");
    std::fs::remove_dir_all(&dir).unwrap();
}
