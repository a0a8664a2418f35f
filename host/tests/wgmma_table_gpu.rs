//! GPU-only run of experiment 6's second table (wgmma on sm_90a, against warpgroups per SM,
//! shape N and groups in flight) through the library: every element of every checked tile
//! bit-exact, every line at 1 warpgroup per SM, the table and its verdict printed (a timing
//! never decides a test).
//!
//! Ignored by default; on an H100/H200 (compute capability 9.0):
//! `cargo test --release -p host --test wgmma_table_gpu -- --ignored --nocapture`.
//! On another GPU the table must say "needs sm_90a" and run nothing.

mod support;

use host::cuda::Gpu;
use host::experiments::contract::Report;
use host::experiments::mma;
use host::table::{render, Format};
use kernels_gpu::variants::WGMMA_BF16;

#[test]
#[ignore = "needs a CUDA GPU (sm_90a for rows): cargo test --release -p host --test wgmma_table_gpu -- --ignored"]
fn the_wgmma_table_runs_every_line_verified_and_judges_one_warpgroup() {
    let gpu = Gpu::open(0).unwrap_or_else(|e| panic!("needs a CUDA GPU: {e}"));
    let ctx = support::fixed_context(&gpu, 5, 5);
    let r = support::run_verified::<mma::Spec>(
        &gpu,
        &ctx,
        &[
            "mma",
            "--ilp",
            "4",
            "--warps-per-sm",
            "8",
            "--warpgroups-per-sm",
            "1,2,3,4,8",
        ],
    );
    let t = r
        .wgmma
        .as_ref()
        .expect("the wgmma table runs unless --no-wgmma");
    if gpu.info().compute_capability != (9, 0) {
        let why = t.gaps.not_run.as_deref().unwrap_or_default();
        assert!(
            why.starts_with("needs sm_90a") && t.rows.is_empty(),
            "{why}"
        );
        return;
    }
    assert_eq!(t.gaps.not_run, None);
    for v in WGMMA_BF16 {
        assert!(
            t.rows
                .iter()
                .any(|row| row.entry == v.entry && row.warpgroups_per_sm == 1),
            "{} not run at one warpgroup per SM; skipped {:?}",
            v.entry,
            t.gaps.skipped
        );
    }
    let meta_words = "5 launches x 5 samples";
    println!(
        "{}",
        render(&mma::wgmma::table(t, meta_words), Format::Markdown)
    );
    for v in mma::Spec::claims(Some(&r)) {
        println!("{}: {:?}\n  evidence: {}", v.key, v.holds, v.evidence);
    }
}
