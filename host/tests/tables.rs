//! Rendering a hand-made `RunResults` in every format, and its JSON round trip through a
//! results folder.

use host::experiments::bandwidth::{self, Bandwidth, CopyRow};
use host::experiments::contract::Report;
use host::experiments::gemm_figures::GemmFigures;
use host::experiments::measured::Measured;
use host::experiments::occupancy::{self, GemmRow, GemmRun};
use host::experiments::regs::{self, RegsRow};
use host::experiments::RunResults;
use host::results::{Check, Comparison, DeviceInfo, RunMeta, Timing};
use host::results_io::{device_table, read_results, render_results, write_results};
use host::table::{to_csv, Format, TableData, Value};

fn occupancy_table(rows: &GemmRun) -> TableData {
    occupancy::Spec::table(rows, &sample().meta)
}

fn bandwidth_table(b: &Bandwidth) -> TableData {
    bandwidth::Spec::table(b, &sample().meta)
}

fn regs_table(rows: &Vec<RegsRow>) -> TableData {
    regs::Spec::table(rows, &sample().meta)
}

fn timing(ms: f64) -> Timing {
    Timing {
        samples_ms: vec![ms, ms * 1.01, ms * 0.99],
        median_ms: ms,
        min_ms: ms * 0.99,
        max_ms: ms * 1.01,
        sm_clock_mhz_before: Some(1980),
        sm_clock_mhz_after: None,
        ..Timing::default()
    }
}

fn ok(error: f64, bound: f64) -> Check {
    Check {
        passed: true,
        error,
        bound,
        what: "checked, with a comma".into(),
        hashes: None,
    }
}

fn sample() -> RunResults {
    let device = DeviceInfo {
        ordinal: 0,
        name: "NVIDIA H200".into(),
        compute_capability: (9, 0),
        sm_count: 132,
        sm_clock_khz: 1_980_000,
        mem_clock_khz: 3_201_000,
        mem_bus_width_bits: 6144,
        l2_bytes: 60 << 20,
        regs_per_sm: 65536,
        max_regs_per_block: 65536,
        smem_per_sm: 233_472,
        smem_per_block: 49_152,
        smem_per_block_optin: 232_448,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        warp_size: 32,
        total_mem_bytes: 150_000_000_000,
        driver_version: "CUDA 12.8".into(),
        peak_fp32_gflops: 66_908.0,
        peak_dram_gbps: 4_916.7,
        max_threads_per_block: Some(1024),
        reserved_smem_per_block: Some(1024),
    };
    let gemm = |label: &str, tm, tn, regs, gflops: f64, flags: Vec<String>| GemmRow {
        variant: label.into(),
        threads: 4096 / (tm * tn),
        tm,
        tn,
        figures: GemmFigures {
            schedule: None,
            block_trace: None,
            regs,
            blocks_per_sm: 2,
            occupancy: 0.25,
            limiter: "registers".into(),
            timing: timing(3.2),
            gflops,
        },
        measured: Measured {
            check: ok(3.1e-7, 1e-4),
            flags,
            compare: None,
        },
        tile: None,
        vs_cublas: None,
        whole_waves: vec![],
    };
    let mut failed_c = gemm("C", 8, 8, 168, 99_999.0, vec!["above the FP32 peak".into()]);
    failed_c.measured.check.passed = false;
    failed_c.measured.check.error = 2e-2;
    let copy = CopyRow {
        variant: "T14f4".into(),
        threads: 32,
        loads: 14,
        width: 4,
        bytes_per_thread: 224,
        regs: 50,
        dyn_smem_bytes: 76_928,
        blocks_per_sm: 2,
        occupancy: 2.0 / 64.0,
        limiter: "shared memory".into(),
        timing: timing(0.9),
        gbps: 2380.5,
        fraction_of_reference: 0.61,
        measured: Measured {
            check: ok(0.0, 0.0),
            flags: vec![],
            compare: Some(Comparison {
                regs: 40,
                throughput: 2400.0,
                ratio: 2380.5 / 2400.0,
                spill_stores: None,
                spill_loads: None,
                timing: timing(0.89),
                check: ok(0.0, 0.0),
            }),
        },
    };
    let regs = |cap, unknown| RegsRow {
        cap,
        figures: GemmFigures {
            schedule: None,
            block_trace: None,
            regs: cap.min(154),
            blocks_per_sm: 3,
            occupancy: 0.1875,
            limiter: "registers".into(),
            timing: timing(40.0),
            gflops: 3400.0,
        },
        spill_stores: if cap < 96 { 4840 } else { 0 },
        spill_loads: if cap < 96 { 4652 } else { 0 },
        spills_unknown: unknown,
        stack_frame: 1672,
        measured: Measured {
            check: ok(1e-7, 1e-4),
            flags: vec![],
            compare: None,
        },
        whole_waves: vec![],
    };
    RunResults {
        schema_version: host::results::SCHEMA_VERSION,
        meta: RunMeta {
            date: "2026-05-20T12:00:00Z".into(),
            command: "host all --out results/x".into(),
            tool_version: "0.1.0".into(),
            toolchain: "rustc 1.97.0-nightly".into(),
            module: "rust (built-in)".into(),
            compare_module: None,
            compare_label: None,
            iters: 50,
            samples: 7,
            gemm_size: 4096,
            gemm_dims: None,
            regs_variant: None,
            copy_bytes: 1 << 30,
            noise_target: None,
        },
        device,
        occupancy: Some(GemmRun {
            rows: vec![gemm("S", 2, 2, 62, 1394.0, vec![]), failed_c],
            cublas: None,
            faults: vec![],
            clock_energy: None,
            auto: None,
        }),
        bandwidth: Some(Bandwidth {
            reference_gbps: 3900.0,
            reference_timing: timing(0.55),
            rows: vec![copy],
        }),
        regs: Some(vec![regs(32, false), regs(128, true)]),
        inflight: None,
        ilp: None,
        mma: None,
        gemm_bf16: None,
        held: None,
        shapes: None,
        missing: vec![],
        rules: Default::default(),
    }
}

#[test]
fn occupancy_table_has_the_blogs_columns_first() {
    let r = sample();
    let t = occupancy_table(r.occupancy.as_ref().unwrap());
    let (header, rows) = (t.header(), t.cells());
    assert_eq!(
        header[..6],
        [
            "Variant",
            "Threads/block",
            "Sub-tile TMxTN",
            "Regs/thread",
            "Theo. occ",
            "GFLOP/s"
        ]
    );
    assert_eq!(rows[0][..6], ["S", "1024", "2x2", "62", "25.0%", "1394"]);
    // A figure above the peak is flagged, and a failed check is marked.
    assert_eq!(rows[1][5], "99999 (!)");
    assert!(rows[1].iter().any(|c| c.starts_with("FAILED")));
    assert!(t.notes.iter().any(|n| n.contains("C: above the FP32 peak")));
    assert!(
        !header.iter().any(|h| h.starts_with("Other")),
        "no compare columns without --compare"
    );
}

#[test]
fn bandwidth_table_shows_compare_columns_and_the_reference_row() {
    let r = sample();
    let t = bandwidth_table(r.bandwidth.as_ref().unwrap());
    let (header, rows) = (t.header(), t.cells());
    assert_eq!(
        header[..7],
        [
            "Variant",
            "Threads/block",
            "Loads x width",
            "Bytes/thread",
            "Regs/thread",
            "Theo. occ",
            "GB/s"
        ]
    );
    assert_eq!(header[7], "% of D2D copy");
    assert_eq!(
        rows[0][..8],
        ["T14f4", "32", "14x4", "224", "50", "3.1%", "2380.5", "61.0%"]
    );
    let other = header.iter().position(|h| h == "Other GB/s").unwrap();
    assert_eq!(rows[0][other], "2400.0");
    assert_eq!(header[other + 2], "Ours/other");
    assert_eq!(rows[0][other + 2], "0.992");
    let last = rows.last().unwrap();
    assert_eq!((last[0].as_str(), last[6].as_str()), ("D2D copy", "3900.0"));
}

#[test]
fn regs_table_says_na_for_unknown_spills() {
    let r = sample();
    let t = regs_table(r.regs.as_ref().unwrap());
    let (header, rows) = (t.header(), t.cells());
    assert_eq!(
        header[..8],
        [
            "Cap",
            "Actual regs",
            "Theo. occ",
            "ms/call [min-max]",
            "GFLOP/s",
            "Spill stores (B)",
            "Spill loads (B)",
            "Stack frame (B)"
        ]
    );
    assert_eq!(rows[0][5..8], ["4840", "4652", "1672"]);
    assert_eq!(rows[1][5..7], ["n/a", "n/a"]);
    assert!(t.notes.iter().any(|n| n.contains("n/a")));
}

#[test]
fn every_format_renders_every_table() {
    let r = sample();
    let table = render_results(&r, Format::Table);
    assert!(table.contains("1. Occupancy vs throughput") && table.contains("3. Register pressure"));
    assert!(table.contains("NVIDIA H200"));
    let md = render_results(&r, Format::Markdown);
    assert!(md.contains("### 2. Bandwidth vs occupancy"));
    assert!(
        md.contains("| Variant |") || md.contains("| Variant"),
        "{md}"
    );
    assert!(
        md.lines()
            .any(|l| l.starts_with("|--") || l.starts_with("|-")),
        "{md}"
    );
    let csv = render_results(&r, Format::Csv);
    assert!(csv.contains("# 1. Occupancy vs throughput"));
    assert!(csv.contains("Variant,Threads/block,TM,TN,Regs/thread,Theo. occ (%),GFLOP/s,"));
    let json = render_results(&r, Format::Json);
    let back: RunResults = serde_json::from_str(&json).unwrap();
    assert_eq!(back, r);
}

#[test]
fn csv_quotes_fields_with_commas_and_quotes() {
    let mut t = occupancy_table(sample().occupancy.as_ref().unwrap());
    t.rows[0].cells[0] = Value::Text("a,\"b\"".into());
    let csv = to_csv(&t);
    assert!(
        csv.lines().nth(1).unwrap().starts_with("\"a,\"\"b\"\"\","),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + t.rows.len());
}

#[test]
fn device_table_names_the_spec_peaks() {
    let t = device_table(&sample().device);
    let rows = t.cells();
    let get = |k: &str| {
        rows.iter()
            .find(|r| r[0] == k)
            .map(|r| r[1].clone())
            .unwrap()
    };
    assert_eq!(get("Compute capability"), "9.0");
    assert_eq!(get("Shared memory per SM"), "228 KiB");
    assert_eq!(get("FP32 peak (spec)"), "66908 GFLOP/s");
    assert!(t.notes[0].contains("spec"));
}

#[test]
fn a_results_folder_round_trips() {
    let r = sample();
    let dir = std::env::temp_dir().join(format!("host-tables-{}", std::process::id()));
    let written = write_results(&dir, &r).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "results.json",
            "tables.md",
            "occupancy.csv",
            "bandwidth.csv",
            "regs.csv"
        ]
    );
    assert_eq!(read_results(&dir.join("results.json")).unwrap(), r);
    let md = std::fs::read_to_string(dir.join("tables.md")).unwrap();
    assert!(md.contains("host all --out results/x") && md.contains("rustc 1.97.0-nightly"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn results_without_the_new_spill_flag_still_read() {
    let r = sample();
    let mut v = serde_json::to_value(&r).unwrap();
    for row in v["regs"].as_array_mut().unwrap() {
        row.as_object_mut().unwrap().remove("spills_unknown");
    }
    let back: RunResults = serde_json::from_value(v).unwrap();
    assert!(back.regs.unwrap().iter().all(|row| !row.spills_unknown));
}

/// The run loop without a GPU: experiment 1 "runs", experiment 2 fails. After experiment 1 the
/// folder holds it with experiments 2 to 9 listed as not finished; after the failure, as failed
/// and not run; what was written is what was returned.
#[test]
fn a_failed_experiment_keeps_the_ones_before_it_on_disk() {
    use clap::Parser;
    use host::experiments::{run_each, ExperimentError, Planned, NOT_FINISHED};
    let cli = host::cli::Cli::try_parse_from(["host", "all"]).unwrap();
    let plan = cli.command.plan("host all").unwrap().unwrap();
    let names: Vec<&str> = plan.experiments.iter().map(Planned::name).collect();
    assert_eq!(
        names,
        [
            "occupancy",
            "bandwidth",
            "regs",
            "inflight",
            "ilp",
            "mma",
            "gemm_bf16",
            "held",
            "shapes"
        ]
    );
    let full = sample();
    let mut start = full.clone();
    (start.occupancy, start.bandwidth, start.regs) = (None, None, None);
    let dir = std::env::temp_dir().join(format!("host-run-each-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut writes = Vec::new();
    let (results, err) = run_each(
        start,
        &plan.experiments,
        &mut |e, r| match e.name() {
            "occupancy" => {
                r.occupancy = full.occupancy.clone();
                Ok(())
            }
            _ => Err(ExperimentError::CopyTooLarge {
                mib: 2,
                have_mib: 1,
                max_mib: 0,
            }),
        },
        &mut |r| {
            host::results_io::write_results(&dir, r).unwrap();
            writes.push(read_results(&dir.join("results.json")).unwrap());
        },
    );
    let err = err.expect("experiment 2 failed").to_string();
    assert!(err.starts_with("experiment bandwidth: "), "{err}");
    assert_eq!(
        writes.len(),
        2,
        "written after experiment 1 and after the failure"
    );
    let after_first: Vec<(&str, &str)> = writes[0]
        .missing
        .iter()
        .map(|m| (m.experiment.as_str(), m.reason.as_str()))
        .collect();
    assert_eq!(
        after_first,
        [
            ("bandwidth", NOT_FINISHED),
            ("regs", NOT_FINISHED),
            ("inflight", NOT_FINISHED),
            ("ilp", NOT_FINISHED),
            ("mma", NOT_FINISHED),
            ("gemm_bf16", NOT_FINISHED),
            ("held", NOT_FINISHED),
            ("shapes", NOT_FINISHED)
        ]
    );
    assert_eq!(writes[0].occupancy, full.occupancy);
    let last = &writes[1];
    assert_eq!(last, &results);
    assert_eq!(last.occupancy, full.occupancy);
    assert!(last.bandwidth.is_none() && last.regs.is_none());
    assert!(last.missing[0]
        .reason
        .starts_with("failed: experiment bandwidth"));
    assert!(last.missing[1]
        .reason
        .contains("stopped when bandwidth failed"));
    let md = std::fs::read_to_string(dir.join("tables.md")).unwrap();
    assert!(md.contains("MISSING bandwidth: failed"), "{md}");
    assert!(dir.join("occupancy.csv").is_file() && !dir.join("bandwidth.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A kernel's fault stops the run in its process (the context is lost) with the experiment listed
/// as faulted, a failed check naming the kernel; the run resumed from those results (as the new
/// process does) skips what is done and what faulted and runs the rest. A fault in an
/// `occupancy` line leaves `occupancy` to run again (without the line). A launch that never
/// completes ends the run. (Before faults were told apart, any failure ended the run, and
/// nothing resumed it.)
#[test]
fn a_fault_is_a_failed_check_and_the_resumed_run_does_the_rest() {
    use clap::Parser;
    use cudarc::driver::{sys::CUresult, DriverError};
    use host::cuda::fault::{Launched, Side, Suspects};
    use host::cuda::CudaError;
    use host::experiments::{run_each, ExperimentError};
    let cli = host::cli::Cli::try_parse_from(["host", "all"]).unwrap();
    let plan = cli.command.plan("host all").unwrap().unwrap();
    let fault = |variant: &str| {
        ExperimentError::from(CudaError::Fault {
            what: "waiting for a warm-up launch".into(),
            source: DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
            suspects: Suspects(vec![Launched {
                side: Side::Compared,
                entry: "sgemm_s".into(),
                module: "bad.cubin".into(),
            }]),
        })
        .in_variant(variant)
    };
    let mut start = sample();
    (start.occupancy, start.bandwidth, start.regs) = (None, None, None);
    let full = sample();

    // First process: occupancy runs, bandwidth faults.
    let mut ran = Vec::new();
    let (first, err) = run_each(
        start,
        &plan.experiments,
        &mut |e, r| {
            ran.push(e.name());
            match e.name() {
                "occupancy" => {
                    r.occupancy = full.occupancy.clone();
                    Ok(())
                }
                _ => Err(fault("copy")),
            }
        },
        &mut |_| {},
    );
    assert_eq!(ran, ["occupancy", "bandwidth"]);
    let err = err.expect("the fault stopped the process's run");
    assert!(err.is_fault(), "{err}");
    let missing: Vec<(&str, bool)> = first
        .missing
        .iter()
        .map(|m| (m.experiment.as_str(), m.faulted))
        .collect();
    assert_eq!(missing[..2], [("bandwidth", true), ("regs", false)]);
    assert!(first.missing[1].reason.contains("goes on in a new process"));
    let failed = first.failed_checks();
    assert!(
        failed.iter().any(|f| f.starts_with(
            "bandwidth faulted: experiment bandwidth: variant copy: waiting for a warm-up launch: \
             `sgemm_s` of the compared module (bad.cubin) faulted: CUDA_ERROR_ILLEGAL_ADDRESS"
        )),
        "{failed:?}"
    );

    // The next process: occupancy is done and bandwidth faulted; regs never completes.
    let mut ran = Vec::new();
    let (second, err) = run_each(
        first,
        &plan.experiments,
        &mut |e, _| {
            ran.push(e.name());
            match e.name() {
                "regs" => Err(CudaError::Timeout {
                    what: "waiting for a sample".into(),
                    limit: std::time::Duration::from_secs(60),
                    suspects: Suspects::default(),
                }
                .into()),
                _ => Ok(()),
            }
        },
        &mut |_| {},
    );
    assert_eq!(ran, ["regs"]);
    let err = err.expect("the timeout ended the run");
    assert!(err.is_timeout() && !err.is_fault(), "{err}");
    assert!(
        err.to_string()
            .contains("the GPU had not finished after 60 s (--launch-timeout)"),
        "{err}"
    );
    let missing: Vec<(&str, bool)> = second
        .missing
        .iter()
        .map(|m| (m.experiment.as_str(), m.faulted))
        .collect();
    assert_eq!(
        missing[..3],
        [("bandwidth", true), ("regs", false), ("inflight", false)]
    );
    assert!(second.missing[2]
        .reason
        .starts_with("not run: the run stopped"));
    assert_eq!(second.occupancy, full.occupancy);

    // A fault in an occupancy line: occupancy is left to run again, not failed as a whole.
    let mut start = sample();
    start.occupancy = None;
    let (third, err) = run_each(
        start,
        &plan.experiments,
        &mut |_, _| Err(fault("S")),
        &mut |_| {},
    );
    assert!(err.unwrap().is_fault());
    assert_eq!(
        (
            third.missing[0].experiment.as_str(),
            third.missing[0].faulted
        ),
        ("occupancy", false)
    );
    assert!(!host::experiments::resume::done(&third, "occupancy"));
}
