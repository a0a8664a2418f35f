//! `inflight` and `ilp` through every renderer without a GPU: the committed H200 run with
//! synthetic sweep rows added is written as a results folder (results.json, tables.md, CSVs,
//! report.md with the plots), read back, and merged with itself.

use super::model::LittlesLaw;
use super::row::tests::row;
use super::*;
use crate::experiments::ilp;
use crate::experiments::ilp::row::tests::{row as ilp_row, saturating};
use crate::experiments::ilp_sweep::tests::grid;
use crate::experiments::render_scratch_test::{merged_with_itself, written};

fn run() -> crate::experiments::RunResults {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/h200");
    let mut r = crate::results_io::read_run(std::path::Path::new(dir)).unwrap();
    let model = LittlesLaw {
        sms: 132,
        latency_ns: 600.0,
        peak_gbps: 4000.0,
    };
    let rows = grid(
        &[(32, 1), (256, 1), (1024, 2)],
        &[4, 64, 256],
        |(t, b), bytes| {
            let mut x = row(t, b, bytes, 0.3 + f64::from(bytes) / 400.0);
            x.predicted_gbps = model.predicted_gbps(x.bytes_in_flight_per_sm as f64);
            x
        },
    );
    let mut run = row::tests::synthetic(rows, model);
    run.skipped = vec!["memcpy_t1024_l32_w4 at 2 blocks/SM: synthetic".into()];
    // A loaded curve and a size sweep, so their notes, verdict and plot render too.
    let at = loaded::tests::point;
    run.loaded = loaded::LoadedLatency::new(vec![at(0.0, 600.0), at(3000.0, 1400.0)]);
    run.loaded_predictions =
        loaded::predictions(&run.loaded, &run.model, &run.rows, &row::HEADLINE_FRACTIONS);
    let size = |mib: u64, gbps: f64| sizes::SizeRow {
        bytes: mib << 20,
        gbps,
        timing: run.copy.timing.clone(),
        d2d_gbps: gbps * 1.05,
        d2d_timing: run.copy.timing.clone(),
        check: row::tests::passed(),
    };
    run.sizes = Some(sizes::SizeSweep {
        entry: "memcpy_t256_l64_w1".into(),
        blocks_per_sm: 1,
        l2_bytes: 50 << 20,
        rows: vec![size(16, 6000.0), size(256, 3900.0), size(1024, 3850.0)],
    });
    run.reads = Some(reads::ReadOnly {
        reference_gbps: run.copy.gbps,
        rows: vec![reads::ReadRow {
            compared_gbps: Some(3700.0),
            compared_check: Some(row::tests::passed()),
            ..reads::tests::read_row(16, 0.95, 0.85)
        }],
    });
    r.inflight = Some(run);
    let fma = grid(&[1, 4], &[1, 8, 64], |ilp, warps| {
        ilp_row(ilp, warps, saturating(ilp, warps, 32))
    });
    r.ilp = Some(ilp::Ilp {
        a: 1.0,
        b: 1.0,
        volkov: ilp::row::volkov_table(&fma, ilp::row::VOLKOV_FRACTION),
        rows: fma,
        skipped: vec![],
    });
    r
}

#[test]
fn the_sweeps_reach_every_renderer() {
    let r = run();
    let dir = written("h6-sweeps", &r);
    for f in [
        "inflight.csv",
        "ilp.csv",
        "inflight.svg",
        "inflight_bytes.svg",
        "inflight_model.svg",
        "inflight_latency.svg",
        "ilp.svg",
        "report.md",
    ] {
        assert!(dir.join(f).is_file(), "{f} not written");
    }
    let back = crate::results_io::read_results(&dir.join("results.json")).unwrap();
    assert_eq!(back, r);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    for (file, says) in [
        ("tables.md", "4. Bytes in flight vs occupancy"),
        ("tables.md", "Volkov's table"),
        ("report.md", "Why (experiment 4)"),
        ("report.md", "Read-only: Bytes in flight per SM for 90%"),
        ("tables.md", "Loaded latency (measured)"),
        ("tables.md", "Little's law with loaded latency"),
        ("tables.md", "Copy size sweep"),
        ("tables.md", "The L2 stops serving the copy by 256 MiB"),
        ("tables.md", "Effective latency by share of the copy"),
        (
            "tables.md",
            "Read-only vs copy: read_t256_l16_w4 x1 (64 KiB in flight/SM): read 3800 GB/s",
        ),
    ] {
        let text = read(file);
        assert!(text.contains(says), "{file} does not say {says:?}:\n{text}");
    }
    let report = read("report.md");
    assert!(report.contains("inflight_bytes.svg") || report.contains("inflight.svg"));
    merged_with_itself(&dir);
}
