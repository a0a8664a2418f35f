//! GPU-only: the block trace of a GEMM row (issue 31) on one FP32 line (experiment 1), one
//! `mma.sync` line and one `wgmma` line (experiment 7): each row has a trace, not a failed one,
//! whose achieved occupancy lies in (0, theoretical + 1%] and whose in-kernel clock lies in
//! [500, 2500] MHz, with its FLOP/cycle/SM at that clock.
//!
//! Ignored by default; on a GPU machine (sm_90a for the wgmma line):
//! `cargo test --release -p host --test block_trace_gpu -- --ignored --nocapture`.
//! It fails, with the reason, without a driver or on a GPU older than sm_90a; it never skips.
//! No timing decides anything here (the figures are printed).

mod support;
mod tensor_support;

use host::experiments::block_trace::{BlockTrace, TraceFigures};
use host::experiments::contract::Report;
use host::experiments::gemm_figures::GemmFigures;
use host::experiments::{gemm_bf16, occupancy};
use kernels_gpu::variants::{RingMma, BF16_GEMM, WGEMM};

/// The row `what`'s trace, judged: traced, achieved occupancy in (0, theoretical + 1%], the
/// in-kernel clock in [500, 2500] MHz with its extremes around its median, FLOP/cycle/SM given.
fn judged<'f>(what: &str, f: &'f GemmFigures) -> &'f TraceFigures {
    let t = match &f.block_trace {
        Some(BlockTrace::Traced(t)) => t,
        other => panic!("{what}: no block trace: {other:?}"),
    };
    assert!(
        t.achieved_occupancy > 0.0 && t.achieved_occupancy <= f.occupancy + 0.01,
        "{what}: achieved {} against theoretical {}: {t:?}",
        t.achieved_occupancy,
        f.occupancy
    );
    assert!(
        t.kernel_occupancy > 0.0 && t.kernel_occupancy <= t.achieved_occupancy + 1e-9,
        "{what}: {t:?}"
    );
    assert!(
        (500.0..=2500.0).contains(&t.clock.median),
        "{what}: in-kernel clock {} MHz: {t:?}",
        t.clock.median
    );
    assert!(t.clock.min <= t.clock.median && t.clock.median <= t.clock.max);
    assert!(
        t.flop_per_cycle_per_sm.is_some_and(|x| x > 0.0),
        "{what}: {t:?}"
    );
    eprintln!(
        "{what}: achieved {:.1}% (whole kernel {:.1}%) of theoretical {:.1}%; {:.0} MHz \
         [{:.0}-{:.0}] in the kernel; {:.1} FLOP/cycle/SM ({} of peak at that clock); {} blocks \
         on {} SMs",
        t.achieved_occupancy * 100.0,
        t.kernel_occupancy * 100.0,
        f.occupancy * 100.0,
        t.clock.median,
        t.clock.min,
        t.clock.max,
        t.flop_per_cycle_per_sm.unwrap_or(f64::NAN),
        t.of_peak_at_clock
            .map_or("n/a".to_owned(), |p| format!("{:.1}%", p * 100.0)),
        t.blocks,
        t.sms_used
    );
    t
}

#[test]
#[ignore = "needs a CUDA GPU (sm_90a), cuBLAS and CUPTI: cargo test --release -p host --test block_trace_gpu -- --ignored"]
fn an_fp32_an_mma_sync_and_a_wgmma_row_each_carry_a_block_trace() {
    let gpu = tensor_support::sm80_gpu("the block trace's rows");
    host::cuda::hopper::runs_sm90a(gpu.info().compute_capability)
        .unwrap_or_else(|e| panic!("the block trace's wgmma row: {e}"));
    let ctx = support::fixed_context(&gpu, 3, 3);

    let cmd = ["occupancy", "--variants", "R4", "--size", "1024"];
    let sgemm = support::run_verified::<occupancy::Spec>(&gpu, &ctx, &cmd);
    assert_eq!(sgemm.rows.len(), 1, "{:?}", sgemm.rows);
    judged("FP32 R4 at 1024^3", &sgemm.rows[0].figures);

    let mma = BF16_GEMM[0].label;
    let wgmma = (WGEMM.iter())
        .find(|v| v.mma == RingMma::Wgmma)
        .expect("a wgmma line")
        .label;
    let labels = format!("{mma},{wgmma}");
    let cmd = ["gemm_bf16", "--variants", &labels, "--size", "4096"];
    let bf16 = support::run_verified::<gemm_bf16::Spec>(&gpu, &ctx, &cmd);
    assert!(bf16.not_run.is_empty(), "{:?}", bf16.not_run);
    for label in [mma, wgmma] {
        let row = (bf16.rows.iter())
            .find(|r| r.variant == label)
            .unwrap_or_else(|| panic!("{label} has no row"));
        judged(&format!("BF16 {label} at 4096^3"), &row.figures);
    }
    // The table shows the trace's columns.
    let meta = host::experiments::meta("test", &ctx.timing, &[], "test");
    let table = gemm_bf16::Spec::table(&bf16, &meta);
    let headers: Vec<&str> = table.columns.iter().map(|c| c.header.as_str()).collect();
    for h in ["Achieved occ", "In-kernel MHz", "FLOP/cycle/SM"] {
        assert!(headers.contains(&h), "{headers:?}");
    }
}
