//! The choice rule on made-up lines (no GPU): each branch of the heuristic, the exclusions, the
//! ties, the short list per kind, and the short timing's pick.

use super::*;
use crate::occupancy::Arch;

const SMS: u32 = 132;

/// A grid line of `kind` with a `tile`, 256 threads, 64 registers and `smem` bytes of dynamic
/// shared memory (which sets its blocks/SM on sm_90).
fn line(label: &'static str, kind: LineKind, tile: (u32, u32), smem: u32) -> Candidate {
    Candidate {
        label,
        kind,
        tile,
        persistent: false,
        k_splits: 1,
        streamed: None,
        resources: KernelResources {
            threads: 256,
            regs_per_thread: 64,
            static_smem: 0,
            dyn_smem: smem,
        },
        refusal: None,
    }
}

/// A persistent TMA-ring line of `tile`, its last wave `streamed` or dealt whole.
fn ring_line(label: &'static str, tile: (u32, u32), streamed: Option<StreamTail>) -> Candidate {
    Candidate {
        persistent: true,
        streamed,
        ..line(label, LineKind::Ring, tile, BIG_SMEM)
    }
}

/// Four mma.sync lines of 128x128, 64x64, 256x128 and 64x32 tiles at one block per SM.
fn four_mma_tiles() -> [Candidate; 4] {
    [
        line("m1", LineKind::MmaSync, (128, 128), BIG_SMEM),
        line("m2", LineKind::MmaSync, (64, 64), BIG_SMEM),
        line("m3", LineKind::MmaSync, (256, 128), BIG_SMEM),
        line("m4", LineKind::MmaSync, (64, 32), BIG_SMEM),
    ]
}

fn list(dims: GemmDims, c: &[Candidate]) -> ShortList {
    short_list(dims, c, &Arch::Sm90.limits(), SMS)
}

fn labels(l: &ShortList) -> Vec<&str> {
    l.kept.iter().map(|a| a.label).collect()
}

const BIG_SMEM: u32 = 200 * 1024;

#[test]
fn under_one_wave_smaller_tiles_rank_first() {
    // 16x4096: 32 tiles of 128x128, 64 of 64x64, both under a wave of 132 SMs.
    let dims = GemmDims {
        m: 16,
        n: 4096,
        k: 4096,
    };
    let c = [
        line("big", LineKind::Tuned, (128, 128), BIG_SMEM),
        line("small", LineKind::Tuned, (64, 64), BIG_SMEM),
    ];
    let l = list(dims, &c);
    assert_eq!(l.branch, Branch::UnderOneWave);
    assert_eq!(labels(&l), ["small", "big"]);
    let small = &l.kept[0];
    assert_eq!((small.tiles, small.waves.slots), (64, 132));
    // 16 x 4096 over 132 SMs x one 64x64 tile each.
    let want = 16.0 * 4096.0 / (132.0 * 64.0 * 64.0);
    assert!((small.sm_efficiency - want).abs() < 1e-12);
    assert!(l.words().starts_with("under one wave"), "{}", l.words());
}

#[test]
fn whole_waves_at_one_block_per_sm() {
    // 132 tiles of 128x128 at one block/SM: one whole wave, every SM busy on a full tile.
    let dims = GemmDims {
        m: 128 * 12,
        n: 128 * 11,
        k: 512,
    };
    let l = list(dims, &[line("one", LineKind::Tuned, (128, 128), BIG_SMEM)]);
    assert_eq!(l.branch, Branch::WholeWaves);
    let a = &l.kept[0];
    assert_eq!((a.tiles, a.blocks_per_sm), (132, 1));
    assert!(a.waves.whole() && (a.sm_efficiency - 1.0).abs() < 1e-12);
}

#[test]
fn a_partial_wave_and_more_blocks_per_sm() {
    // 4096²: 1024 tiles of 128x128; at 2 blocks/SM (100 KB each) 3.88 waves.
    let dims = GemmDims::square(4096);
    let l = list(
        dims,
        &[line("two", LineKind::Tuned, (128, 128), 100 * 1024)],
    );
    assert_eq!(l.branch, Branch::PartialWave);
    let a = &l.kept[0];
    assert_eq!((a.tiles, a.blocks_per_sm, a.waves.slots), (1024, 2, 264));
    assert!(!a.waves.whole());
}

#[test]
fn a_shape_no_line_can_run_is_a_miss_with_every_reason() {
    let mut refused = line("W", LineKind::Ring, (128, 256), BIG_SMEM);
    refused.refusal = Some("needs K and N to be multiples of 8".into());
    let mut too_big = line("X", LineKind::Tuned, (64, 64), 0);
    too_big.resources.threads = 4096;
    let l = list(
        GemmDims {
            m: 7,
            n: 9000,
            k: 13,
        },
        &[refused, too_big],
    );
    assert_eq!(l.branch, Branch::NoLine);
    assert!(l.kept.is_empty());
    assert_eq!(l.excluded.len(), 2);
    let c = decide(&l, &[]);
    assert_eq!(c.label, None);
    assert!(c.why.contains("W: needs K and N"), "{}", c.why);
    assert!(c.why.contains("X: "), "{}", c.why);
}

#[test]
fn ties_go_to_intensity_then_blocks_then_table_order() {
    let dims = GemmDims::square(4096);
    // Equal SM efficiency (each tile divides 4096, the busiest SM computes the same area);
    // 128x256 and 256x128 reuse alike, 64x512 less.
    let c = [
        line("thin", LineKind::Tuned, (64, 512), BIG_SMEM),
        line("first", LineKind::Tuned, (128, 256), BIG_SMEM),
        line("second", LineKind::Tuned, (256, 128), BIG_SMEM),
    ];
    let l = list(dims, &c);
    let eff: Vec<f64> = l.kept.iter().map(|a| a.sm_efficiency).collect();
    assert!(eff.iter().all(|e| (e - eff[0]).abs() < 1e-12), "{eff:?}");
    assert_eq!(
        labels(&l),
        ["first", "second", "thin"],
        "table order among equals"
    );
    // More blocks/SM wins at equal efficiency and intensity.
    let c = [
        line("one", LineKind::Tuned, (128, 128), BIG_SMEM),
        line("two", LineKind::Tuned, (128, 128), 100 * 1024),
    ];
    assert_eq!(labels(&list(dims, &c)), ["two", "one"]);
}

#[test]
fn a_line_that_cuts_k_counts_its_units() {
    // 16x4096x4096: 32 tiles of 128x128 under one wave; K cut in 4 gives 128 units of a quarter
    // tile each, so every busy SM does a quarter of the work: four times the SM efficiency.
    let dims = GemmDims {
        m: 16,
        n: 4096,
        k: 4096,
    };
    let ring = |label, k_splits| Candidate {
        k_splits,
        ..ring_line(label, (128, 128), None)
    };
    let limits = Arch::Sm90.limits();
    let whole = assess(dims, &ring("whole", 1), &limits, SMS).unwrap();
    let cut = assess(dims, &ring("cut", 4), &limits, SMS).unwrap();
    assert_eq!((whole.waves.tiles, whole.waves.slots), (32, 32));
    assert_eq!(
        (cut.tiles, cut.waves.tiles, cut.waves.slots),
        (32, 128, 128)
    );
    assert!((cut.sm_efficiency / whole.sm_efficiency - 4.0).abs() < 1e-9);
    assert!(
        cut.words().contains("32 tiles, K in 4 units"),
        "{}",
        cut.words()
    );
    assert!(!whole.words().contains("K in"));
    // Ranked by it: the cut line first.
    assert_eq!(
        labels(&list(dims, &[ring("whole", 1), ring("cut", 4)]))[0],
        "cut"
    );
}

#[test]
fn a_line_that_streams_its_last_wave_counts_its_busiest_run() {
    // 8192^3 in 128 x 256 tiles: 2048 tiles, 15.5 a block dealt whole (the last round 52%
    // full); streamed, the busiest block runs 15 tiles and 66 of 128 slices.
    let dims = GemmDims {
        m: 8192,
        n: 8192,
        k: 8192,
    };
    let w1 = (kernels_gpu::variants::WGEMM.iter())
        .find(|v| v.label == "W1")
        .expect("W1 is in the table");
    let ring = |label, streamed| ring_line(label, (128, 256), streamed);
    let tail = w1.stream_tail(8192, 8192, 8192, SMS);
    assert!(tail.is_some());
    let limits = Arch::Sm90.limits();
    let whole = assess(dims, &ring("whole", None), &limits, SMS).unwrap();
    let streamed = assess(dims, &ring("streamed", tail), &limits, SMS).unwrap();
    assert!((whole.sm_efficiency - 2048.0 / (132.0 * 16.0)).abs() < 1e-9);
    let busiest = 15.0 * 128.0 + 66.0;
    let expected = 2048.0 * 128.0 / (132.0 * busiest);
    assert!((streamed.sm_efficiency - expected).abs() < 1e-9);
    assert!((streamed.waves.tail_efficiency() - expected).abs() < 1e-9);
    assert!(streamed.words().contains("2048 tiles, last wave streamed"));
    assert!(!whole.words().contains("streamed"));
    assert_eq!(
        labels(&list(dims, &[ring("whole", None), ring("streamed", tail)]))[0],
        "streamed"
    );
}

#[test]
fn the_ring_mma_sync_lines_do_not_take_the_wgmma_lines_places() {
    // The same tile in both MMAs ranks alike by the table; as kinds of their own, the wgmma
    // kind keeps its best and the mma.sync ring lines are timed beside them. At 1536x2048,
    // 384 tiles of 128x64 fill their last wave to 97.0%, 96 of 128x256 keep 96 of 132 SMs
    // busy (72.7%), beyond EFFICIENCY_TIE.
    let dims = GemmDims {
        m: 1536,
        n: 2048,
        k: 1024,
    };
    let ring = |label, kind, tile| Candidate {
        kind,
        ..ring_line(label, tile, None)
    };
    let c = [
        ring("w1", LineKind::Ring, (128, 256)),
        ring("w4", LineKind::Ring, (128, 64)),
        ring("mt1", LineKind::RingSync, (128, 256)),
        ring("mt4", LineKind::RingSync, (128, 64)),
    ];
    assert_eq!(labels(&list(dims, &c)), ["w4", "w1", "mt4", "mt1"]);
    // Under one kind they would share three places: with one more line of W4's tile, both
    // 128x256 lines would lose theirs.
    let one = [
        c[1].clone(),
        c[3].clone(),
        ring("w4b", LineKind::Ring, (128, 64)),
        c[0].clone(),
        c[2].clone(),
    ]
    .map(|x| Candidate {
        kind: LineKind::Ring,
        ..x
    });
    assert_eq!(labels(&list(dims, &one)), ["w4", "mt4", "w4b"]);
}

#[test]
fn the_cut_never_falls_inside_a_tie() {
    // 4096³, as the table's lines stood: a 128x64 line's streamed last wave reaches 100% and
    // ranks first; four lines of 128x256 (97.0%, beyond EFFICIENCY_TIE) tie on every ranked
    // figure behind it, as W1, W5 and W8 did. Table order would keep two of them and leave the
    // rest untimed, so all four are kept; a 128x128 line after them is not tied and stays off.
    let dims = GemmDims::square(4096);
    let tail = Some(StreamTail::of(2048, 64, SMS));
    let c = [
        ring_line("w1", (128, 256), None),
        ring_line("w4", (128, 64), tail),
        ring_line("w5", (128, 256), None),
        ring_line("w8", (128, 256), None),
        ring_line("w9", (128, 256), None),
        ring_line("w2", (128, 128), None),
    ];
    let l = list(dims, &c);
    assert_eq!(labels(&l), ["w4", "w1", "w5", "w8", "w9"]);
    // Without a tie at the cut the list stays at three.
    let l = list(
        dims,
        &[c[0].clone(), c[1].clone(), c[2].clone(), c[5].clone()],
    );
    assert_eq!(labels(&l), ["w4", "w1", "w5"]);
}

#[test]
fn each_kind_keeps_its_own_best_three() {
    // 1024³ at one block per SM: 256 tiles of 64x64 and 512 of 64x32 fill their last waves
    // alike (SM efficiency 97.0%), 64 of 128x128 leave SMs idle (48.5%), 32 of 256x128 more
    // (24.2%), beyond EFFICIENCY_TIE of the best: the three best are kept, the fourth is not.
    let dims = GemmDims::square(1024);
    let mut c = four_mma_tiles().to_vec();
    c.push(ring_line("r1", (128, 256), None));
    let l = list(dims, &c);
    assert_eq!(l.kept.len(), KEEP_PER_KIND + 1);
    assert_eq!(labels(&l), ["m2", "m4", "m1", "r1"]);
    let ring = l.kept.iter().find(|a| a.kind == LineKind::Ring).unwrap();
    // Persistent: one block per SM, 32 tiles over 32 blocks.
    assert_eq!(
        (ring.waves.tiles, ring.waves.slots, ring.blocks_per_sm),
        (32, 32, 1)
    );
}

#[test]
fn every_line_near_the_best_efficiency_is_timed() {
    // 4096³: the 64x32 tiles' last wave is the fullest (8192 tiles: SM efficiency 98.5%), the
    // other three tiles' 97.0%, within EFFICIENCY_TIE of it: all four are timed, where three
    // places alone would leave the 64x64 line off.
    let dims = GemmDims::square(4096);
    assert_eq!(
        labels(&list(dims, &four_mma_tiles())),
        ["m4", "m3", "m1", "m2"]
    );
    // 16384³ on 132 SMs: 8192 tiles of 128x256 leave eight in the last of 63 waves (98.5%);
    // lines of 128x128 with their last wave streamed reach 100% and rank first. The larger
    // tile, within the band, is timed beside them.
    let dims = GemmDims::square(16384);
    let tail = Some(StreamTail::of(16384, 256, SMS));
    let c = [
        ring_line("s1", (128, 128), tail),
        ring_line("s2", (128, 128), tail),
        ring_line("s3", (128, 128), tail),
        ring_line("big", (128, 256), None),
    ];
    let l = list(dims, &c);
    assert_eq!(labels(&l), ["s1", "s2", "s3", "big"]);
    assert!(l.kept[3].sm_efficiency < l.kept[0].sm_efficiency);
    // Beyond the band the fuller wave keeps its lead and the list its three: 64x4096 in 64
    // tiles of 64x64 fills 64 of 132 SMs (48.5%), in 32 of 64x128 32 SMs (24.2%), in 32 of
    // 128x128 32 SMs with half of each tile past M (12.1%), in 16 of 128x256 16 (6.1%).
    let d = GemmDims {
        m: 64,
        n: 4096,
        k: 4096,
    };
    let c = [
        ring_line("widest", (128, 256), None),
        ring_line("mid", (64, 128), None),
        ring_line("narrow", (64, 64), None),
        ring_line("wide", (128, 128), None),
    ];
    assert_eq!(labels(&list(d, &c)), ["narrow", "mid", "wide"]);
}

#[test]
fn the_short_timing_picks_the_fastest_line_that_passed() {
    let dims = GemmDims::square(4096);
    let c = [
        line("a", LineKind::Tuned, (128, 128), BIG_SMEM),
        line("b", LineKind::Tuned, (64, 64), BIG_SMEM),
    ];
    let l = list(dims, &c);
    let t = |label, gflops, passed| Trial {
        label,
        gflops,
        passed,
    };
    let pick = decide(&l, &[t("a", 900.0, false), t("b", 500.0, true)]);
    assert_eq!(pick.label.as_deref(), Some("b"), "a failed its check");
    assert!(
        pick.why.contains("a 900 GFLOP/s (check failed)"),
        "{}",
        pick.why
    );
    let pick = decide(&l, &[t("a", 900.0, true), t("b", 500.0, true)]);
    assert_eq!(pick.label.as_deref(), Some("a"));
    let none = decide(&l, &[t("a", 900.0, false)]);
    assert_eq!(none.label, None);
    assert!(none.why.contains("no short-listed line passed"));
}

#[test]
fn the_auto_note_names_the_line_or_says_none_ran() {
    let chose = Choice {
        label: Some("R3".into()),
        why: "whole waves".into(),
    };
    assert_eq!(
        auto_note(&chose),
        "--variants auto chose R3 (the line-choice rule, docs/design.md): whole waves."
    );
    let none = Choice {
        label: None,
        why: "no line can run the shape".into(),
    };
    assert!(auto_note(&none).contains("no line ran (no line can run the shape)"));
}

#[test]
fn lines_of_turns_are_ranked_among_themselves() {
    // 4096³: the 128x256 lines sharing tiles fill 97.0% and lead on reuse; a line of turns on
    // 128x128 tiles fills the same 97.0% at less reuse, and as one more wgmma line would stay off
    // (the shared lines take the three places and no tie reaches it). As a kind of its own it is
    // timed: what its turns hide, the table does not say.
    let dims = GemmDims::square(4096);
    let tail = Some(StreamTail::of(2048, 64, SMS));
    let turns = Candidate {
        kind: LineKind::RingTurns,
        ..ring_line("w9", (128, 128), None)
    };
    let c = [
        ring_line("w1", (128, 256), None),
        ring_line("w4", (128, 64), tail),
        ring_line("w5", (128, 256), None),
        turns.clone(),
    ];
    assert_eq!(labels(&list(dims, &c)), ["w4", "w1", "w5", "w9"]);
    let shared = Candidate {
        kind: LineKind::Ring,
        ..turns
    };
    assert_eq!(
        labels(&list(
            dims,
            &[c[0].clone(), c[1].clone(), c[2].clone(), shared]
        )),
        ["w4", "w1", "w5"]
    );
}

#[test]
fn the_tables_lines_of_turns_make_the_short_list_at_4096_cubed() {
    // The table's ring lines as the choice places them at 4096³ on 132 SMs (registers: what
    // ptxas compiles them within, their launch bound), each line of turns timed beside the
    // shared-tile lines.
    use kernels_gpu::sections::gemm_wgmma::launch_regs;
    use kernels_gpu::variants::WGEMM;
    let dims = GemmDims::square(4096);
    let c: Vec<Candidate> = (WGEMM.iter())
        .map(|v| timed::ring_candidate(v, dims, SMS, launch_regs(v.threads()), None))
        .collect();
    let l = list(dims, &c);
    let turns: Vec<&str> = (WGEMM.iter())
        .filter(|v| v.ping_pong())
        .map(|v| v.label)
        .collect();
    assert!(!turns.is_empty(), "the table has a line of turns");
    for label in turns {
        let kept = (l.kept.iter()).find(|a| a.label == label);
        assert_eq!(
            kept.map(|a| a.kind),
            Some(LineKind::RingTurns),
            "{label} in {:?}",
            labels(&l)
        );
    }
}
