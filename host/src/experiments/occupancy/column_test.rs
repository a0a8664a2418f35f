//! A column added to the `occupancy` experiment in one place (the `#[cfg(test)]` line in
//! `columns()`), seen by every renderer: the terminal table, Markdown, CSV, `tables.md`,
//! `report.md` (which repeats the table when there is no `tables.md` to link), and in the JSON as
//! the row it is read from.

use super::GemmRow;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::measured::Measured;
use crate::experiments::RunResults;
use crate::results::{Check, DeviceInfo, RunMeta};
use crate::results_io::{render_results, write_results};
use crate::table::{Column, Format, Kind, Value};

/// Accumulators per thread (TM x TN): a column no experiment declares outside this test.
pub const ACCUMULATORS: Column<GemmRow> = Column::new("Accumulators/thread", Kind::Count, |r| {
    Value::Int(u64::from(r.tm * r.tn))
});

fn run() -> RunResults {
    // One sample of 1 ms.
    let timing = crate::sampling::summarize(vec![1.0], None, None);
    let row = |variant: &str, tm: u32, tn: u32| GemmRow {
        variant: variant.into(),
        threads: 4096 / (tm * tn),
        tm,
        tn,
        figures: GemmFigures {
            schedule: None,
            block_trace: None,
            regs: 64,
            blocks_per_sm: 2,
            occupancy: 0.25,
            limiter: "registers".into(),
            timing: timing.clone(),
            gflops: 1000.0,
        },
        measured: Measured {
            check: Check {
                error: 0.0,
                what: "test".into(),
                ..Measured::passing().check
            },
            ..Measured::passing()
        },
        tile: None,
        vs_cublas: None,
        whole_waves: vec![],
    };
    let meta = RunMeta {
        date: "2026-11-30T00:00:00Z".into(),
        command: "test".into(),
        tool_version: "0".into(),
        toolchain: "test".into(),
        module: "rust (built-in)".into(),
        compare_module: None,
        compare_label: None,
        iters: 1,
        samples: 1,
        gemm_size: 4096,
        gemm_dims: None,
        regs_variant: None,
        copy_bytes: 1 << 30,
        noise_target: None,
    };
    let device = DeviceInfo {
        ordinal: 0,
        name: "test GPU".into(),
        compute_capability: (9, 0),
        sm_count: 132,
        sm_clock_khz: 1_980_000,
        mem_clock_khz: 2_619_000,
        mem_bus_width_bits: 5120,
        l2_bytes: 50 << 20,
        regs_per_sm: 65536,
        max_regs_per_block: 65536,
        smem_per_sm: 233_472,
        smem_per_block: 49_152,
        smem_per_block_optin: 232_448,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        warp_size: 32,
        total_mem_bytes: 80 << 30,
        driver_version: "CUDA 13.0".into(),
        peak_fp32_gflops: 66_908.0,
        peak_dram_gbps: 3352.0,
        max_threads_per_block: Some(1024),
        reserved_smem_per_block: Some(1024),
    };
    let mut r = RunResults::empty(meta, device);
    r.occupancy = Some(super::GemmRun {
        rows: vec![row("A", 4, 4), row("D", 16, 8)],
        cublas: None,
        faults: vec![],
        clock_energy: None,
        auto: None,
    });
    r
}

#[test]
fn a_column_declared_once_reaches_every_renderer() {
    let r = run();
    let terminal = render_results(&r, Format::Table);
    let markdown = render_results(&r, Format::Markdown);
    let csv = render_results(&r, Format::Csv);
    for (name, text) in [
        ("terminal", &terminal),
        ("markdown", &markdown),
        ("csv", &csv),
    ] {
        assert!(text.contains("Accumulators/thread"), "{name}:\n{text}");
    }
    // The cell is formatted from the column's kind: a count, 16 for A's 4x4 and 128 for D (the
    // CSV's last column is the row's flags, none here).
    assert!(csv.contains(",16,\n") && csv.contains(",128,\n"), "{csv}");
    let row_d = markdown
        .lines()
        .find(|l| l.starts_with("| D "))
        .expect("row D");
    let last = row_d
        .trim_end_matches('|')
        .rsplit('|')
        .next()
        .unwrap()
        .trim();
    assert_eq!(last, "128", "{row_d}");

    let dir = crate::regular_file::tests::scratch("column-test");
    write_results(&dir, &r).unwrap();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert!(read("tables.md").contains("Accumulators/thread"));
    assert!(read("occupancy.csv")
        .lines()
        .next()
        .unwrap()
        .ends_with(",Accumulators/thread,flags"));
    // report.md repeats the table when it is written without a tables.md to link.
    crate::report::write(&r, &dir.join("report")).unwrap();
    let report = std::fs::read_to_string(dir.join("report/report.md")).unwrap();
    assert!(report.contains("Accumulators/thread"), "{report}");
    // JSON stores the row the column reads (tm, tn), not the formatted cell.
    let json = render_results(&r, Format::Json);
    assert!(json.contains("\"tm\": 16") && !json.contains("Accumulators"));
    std::fs::remove_dir_all(&dir).unwrap();
}
