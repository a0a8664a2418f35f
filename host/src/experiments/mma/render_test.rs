//! `mma` through every renderer without a GPU: the committed H200 run with a synthetic
//! sweep added (a compared module on some rows) is written as a results folder (results.json,
//! tables.md, mma.csv, mma.svg, report.md), read back, and merged with itself.

use super::row::tests::{row, saturating};
use super::row::with_ceiling;
use super::wgmma::tests::{row as wgmma_row, table_of};
use super::*;
use crate::experiments::ilp_sweep::tests::grid;
use crate::experiments::render_scratch_test::{merged_with_itself, written};
use crate::results::Comparison;

fn run() -> crate::experiments::RunResults {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/h200");
    let mut r = crate::results_io::read_run(std::path::Path::new(dir)).unwrap();
    let rows = grid(&[1, 8], &[1, 8, 64], |ilp, warps| {
        let mut x = row(ilp, warps, saturating(ilp, warps, 32));
        if warps == 8 {
            x.measured.compare = Some(Comparison {
                regs: x.point.regs + 4,
                throughput: x.tflops / 1.01,
                ratio: 1.01,
                spill_stores: None,
                spill_loads: None,
                timing: x.timing.clone(),
                check: x.measured.check.clone(),
            });
        }
        x
    });
    r.mma = Some(Mma {
        input_range: 1,
        rows: with_ceiling(rows),
        skipped: vec!["mma_bf16_ilp8 at 37 warps/SM: synthetic".into()],
        not_run: None,
        wgmma: Some(table_of(vec![
            wgmma_row(256, 2, 1, 0.86),
            wgmma_row(256, 2, 2, 0.93),
        ])),
    });
    r
}

#[test]
fn the_sweep_reaches_every_renderer() {
    let r = run();
    let dir = written("mma6-render", &r);
    let read =
        |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let back = crate::results_io::read_results(&dir.join("results.json")).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.mma.unwrap().ceiling_tflops(), Some(650.0));
    for (file, says) in [
        (
            "tables.md",
            "6. Tensor-core throughput vs warps per SM and independent MMAs",
        ),
        ("tables.md", "mma.sync ceiling on this GPU: 650.0 TFLOP/s"),
        ("tables.md", "Least occupancy reaching 90% and 95%"),
        (
            "report.md",
            "Experiment 6: tensor-core parallelism vs occupancy (mma.sync)",
        ),
        ("report.md", "(mma.svg)"),
        ("report.md", "95% of the mma.sync ceiling"),
        ("mma.svg", "mma.sync ceiling 650"),
        ("mma.svg", "dense BF16 spec 1000"),
        (
            "tables.md",
            "6. wgmma (sm_90a) throughput vs warpgroups per SM",
        ),
        (
            "tables.md",
            "one warpgroup per SM (6.25% occupancy) reaches 860.0 TFLOP/s",
        ),
        (
            "report.md",
            "one warpgroup per SM (6.25% occupancy) drives the tensor cores",
        ),
        ("mma_wgmma.csv", "wgmma_bf16_n256_g2,256,2,2,"),
    ] {
        let text = read(file);
        assert!(text.contains(says), "{file} does not say {says:?}:\n{text}");
    }
    // The CSV: a number per cell, its unit in the header.
    let mut csv = csv::Reader::from_path(dir.join("mma.csv")).unwrap();
    let headers = csv.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 6);
    let number = |row: usize, name: &str| -> f64 {
        let col = headers.iter().position(|h| h == name);
        let col = col.unwrap_or_else(|| panic!("no column {name:?} in {headers:?}"));
        records[row][col].parse().unwrap()
    };
    let tflops: Vec<f64> = (0..6).map(|i| number(i, "TFLOP/s")).collect();
    assert_eq!(tflops, [20.3125, 162.5, 650.0, 162.5, 650.0, 650.0]);
    assert_eq!(number(1, "% of ceiling (%)"), 25.0);
    assert_eq!(number(2, "% of BF16 spec (%)"), 65.0);
    assert!((number(1, "peer TFLOP/s") - 162.5 / 1.01).abs() < 1e-6);
    merged_with_itself(&dir);
}
