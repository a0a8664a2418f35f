//! GPU-only: the pairs experiments 1 (`occupancy`), 3 (`regs`) and 8 (`held`) compare are timed
//! again at a size where both sides run whole waves, and every row records its launch's
//! schedule. Where the build found no CUDA driver, `cargo test` lists it as ignored; asked to run
//! anyway without a driver, it fails.

mod support;

use host::cuda::driver_present;
use host::experiments::gemm_figures::GemmFigures;
use host::experiments::whole_waves::WholeWave;
use host::results::GemmDims;

/// A small K keeps it quick; 2048² is within four times the area of the 3,168 tiles line C's
/// 8-against-6 blocks/SM pair needs.
const SIZE: &str = "2048x2048x512";
const DIMS: GemmDims = GemmDims {
    m: 2048,
    n: 2048,
    k: 512,
};

/// The timings at whole waves of `rows` (each row's default figures and those), each checked
/// whole at its size on `sms` SMs; their count.
fn timed_again<'a>(
    sms: u32,
    rows: impl Iterator<Item = (&'a GemmFigures, &'a [WholeWave])>,
) -> usize {
    let mut n = 0;
    for (default, whole) in rows {
        let s = default.schedule.expect("every row records its schedule");
        assert_eq!(s.sms, sms, "the device's SMs");
        for w in whole {
            let waves = w
                .figures
                .waves()
                .expect("a schedule at the whole-wave size");
            assert!(waves.whole(), "{:?}: {} waves", w.size, waves.waves());
            assert_ne!(w.size, DIMS, "{SIZE} is not whole for the pair");
            assert_eq!(w.size.k, DIMS.k);
            assert_eq!(w.figures.blocks_per_sm, default.blocks_per_sm);
            assert!(w.figures.gflops > 0.0);
            n += 1;
        }
    }
    n
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn regs_times_seed_001s_pair_again_at_whole_waves() {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot"
    );
    let r = support::quick_json_run("regs", &["--size", SIZE]);
    let rows = r.regs.clone().expect("experiment 3 ran");
    let n = timed_again(
        r.device.sm_count,
        rows.iter().map(|r| (&r.figures, &r.whole_waves[..])),
    );
    assert!(n >= 2, "seed 001's pair at least: {n}");
    for key in ["cap-helps-without-spills", "register-cliff"] {
        let v = r.verdicts().into_iter().find(|v| v.key == key).unwrap();
        assert!(v.rule.contains("whole waves"), "{key}: {}", v.rule);
    }
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn held_times_each_binarys_pair_again_at_whole_waves() {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot"
    );
    let r = support::quick_json_run("held", &["--variants", "C@128", "--size", SIZE]);
    let rows = r.held.clone().expect("experiment 8 ran");
    let n = timed_again(
        r.device.sm_count,
        rows.iter().map(|r| (&r.figures, &r.whole_waves[..])),
    );
    assert_eq!(n, 2, "C@128's two residencies");
    let v = r
        .verdicts()
        .into_iter()
        .find(|v| v.key == "occupancy-apart-from-code");
    let v = v.expect("the verdict");
    assert!(v.evidence.contains("whole waves"), "{}", v.evidence);
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn occupancy_times_the_peak_pair_again_at_whole_waves() {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot"
    );
    let args = ["--variants", "S,A1,D", "--no-cublas", "--size", SIZE];
    let r = support::quick_json_run("occupancy", &args);
    let rows = r.occupancy.clone().expect("experiment 1 ran").rows;
    let n = timed_again(
        r.device.sm_count,
        rows.iter().map(|r| (&r.figures, &r.whole_waves[..])),
    );
    assert!(
        n >= 2,
        "B and a line at the highest occupancy at least: {n}"
    );
    let v = r
        .verdicts()
        .into_iter()
        .find(|v| v.key == "peak-below-max-occupancy");
    let v = v.expect("the verdict");
    assert!(
        v.evidence.starts_with("B, named before the data"),
        "{}",
        v.evidence
    );
}
