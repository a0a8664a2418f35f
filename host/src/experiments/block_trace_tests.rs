use super::*;

/// The words of blocks given as (start ns, end ns, cycles per ns x 1000 = MHz, SM, warps done).
fn words(blocks: &[(u64, u64, u64, u32, u64)]) -> Vec<u64> {
    let mut w = Vec::new();
    for &(start, end, mhz, sm, done) in blocks {
        let start_cycles = 1_000_000 + start * mhz / 1000;
        let end_cycles = start_cycles + (end - start) * mhz / 1000;
        w.extend([start, end, start_cycles, end_cycles, u64::from(sm), done]);
    }
    w
}

fn basis(sms: u32, warps: u64) -> TraceBasis {
    TraceBasis {
        sms,
        max_warps_per_sm: 64,
        warps,
        gflops: 0.0,
        peak_flops_per_sm_clock: None,
    }
}

#[test]
fn two_blocks_overlapping_on_one_sm_hold_both_their_warps_while_they_overlap() {
    // 8-warp blocks on SM 0: one over 0-100 ns, one over 50-150 ns. Warp-ns held: 8x100 + 8x100;
    // the SM's span 150 ns: 1600 / (150 x 64) = 1/6 of its warps.
    let w = words(&[(0, 100, 1800, 0, 8), (50, 150, 1800, 0, 8)]);
    let f = figures(&w, 2, basis(1, 8)).unwrap();
    assert!((f.achieved_occupancy - 1600.0 / (150.0 * 64.0)).abs() < 1e-12);
    // One SM: the whole kernel is the same figure.
    assert!((f.kernel_occupancy - f.achieved_occupancy).abs() < 1e-12);
    assert_eq!((f.blocks, f.sms_used, f.span_ns), (2, 1, 150));
    assert_eq!(
        (f.clock.median, f.clock.min, f.clock.max),
        (1800.0, 1800.0, 1800.0)
    );
}

#[test]
fn a_tail_wave_counts_against_the_whole_kernel_not_the_sms_it_ran_on() {
    // Four SMs; wave one: a 32-warp block on each over 0-1000 ns; the tail: one more on SMs 0
    // and 1 over 1000-1500 ns.
    let mut blocks: Vec<_> = (0..4).map(|sm| (0, 1000, 1500, sm, 32)).collect();
    blocks.extend([(1000, 1500, 1500, 0, 32), (1000, 1500, 1500, 1, 32)]);
    let (achieved, whole) =
        achieved_occupancy(&records(&words(&blocks), 6, 32, 4).unwrap(), 32, 4, 64).unwrap();
    // Each SM holds half its warps while it is active: SMs 0, 1 over 1500 ns, 2, 3 over 1000.
    assert!((achieved - 0.5).abs() < 1e-12, "{achieved}");
    // Warp-ns 32 x (4 x 1000 + 2 x 500) over 4 SMs x 64 warps x 1500 ns.
    let expected = 32.0 * 5000.0 / (4.0 * 64.0 * 1500.0);
    assert!((whole - expected).abs() < 1e-12, "{whole}");
    assert!(whole < achieved);
}

#[test]
fn the_span_weighting_favours_the_sms_active_longest() {
    // SM 0: one 16-warp block over 0-300 ns (1/4 of its warps); SM 1: two 16-warp blocks at
    // once over 0-100 ns (1/2). Weighted by spans: (300 x 1/4 + 100 x 1/2) / 400.
    let w = words(&[
        (0, 300, 1000, 0, 16),
        (0, 100, 1000, 1, 16),
        (0, 100, 1000, 1, 16),
    ]);
    let (achieved, _) = achieved_occupancy(&records(&w, 3, 16, 2).unwrap(), 16, 2, 64).unwrap();
    assert!(
        (achieved - (75.0 + 50.0) / 400.0).abs() < 1e-12,
        "{achieved}"
    );
}

#[test]
fn the_clock_is_the_median_block_with_the_extremes_beside_it() {
    let w = words(&[
        (0, 1000, 1700, 0, 4),
        (0, 1000, 1980, 1, 4),
        (0, 1000, 1900, 2, 4),
        (0, 1000, 1800, 3, 4),
    ]);
    let mut b = basis(4, 4);
    // 1000 GFLOP/s on 4 SMs at the median 1850 MHz: 135.1 FLOP/cycle/SM, of a 270.3 peak half.
    b.gflops = 1000.0;
    let per = 1000.0 * 1e3 / (4.0 * 1850.0);
    b.peak_flops_per_sm_clock = Some(2.0 * per);
    let f = figures(&w, 4, b).unwrap();
    assert_eq!(
        (f.clock.median, f.clock.min, f.clock.max),
        (1850.0, 1700.0, 1980.0)
    );
    assert!((f.flop_per_cycle_per_sm.unwrap() - per).abs() < 1e-9);
    assert!((f.of_peak_at_clock.unwrap() - 0.5).abs() < 1e-12);
    // A block shorter than the timer's resolution has no clock of its own.
    let with_instant = [w.clone(), words(&[(5, 5, 100, 0, 4)])].concat();
    assert_eq!(
        clock_mhz(&records(&with_instant, 5, 4, 4).unwrap())
            .unwrap()
            .min,
        1700.0
    );
}

#[test]
fn a_block_missing_a_warp_fails_the_trace() {
    let w = words(&[(0, 100, 1800, 0, 8), (0, 100, 1800, 1, 7)]);
    assert_eq!(
        figures(&w, 2, basis(2, 8)),
        Err(TraceError::WarpsDone {
            block: 1,
            done: 7,
            warps: 8
        })
    );
    // A block that never ran leaves its zeroed words: no warp done.
    let mut zeroed = words(&[(0, 100, 1800, 0, 8)]);
    zeroed.extend([0; WORDS_PER_BLOCK]);
    let err = figures(&zeroed, 2, basis(2, 8)).unwrap_err();
    assert!(err.to_string().contains("block 1: 0 warps"), "{err}");
}

#[test]
fn an_end_before_its_start_fails_the_trace() {
    let mut w = words(&[(0, 100, 1800, 0, 8), (200, 300, 1800, 0, 8)]);
    // Block 1's end stamp 150 ns, before its start at 200.
    w[WORDS_PER_BLOCK + END_NS_WORD] = 150;
    let err = figures(&w, 2, basis(1, 8)).unwrap_err();
    assert_eq!(
        err,
        TraceError::EndBeforeStart {
            block: 1,
            start: 200,
            end: 150,
            unit: "ns"
        }
    );
    // The cycles likewise.
    let mut w = words(&[(0, 100, 1800, 0, 8)]);
    w[END_CYCLES_WORD] = 0;
    assert!(matches!(
        figures(&w, 1, basis(1, 8)),
        Err(TraceError::EndBeforeStart { unit: "cycles", .. })
    ));
}

#[test]
fn a_grid_the_trace_cannot_hold_is_refused_before_anything_is_read() {
    assert_eq!(check_grid(TRACE_BLOCKS), Ok(()));
    let err = check_grid(TRACE_BLOCKS + 1).unwrap_err();
    assert!(err.to_string().contains("more than the trace's"), "{err}");
    assert_eq!(
        figures(&[], TRACE_BLOCKS + 1, basis(1, 1)),
        Err(TraceError::GridTooLarge {
            blocks: TRACE_BLOCKS + 1
        })
    );
}

#[test]
fn an_sm_the_device_lacks_or_too_few_words_fail_the_trace() {
    let w = words(&[(0, 100, 1800, 5, 8)]);
    assert!(matches!(
        figures(&w, 1, basis(2, 8)),
        Err(TraceError::NoSuchSm { sm: 5, .. })
    ));
    assert!(matches!(
        figures(&w, 2, basis(8, 8)),
        Err(TraceError::Words { .. })
    ));
    // Records not read through `records` are held to the device's SMs too.
    let unchecked = BlockRecord::from_words(&[0, 100, 0, 180, 5, 8]);
    assert!(matches!(
        achieved_occupancy(&[unchecked], 8, 2, 64),
        Err(TraceError::NoSuchSm {
            block: 0,
            sm: 5,
            sms: 2
        })
    ));
    // Every block instantaneous: no span to hold warps over, no clock.
    let w = words(&[(7, 7, 1800, 0, 8)]);
    assert_eq!(figures(&w, 1, basis(1, 8)), Err(TraceError::NoSpan));
}

#[test]
fn the_traced_entry_is_the_entry_and_the_suffix() {
    assert_eq!(traced_entry("sgemm_001"), "sgemm_001_traced");
}

#[test]
fn the_per_clock_peak_is_the_spec_peak_over_sms_and_clock() {
    // H200's FP32: 132 SMs x 256 FLOPs x 1980 MHz.
    let peak = 132.0 * 256.0 * 1980.0 * 1e-3;
    assert_eq!(peak_per_sm_clock(peak, 132, 1_980_000), Some(256.0));
    assert_eq!(peak_per_sm_clock(0.0, 132, 1_980_000), None);
    assert_eq!(peak_per_sm_clock(peak, 0, 1_980_000), None);
}

#[test]
fn a_trace_round_trips_through_json() {
    let f = figures(&words(&[(0, 100, 1800, 0, 8)]), 1, basis(1, 8)).unwrap();
    for t in [BlockTrace::Traced(f), BlockTrace::Failed("why".into())] {
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<BlockTrace>(&json).unwrap(), t);
    }
}

use kernels_gpu::sections::block_trace::{END_CYCLES as END_CYCLES_WORD, END_NS as END_NS_WORD};

#[test]
fn a_traced_entry_that_needs_other_resources_is_named_so() {
    let timed = Footprint {
        regs: 128,
        static_smem: 8192,
        dyn_smem: 0,
        blocks_per_sm: 2,
    };
    assert_eq!(timed.differs(&timed), None);
    let traced = Footprint {
        regs: 130,
        blocks_per_sm: 1,
        ..timed
    };
    assert_eq!(
        timed.differs(&traced).as_deref(),
        Some("the traced entry differs: blocks/SM 1, the timed entry's 2")
    );
    assert_eq!(timed.traced_regs(&traced), Some(130));
    // A register more at the same blocks/SM and shared memory leaves the residency alone.
    let one_more = Footprint { regs: 129, ..timed };
    assert_eq!(timed.differs(&one_more), None);
    assert_eq!(timed.traced_regs(&one_more), Some(129));
    assert_eq!(timed.traced_regs(&timed), None);
}
