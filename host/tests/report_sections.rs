//! The report's sections: the heatmap, what experiments 2 and 4 say of each other, the cuBLAS
//! and tuned rows, and the seeds' register claims (cap 128, the cliff). No GPU needed.

mod report_kit;
use report_kit::*;

#[test]
fn unknown_spills_leave_the_spill_claims_not_judged() {
    let mut r = fixture();
    cap_mut(&mut r, 64).spills_unknown = true;
    for key in [SPILLS, FIRST_FREE, MORE_REGS] {
        let v = judge(&r, key);
        assert_eq!(v.holds, None, "{key}");
        assert!(v
            .evidence
            .contains("spill bytes unknown (no compiler report) for cap 64"));
    }
    let dir = out_dir("report_spills_unknown");
    report::write(&r, &dir).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md_rows(&md)
            .iter()
            .any(|r| r[0] == "64" && r[5..7] == ["n/a", "n/a"]),
        "{md}"
    );
}

#[test]
fn the_out_folder_write_path_gives_a_report_with_the_calculators_curves() {
    let r = fixture();
    let dir = out_dir("report_out_folder");
    // What `--out DIR` writes after the experiments, from the stored fixture instead of a GPU.
    let written = host::report::write_run(&dir, &r).expect("folder written");
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for f in [
        "results.json",
        "tables.md",
        "occupancy.csv",
        "report.md",
        "occupancy.svg",
        "bandwidth.svg",
        "regs.svg",
        "curve_registers.svg",
        "curve_block_size.svg",
        "curve_dynamic_smem.svg",
    ] {
        assert!(names.iter().any(|n| n == f), "{f} not in {names:?}");
        assert!(dir.join(f).is_file(), "{f} not on disk");
    }
    for svg in names.iter().filter(|n| n.ends_with(".svg")) {
        svg_texts(&dir.join(svg));
    }
    // One series per GEMM variant of experiment 1, on the fixture device's limits.
    let curve = svg_texts(&dir.join("curve_registers.svg"));
    assert!(has(&curve, &r.device.name), "{curve:?}");
    for row in &r.occupancy.as_ref().unwrap().rows {
        assert!(curve.contains(&row.variant), "legend lacks {}", row.variant);
    }

    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for svg in names.iter().filter(|n| n.ends_with(".svg")) {
        assert!(md.contains(&format!("]({svg})")), "report.md links {svg}");
    }
    // The tables are in tables.md, linked, not repeated.
    assert!(md.contains("[tables.md](tables.md)"));
    let tables = std::fs::read_to_string(dir.join("tables.md")).unwrap();
    let header = |text: &str| {
        text.lines()
            .any(|l| l.starts_with('|') && l.contains("Threads/block"))
    };
    assert!(
        header(&tables) && !header(&md),
        "the GEMM tables in tables.md, not in report.md"
    );
    assert_eq!(md.matches("**HOLDS**").count(), 20);
    // Each verdict names its key, the stable name the docs cite it by (its number depends on the
    // experiments a run holds).
    let mut keyed = 0;
    for v in r.verdicts() {
        let paragraph = md.split("\n### ").find(|p| {
            p.split_once(". ")
                .is_some_and(|(_, rest)| rest.starts_with(&v.claim))
        });
        if let Some(paragraph) = paragraph {
            let key = format!("- Key: `{}`", v.key);
            assert!(paragraph.contains(&key), "{key} not in {paragraph}");
            keyed += 1;
        }
    }
    assert!(keyed >= 10, "{keyed} verdicts with their key");

    // `host report DIR` rewrites the same report from the stored folder.
    let before = md;
    let again = report::write_folder(&r, &dir).unwrap();
    assert!(again.contains(&dir.join("curve_dynamic_smem.svg")));
    assert_eq!(
        std::fs::read_to_string(dir.join("report.md")).unwrap(),
        before
    );
}

#[test]
fn the_calculators_curves_follow_each_variants_measured_resources() {
    use host::occupancy::Limits;
    let r = fixture();
    let limits = Limits::from_device_info(&r.device);
    let plots = report::curves_for(&r, &limits);
    assert_eq!(plots.len(), 3);
    let rows = &r.occupancy.as_ref().unwrap().rows;
    let regs_plot = &plots[0];
    assert_eq!(regs_plot.file_stem, "curve_registers");
    assert_eq!(regs_plot.series.len(), rows.len());
    for ((name, pts), row) in regs_plot.series.iter().zip(rows) {
        assert_eq!(name, &row.variant);
        // At the row's own register count the curve is the calculator's figure for the row.
        let kernel = host::occupancy::KernelResources {
            threads: row.threads,
            regs_per_thread: row.figures.regs,
            static_smem: kernels_gpu::variants::GemmVariant::SEED_STATIC_SHARED_BYTES,
            dyn_smem: 0,
        };
        let o = host::occupancy::occupancy(&limits, &kernel).unwrap();
        let at = pts
            .iter()
            .find(|p| p.0 == f64::from(row.figures.regs))
            .unwrap();
        assert!((at.1 - o.occupancy * 100.0).abs() < 1e-9, "{}", row.variant);
    }

    let mut none = r.clone();
    none.occupancy = None;
    assert!(report::curves_for(&none, &limits).is_empty());
}

#[test]
fn a_heatmap_labels_every_measured_cell_and_its_axes() {
    use host::figure::Heatmap;
    let dir = out_dir("report_heatmap");
    let h = Heatmap {
        labels: Labels::new("% of copy bandwidth", "Warps per SM", "Bytes per thread"),
        x_ticks: vec!["1".into(), "2".into(), "4".into()],
        y_ticks: vec!["16".into(), "64".into()],
        cells: vec![
            vec![Some(12.5), Some(25.0), None],
            vec![Some(50.0), Some(93.0), Some(96.4)],
        ],
        scale_max: Some(100.0),
        decimals: 1,
    };
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("heat.svg");
    report::plots::heatmap(&h, &path).unwrap();
    let t = svg_texts(&path);
    for cell in ["12.5", "25.0", "50.0", "93.0", "96.4"] {
        assert!(t.iter().any(|x| x == cell), "{cell} missing from {t:?}");
    }
    assert_eq!(t.iter().filter(|x| x.contains('.')).count(), 5, "{t:?}");
    for label in [
        "Warps per SM",
        "Bytes per thread",
        "% of copy bandwidth",
        "64",
        "4",
    ] {
        assert!(has(&t, label), "{label} missing from {t:?}");
    }
}

/// With experiment 4 in the same results, experiment 2's judged verdicts give its reason: the
/// bytes in flight the blog's variants hold against what the model says this GPU needs.
#[test]
fn experiment_2_points_to_experiment_4_when_both_ran() {
    let mut r = fixture();
    let before: Vec<_> = r
        .verdicts()
        .into_iter()
        .filter(|v| v.experiment == 2)
        .collect();
    assert!(before.iter().all(|v| !v.evidence.contains("experiment 4")));
    let timing = serde_json::json!({"samples_ms": [1.0], "median_ms": 1.0, "min_ms": 1.0,
        "max_ms": 1.0, "sm_clock_mhz_before": null, "sm_clock_mhz_after": null});
    let check = serde_json::json!({"passed": true, "error": 0.0, "bound": 0.0, "what": "x"});
    r.inflight = Some(
        serde_json::from_value(serde_json::json!({
            "copy": {"bytes": 1u64 << 27, "gbps": 4200.0, "timing": timing},
            "latency": {"steps": 1000, "buffer_bytes": 1u64 << 30, "cycles_per_step": 1200.0,
                "ns_per_step": 600.0, "implied_clock_mhz": 2000.0, "check": check},
            "model": {"sms": 132, "latency_ns": 600.0, "peak_gbps": 4200.0},
            "rows": [], "skipped": [],
            "headline": {"least_occupancy": [], "bytes_needed": []}
        }))
        .unwrap(),
    );
    let after: Vec<_> = r
        .verdicts()
        .into_iter()
        .filter(|v| v.experiment == 2)
        .collect();
    assert_eq!(after.len(), before.len());
    for v in after.iter().filter(|v| v.holds.is_some()) {
        assert!(
            v.evidence.contains("Why (experiment 4)") && v.evidence.contains("T1 8192 B"),
            "{}",
            v.evidence
        );
    }
    assert!(after.iter().any(|v| v.holds.is_some()));
}

/// A run that ran (or was asked for) only some experiments reports those alone: a run recorded
/// before experiments 4 and 5 existed regenerates without them.
#[test]
fn the_report_is_about_the_experiments_the_run_asked_for() {
    let mut r = fixture();
    r.occupancy = None;
    r.regs = None;
    let dir = out_dir("report_one");
    let written = report::write(&r, &dir).unwrap();
    let md = std::fs::read_to_string(&written[0]).unwrap();
    assert!(md.contains("## Experiment 2"), "{md}");
    assert!(
        !md.contains("## Experiment 1") && !md.contains("## Experiment 4"),
        "{md}"
    );
    assert!(!md.contains("Not run."), "{md}");
    assert!(!md.contains("**NOT JUDGED**"), "{md}");
    r.missing.push(host::results::Missing {
        experiment: "inflight".into(),
        reason: "failed: synthetic".into(),
        faulted: false,
    });
    let written = report::write(&r, &dir).unwrap();
    let md = std::fs::read_to_string(&written[0]).unwrap();
    assert!(
        md.contains("Missing from this run: failed: synthetic."),
        "{md}"
    );
    assert_eq!(
        md.matches("**NOT JUDGED**").count(),
        10,
        "experiment 4's five claims"
    );
}

/// A run with a tuned row and cuBLAS: the family and tile columns and the ratio column appear,
/// cuBLAS has its reference row (with its version in the title, and the kernel it ran: name,
/// block, registers, occupancy), in the terminal table, Markdown and CSV; the plot draws cuBLAS
/// as a reference line and its kernel as a point; merging keeps the cuBLAS row.
#[test]
fn cublas_and_tuned_rows_render_everywhere_and_merge() {
    use host::experiments::contract::Report;
    use host::experiments::occupancy::Spec;
    use host::table::{render, Format};
    let r = with_cublas(4000.0, Some((5000.0, 0.125)), Some(0.125));
    let run = r.occupancy.as_ref().unwrap();
    let t = Spec::table(run, &r.meta);
    let (header, rows) = (t.header(), t.cells());
    for h in [
        "Family",
        "Block tile",
        "Warp tile",
        "Sub-tile TMxTN",
        "Ours/cuBLAS",
    ] {
        assert!(header.iter().any(|x| x == h), "{h} in {header:?}");
    }
    assert!(
        t.title.contains("cuBLAS 13.1.0 (libcublas.so.13)"),
        "{}",
        t.title
    );
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let tuned = rows.iter().find(|row| row[0] == "R").unwrap();
    assert_eq!(tuned[col("Family")], "tuned");
    assert_eq!(tuned[col("Block tile")], "256x128x16");
    assert_eq!(tuned[col("Warp tile")], "64x64");
    assert_eq!(tuned[col("Ours/cuBLAS")], "1.250");
    let seed = rows.iter().find(|row| row[0] == "D").unwrap();
    assert_eq!(
        (
            seed[col("Family")].as_str(),
            seed[col("Block tile")].as_str()
        ),
        ("seed", "64x64x8")
    );
    assert_eq!(seed[col("Warp tile")], "n/a");
    let cublas = rows.last().unwrap();
    assert_eq!(
        cublas[0],
        "cuBLAS 13.1.0: sm90_xmma_gemm_f32f32_f32f32_f32_nn_n"
    );
    assert_eq!(cublas[col("GFLOP/s")], "4000");
    assert_eq!(
        [
            &cublas[col("Threads/block")],
            &cublas[col("Regs/thread")],
            &cublas[col("Theo. occ")],
            &cublas[col("Blocks/SM")]
        ],
        ["256", "200", "12.5%", "1"]
    );
    assert!(
        t.notes
            .iter()
            .any(|n| n.starts_with("cuBLAS's kernel: cuBLAS 13.1.0 ran")),
        "{:?}",
        t.notes
    );
    assert!(!(t.notes.iter()).any(|n| n.contains("was not read") || n.contains("was not recorded")));
    assert_eq!(cublas[col("Ours/cuBLAS")], "1.000");
    // The tables print the tile joined; a CSV gives each side its own number.
    for (f, tile) in [
        (Format::Table, "256x128x16"),
        (Format::Markdown, "256x128x16"),
        (Format::Csv, ",tuned,256,128,16,64,64,"),
    ] {
        let text = render(&t, f);
        assert!(
            text.contains("cuBLAS 13.1.0") && text.contains("Ours/cuBLAS") && text.contains(tile),
            "{f:?}: {text}"
        );
    }

    // The plot: cuBLAS is a reference line with its figure.
    let dir = out_dir("report_cublas");
    report::write(&r, &dir).unwrap();
    let svg = svg_texts(&dir.join("occupancy.svg"));
    assert!(has(&svg, "cuBLAS 13.1.0: 4,000"), "{svg:?}");
    assert!(has(&svg, "cuBLAS 13.1.0 kernel"), "{svg:?}");

    // Merging: the cuBLAS row is kept above the variants.
    let base = out_dir("report_cublas_merge");
    let (a, b, out) = (base.join("a"), base.join("b"), base.join("out"));
    for (d, run) in [(&a, &r), (&b, &fixture())] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("results.json"), serde_json::to_string(run).unwrap()).unwrap();
    }
    report::merge(&[a, b], &out).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(
        md_row(&md, &["1", "cuBLAS"])[..5],
        ["1", "cuBLAS", "GFLOP/s", "4000", "-"]
    );
}

/// Without cuBLAS on the machine the run goes on: the ratio column says n/a and the reference row
/// says why; a run without cuBLAS asked for keeps the table it always had.
#[test]
fn a_missing_cublas_is_said_in_the_table_and_nothing_else_changes() {
    use host::experiments::contract::Report;
    use host::experiments::gemm_cublas::CublasOutcome;
    use host::experiments::occupancy::Spec;
    let plain = fixture();
    let before = Spec::table(plain.occupancy.as_ref().unwrap(), &plain.meta);
    assert!(!before
        .header()
        .iter()
        .any(|h| h == "Ours/cuBLAS" || h == "Family"));
    let mut r = fixture();
    r.occupancy.as_mut().unwrap().cublas = Some(CublasOutcome::Unavailable {
        reason: "cuBLAS not found: none of libcublas.so.13 could be loaded (x)".into(),
    });
    let t = Spec::table(r.occupancy.as_ref().unwrap(), &r.meta);
    let col = t.header().iter().position(|h| h == "Ours/cuBLAS").unwrap();
    assert_eq!(t.header().len(), before.header().len() + 1);
    let (rows, old_rows) = (t.cells(), before.cells());
    assert_eq!(rows.len(), old_rows.len() + 1);
    for (row, old) in rows.iter().zip(&old_rows) {
        assert_eq!(row[col], "n/a");
        let mut without = row.clone();
        without.remove(col);
        assert_eq!(&without, old);
    }
    assert!(rows.last().unwrap()[0].starts_with("cuBLAS not found: none of libcublas.so.13"));
    assert!(t.title.contains("cuBLAS not found"), "{}", t.title);
}

#[test]
fn shared_memory_word_rates_that_agree_fail_the_as_fast_as_registers_claim() {
    // B reads 0.375 shared words per FFMA, S 1: at the same shared-memory word rate B runs
    // 1/0.375 times S's GFLOP/s, so shared memory sets their rate.
    let mut r = fixture();
    gemm_mut(&mut r, "S").figures.gflops = 4230.0 * 0.375;
    let v = judge(&r, SMEM);
    assert_eq!(v.holds, Some(false), "{}", v.evidence);
    assert!(
        v.evidence.contains("S 1.000 words/FFMA 1586 GFLOP/s")
            && v.evidence.contains("B over S: GFLOP/s 2.66")
            && v.evidence.contains("shared-memory words/s 1.000 (95% CI"),
        "{}",
        v.evidence
    );
    // S as fast as B with 2.7 times the words: shared memory did not hold it back.
    let mut r = fixture();
    gemm_mut(&mut r, "S").figures.gflops = 4230.0;
    assert_eq!(judge(&r, SMEM).holds, Some(true));
    // No line reads more than 1/4 word per FFMA: nothing to judge.
    let mut r = fixture();
    for v in ["S", "A1", "A", "B"] {
        gemm_mut(&mut r, v).tm = 8;
        gemm_mut(&mut r, v).tn = 8;
    }
    let v = judge(&r, SMEM);
    assert_eq!(v.holds, None);
    assert!(v.evidence.contains("more than 1/4"), "{}", v.evidence);
}

#[test]
fn seed_001_a_spill_free_cap_that_raises_occupancy_against_the_uncapped_build() {
    // Cap 128 (8 blocks/SM, no spills) over the uncapped cap 255 (6 blocks/SM).
    let v = judge(&fixture(), CAP_HELPS);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(
        v.evidence
            .contains("cap 128 (128 regs, 0 spill B) 4233 GFLOP/s at 8 blocks/SM")
            && v.evidence.contains("(95% CI"),
        "{}",
        v.evidence
    );
    let mut r = fixture();
    cap_mut(&mut r, 128).figures.gflops = 3000.0;
    assert_eq!(judge(&r, CAP_HELPS).holds, Some(false));
    // No spill-free cap holds more blocks than the uncapped build: nothing to judge.
    let mut r = fixture();
    cap_mut(&mut r, 128).figures.blocks_per_sm = 6;
    let v = judge(&r, CAP_HELPS);
    assert_eq!(v.holds, None);
    assert!(
        v.evidence.contains("no spill-free cap holds more blocks"),
        "{}",
        v.evidence
    );
}

#[test]
fn seed_002_the_register_cliff_needs_builds_close_either_side_of_a_boundary() {
    // 128 registers (8 blocks/SM) against 136 (6 blocks/SM), 8 registers apart.
    let v = judge(&fixture(), CLIFF);
    assert_eq!(v.holds, Some(true), "{}", v.evidence);
    assert!(v.evidence.contains("(8 registers apart)"), "{}", v.evidence);
    let mut r = fixture();
    cap_mut(&mut r, 160).figures.gflops = 4600.0;
    assert_eq!(judge(&r, CLIFF).holds, Some(false));
    // The nearest build past the boundary 22 registers away: not the cliff.
    let mut r = fixture();
    cap_mut(&mut r, 160).figures.regs = 150;
    let v = judge(&r, CLIFF);
    assert_eq!(v.holds, None);
    assert!(v.evidence.contains("22 registers apart"), "{}", v.evidence);
    assert!(v.evidence.contains("(95% CI"), "{}", v.evidence);
}
