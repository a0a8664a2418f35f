//! Experiment 6 through every renderer without a GPU: the committed H200 run with a synthetic
//! sweep added (a compared module on some rows) is written as a results folder (results.json,
//! tables.md, mma.csv, mma.svg, report.md), read back, and merged with itself.

use super::row::tests::{row, saturating};
use super::row::with_ceiling;
use super::*;
use crate::results::Comparison;

fn run() -> crate::experiments::RunResults {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../results/h200/results.json");
    let mut r = crate::results_io::read_results(std::path::Path::new(path)).unwrap();
    let mut rows = Vec::new();
    for ilp in [1, 8] {
        for warps in [1, 8, 64] {
            let mut x = row(ilp, warps, saturating(ilp, warps, 32));
            if warps == 8 {
                x.measured.compare = Some(Comparison {
                    regs: x.regs + 4,
                    throughput: x.tflops / 1.01,
                    ratio: 1.01,
                    spill_stores: None,
                    spill_loads: None,
                    timing: x.timing.clone(),
                    check: x.measured.check.clone(),
                });
            }
            rows.push(x);
        }
    }
    r.mma = Some(Mma {
        input_range: 1,
        rows: with_ceiling(rows),
        skipped: vec!["mma_bf16_ilp8 at 37 warps/SM: synthetic".into()],
        not_run: None,
    });
    r
}

#[test]
fn the_sweep_reaches_every_renderer() {
    let r = run();
    let dir = std::env::temp_dir().join(format!("mma6-render-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::report::write_run(&dir, &r).unwrap();
    for f in ["mma.csv", "mma.svg", "report.md", "tables.md"] {
        assert!(dir.join(f).is_file(), "{f} not written");
    }
    let back = crate::results_io::read_results(&dir.join("results.json")).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.mma.unwrap().ceiling_tflops(), Some(650.0));
    let md = std::fs::read_to_string(dir.join("tables.md")).unwrap();
    assert!(
        md.contains("6. Tensor-core throughput vs warps per SM and independent MMAs"),
        "{md}"
    );
    assert!(md.contains("mma.sync ceiling on this GPU: 650.0 TFLOP/s"), "{md}");
    assert!(md.contains("Least occupancy reaching 90% and 95%"), "{md}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        report.contains("Experiment 6: tensor-core parallelism vs occupancy (mma.sync)"),
        "{report}"
    );
    assert!(report.contains("mma.svg"), "{report}");
    assert!(report.contains("95% of the mma.sync ceiling"), "{report}");
    // The CSV: a number per cell, its unit in the header.
    let mut csv = csv::Reader::from_path(dir.join("mma.csv")).unwrap();
    let headers = csv.headers().unwrap().clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name:?} in {headers:?}"))
    };
    let records: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 6);
    let tflops: Vec<f64> = records
        .iter()
        .map(|rec| rec[col("TFLOP/s")].parse().unwrap())
        .collect();
    assert_eq!(tflops, [20.3125, 162.5, 650.0, 162.5, 650.0, 650.0]);
    let ceiling: f64 = records[1][col("% of ceiling (%)")].parse().unwrap();
    assert!((ceiling - 25.0).abs() < 1e-9, "{ceiling}");
    let spec: f64 = records[2][col("% of BF16 spec (%)")].parse().unwrap();
    assert!((spec - 65.0).abs() < 1e-9, "{spec}");
    let svg = std::fs::read_to_string(dir.join("mma.svg")).unwrap();
    assert!(svg.contains("mma.sync ceiling 650") && svg.contains("dense BF16 spec 1000"));
    let merged = dir.join("merged");
    crate::report::merge::merge(&[dir.clone(), dir.clone()], &merged).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
