//! GPU-only runs of experiments 4 and 5 on small sweeps: every copy, the chase and every FMA
//! point verified, each point at the residency asked for, the model and Volkov's table filled in.
//! Where the build found no CUDA driver (build.rs sets `lab_gpu` when it finds libcuda), `cargo
//! test` lists them as ignored with the reason; asked to run anyway (`--ignored`) without a
//! driver, they fail. No timing decides anything here.

mod support;

use host::cuda::{driver_present, Gpu};
use host::experiments::contract::Report;
use host::experiments::{ilp, inflight};
use support::{fixed_context, run_verified};

/// Device 0. A GPU-only test asked to run (`--ignored`, or a build that found libcuda) on a
/// machine without a driver fails here: it must not pass without having run.
fn gpu() -> Gpu {
    assert!(
        driver_present(),
        "no CUDA driver: this GPU-only test was asked to run and cannot (it fails rather than \
         passing untested)"
    );
    Gpu::open(0).expect("open device 0")
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_small_bytes_in_flight_sweep_runs_verified() {
    let gpu = gpu();
    let r = run_verified::<inflight::Spec>(
        &gpu,
        &fixed_context(&gpu, 2, 3),
        &[
            "inflight",
            "--threads",
            "32,256",
            "--loads",
            "1,14",
            "--widths",
            "1,4",
            "--warps-per-sm",
            "1,8,64",
            "--copy-mib",
            "64",
            "--chase-mib",
            "256",
            "--chase-steps",
            "20000",
            "--sizes-mib",
            "16,64",
            "--no-smem",
        ],
    );
    assert!(r.latency.cycles_per_step > 50.0, "{:?}", r.latency);
    assert!(r.copy.gbps > 0.0 && r.model.latency_ns > 0.0);
    // (1, 8, 64) warps/SM x 2 loads x 2 widths, each at the largest block that divides the warps.
    // A point whose registers cannot hold its residency (14 loads at 64 warps/SM) is skipped with
    // the reason, not run: every point is either a row or a skipped note.
    assert_eq!(
        r.rows.len() + r.skipped.len(),
        12,
        "rows {:?}, skipped {:?}",
        r.rows.iter().map(|x| &x.entry).collect::<Vec<_>>(),
        r.skipped
    );
    assert!(r.rows.len() >= 8, "skipped: {:?}", r.skipped);
    for s in &r.skipped {
        assert!(s.contains("_l14_") && s.contains("blocks/SM"), "{s}");
    }
    for row in &r.rows {
        assert_eq!(row.blocks_per_sm, row.point.blocks_per_sm, "{}", row.entry);
        assert!(row.gbps > 0.0 && row.predicted_gbps > 0.0, "{}", row.entry);
        assert_eq!(row.timing.samples_ms.len(), 3);
        // The built-in PTX is JIT-compiled with a report for every entry.
        let s = row.spills.expect("spill figures recorded");
        assert!(
            s.stores.is_some() && s.loads.is_some(),
            "{}: {s:?}",
            row.entry
        );
    }
    assert_eq!(r.headline.least_occupancy.len(), 2);
    // The loaded-latency curve: the chase alone, then beside each background copy, every chase
    // checked (by run_verified) and run wholly under its copies; the backgrounds step from
    // a trickle to most of the copy.
    let curve = &r.loaded.points;
    assert_eq!(
        curve.len(),
        1 + inflight::chase_run::BACKGROUNDS.len(),
        "{curve:?}"
    );
    assert!(
        curve.iter().all(|p| p.covered && p.ns_per_hop > 0.0),
        "{curve:?}"
    );
    let fastest = curve.iter().map(|p| p.background_gbps).fold(0.0, f64::max);
    let slowest = curve[1..]
        .iter()
        .map(|p| p.background_gbps)
        .fold(f64::MAX, f64::min);
    assert!(
        fastest > 10.0 * slowest && fastest > 0.5 * r.copy.gbps,
        "{curve:?}"
    );
    assert_eq!(r.loaded_predictions.len(), 2);
    assert!(r
        .loaded_predictions
        .iter()
        .all(|p| p.loaded_bytes.is_some()));
    // The size sweep: the fastest point at both sizes, each against its own copy (its checks
    // are among those run_verified holds).
    let sizes = r.sizes.as_ref().expect("a size sweep");
    assert!(sizes.l2_bytes > 0);
    let mib: Vec<u64> = sizes.rows.iter().map(|s| s.bytes >> 20).collect();
    assert_eq!(mib, [16, 64]);
    assert!(sizes.rows.iter().all(|s| s.gbps > 0.0 && s.d2d_gbps > 0.0));
    // The SM clock was read during every figure, not only around it.
    assert!(r.rows.iter().all(|x| x
        .timing
        .sm_clock_mhz_during
        .is_some_and(|c| c.readings >= 2)));
    let t = inflight::Spec::table(&r, &test_meta());
    assert_eq!(t.rows.len(), r.rows.len());
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_read_only_kernels_run_beside_their_copies_verified() {
    let gpu = gpu();
    // 8 warps/SM as one 256-thread block, 64 as two 1024-thread blocks: the copy rows, three
    // with a read line of the table beside them and one skipped.
    let r = run_verified::<inflight::Spec>(
        &gpu,
        &fixed_context(&gpu, 2, 3),
        &[
            "inflight",
            "--threads",
            "256,1024",
            "--loads",
            "1,8",
            "--widths",
            "4",
            "--warps-per-sm",
            "8,64",
            "--copy-mib",
            "64",
            "--chase-mib",
            "256",
            "--chase-steps",
            "20000",
            "--loaded-steps",
            "0",
            "--sizes-mib",
            "0",
        ],
    );
    // Every warp's sum was checked exactly: a failed one fails run_verified.
    let reads = r.reads.as_ref().expect("read rows beside the copies");
    let mut pairs: Vec<(String, u32)> = reads
        .rows
        .iter()
        .map(|x| (x.entry.clone(), x.blocks_per_sm))
        .collect();
    pairs.sort();
    // memcpy_t1024_l8_w4 is not held at 2 blocks/SM on an H200 (its registers allow one block of
    // 1024 threads; calls J and K, 2026-12-01): the copy is named as skipped, and its read, which
    // runs only beside a placed copy, has no row.
    assert_eq!(
        pairs,
        [
            ("read_t1024_l1_w4".to_owned(), 2),
            ("read_t256_l1_w4".to_owned(), 1),
            ("read_t256_l8_w4".to_owned(), 1),
        ]
    );
    assert!(
        r.skipped
            .iter()
            .any(|s| s.contains("memcpy_t1024_l8_w4 at 2 blocks/SM")),
        "{:?}",
        r.skipped
    );
    for x in &reads.rows {
        let copy = r
            .rows
            .iter()
            .find(|c| c.entry == x.copy_entry && c.blocks_per_sm == x.blocks_per_sm)
            .expect("its copy row");
        assert_eq!(x.bytes_in_flight_per_sm, copy.bytes_in_flight_per_sm);
        assert!(x.check.passed && x.gbps > 0.0, "{x:?}");
        assert_eq!(x.timing.samples_ms.len(), 3);
    }
    assert_eq!(reads.reference_gbps, r.copy.gbps);
    let notes = inflight::Spec::notes(&r);
    assert!(
        notes.iter().any(|n| n.starts_with("Read-only vs copy")),
        "{notes:?}"
    );
}

#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_small_ilp_sweep_runs_verified() {
    let gpu = gpu();
    let r = run_verified::<ilp::Spec>(
        &gpu,
        &fixed_context(&gpu, 2, 3),
        &[
            "ilp",
            "--ilp",
            "1,4",
            "--warps-per-sm",
            "1,8,64",
            "--controls",
            "none",
            "--target-cycles",
            "200000",
        ],
    );
    assert_eq!(r.rows.len(), 6, "skipped: {:?}", r.skipped);
    for row in &r.rows {
        assert_eq!(row.point.layout.warps_per_sm, row.point.warps_per_sm);
        assert!(
            !row.measured
                .flags
                .iter()
                .any(|f| f.contains("driver gives")),
            "{:?}",
            row.measured.flags
        );
        assert!(
            row.fraction_of_peak > 0.0 && row.fraction_of_peak < 1.1,
            "ILP {} at {} warps: {}",
            row.point.ilp,
            row.point.warps_per_sm,
            row.fraction_of_peak
        );
    }
    assert_eq!(r.volkov.len(), 2);
    for row in &r.rows {
        assert!(
            row.measured.check.what.starts_with("every one of"),
            "every thread checked: {}",
            row.measured.check.what
        );
    }
}

/// Every control of the FMA sweep runs, each thread checked bit for bit against its own op's
/// CPU chains, beside the FFMA; the scheduler model fills in where it predicts (5 warps/SM,
/// from 8). No timing decides anything.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn the_fma_controls_run_verified_beside_the_ffma() {
    let gpu = gpu();
    let r = run_verified::<ilp::Spec>(
        &gpu,
        &fixed_context(&gpu, 2, 3),
        &[
            "ilp",
            "--ilp",
            "1",
            "--warps-per-sm",
            "5,8,64",
            "--control-warps-per-sm",
            "5,8,64",
            "--target-cycles",
            "200000",
        ],
    );
    let controls = kernels_gpu::variants::FMA_CONTROLS;
    assert_eq!(
        r.rows.len(),
        3 * (1 + controls.len()),
        "skipped: {:?}",
        r.skipped
    );
    for v in controls {
        let rows: Vec<_> = r.rows.iter().filter(|x| x.point.entry == v.entry).collect();
        assert_eq!(rows.len(), 3, "{}", v.entry);
        for row in rows {
            assert_eq!(row.op, v.op.name());
            assert!(
                row.measured.check.what.contains(v.op.sass()),
                "{}: {}",
                v.entry,
                row.measured.check.what
            );
            assert!(row.fraction_of_peak > 0.0 && row.fraction_of_peak < 1.1);
            assert_eq!(row.scheduler_model.is_some(), row.point.warps_per_sm == 5);
        }
    }
    // The ILP-1 plateau of every kernel, and the notes that set them beside the model.
    let notes = ilp::Spec::notes(&r);
    assert!(notes.iter().any(|n| n.starts_with("Controls")), "{notes:?}");
    assert!(
        notes.iter().any(|n| n.starts_with("What caps ILP 1")),
        "{notes:?}"
    );
}

/// A copy whose loads cannot fit the registers its block size allows: 1024 threads leave 64
/// registers per thread, and 32 loads of 16 B are 128 registers of data alone. The compiler's
/// report for the module run must show it (spills or a stack frame), the row must say so, and
/// the claims must leave it out.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn a_copy_whose_loads_cannot_be_held_is_named_and_left_out() {
    let gpu = gpu();
    let r = run_verified::<inflight::Spec>(
        &gpu,
        &fixed_context(&gpu, 2, 3),
        &[
            "inflight",
            "--threads",
            "1024",
            "--loads",
            "32",
            "--widths",
            "4",
            "--warps-per-sm",
            "32",
            "--copy-mib",
            "64",
            "--chase-mib",
            "256",
            "--chase-steps",
            "20000",
        ],
    );
    let big = r
        .rows
        .iter()
        .find(|x| x.entry == "memcpy_t1024_l32_w4")
        .unwrap_or_else(|| panic!("not run: {:?}", r.skipped));
    assert!(big.spilled(), "{:?}", big.spills);
    assert!(!big.usable());
    assert!(
        big.measured
            .flags
            .iter()
            .any(|f| f.starts_with(inflight::row::SPILLS_NOTE)),
        "{:?}",
        big.measured.flags
    );
    for row in &r.rows {
        assert_eq!(
            row.spilled(),
            row.measured
                .flags
                .iter()
                .any(|f| f.starts_with(inflight::row::SPILLS_NOTE)),
            "{}",
            row.entry
        );
    }
    let t = inflight::Spec::table(&r, &test_meta());
    assert!(
        t.notes
            .iter()
            .any(|n| n.contains("memcpy_t1024_l32_w4 at 1 blocks/SM")),
        "{:?}",
        t.notes
    );
}

fn test_meta() -> host::results::RunMeta {
    host::results::RunMeta {
        date: String::new(),
        command: String::new(),
        tool_version: String::new(),
        toolchain: String::new(),
        module: host::kernel_source::name::RunModules::default(),
        compare_module: None,
        compare_label: None,
        iters: 2,
        samples: 3,
        noise_target: None,
        gemm_size: 4096,
        gemm_dims: None,
        regs_variant: None,
        copy_bytes: 1 << 30,
    }
}

/// The built-in main module is compiled once per GPU and shared: a second experiment's load,
/// and a warm-up from another thread, get the very module the first load made.
#[test]
#[cfg_attr(not(lab_gpu), ignore = "no NVIDIA driver (libcuda) on this machine")]
fn experiments_share_the_built_in_modules_they_load() {
    use host::experiments::Kernels;
    use host::kernel_source::sources::Sources;
    let gpu = gpu();
    let builtin: Sources<Kernels> = Sources::new(Kernels::Builtin, None);
    std::thread::scope(|s| {
        s.spawn(|| {
            gpu.warm_builtin(
                host::kernel_source::name::BUILTIN,
                host::kernel_source::builtin::MAIN,
            )
        });
    });
    assert_eq!(
        gpu.builtin_modules_kept(),
        1,
        "the warm-up kept the main module"
    );
    let (first, _) = builtin.load(&gpu).expect("the main module loads");
    let (second, _) = builtin.load(&gpu).expect("and again");
    assert!(std::sync::Arc::ptr_eq(&first.module, &second.module));
    assert!(
        first.report.is_some(),
        "each load still has the JIT's report"
    );
    assert_eq!(gpu.builtin_modules_kept(), 1, "compiled once");
    // Another image is another module (the tensor-core module needs sm_80).
    if gpu.info().compute_capability >= (8, 0) {
        let tensor = builtin
            .load_with(&gpu, host::kernel_source::builtin::TENSOR)
            .expect("the tensor-core module loads");
        assert!(!std::sync::Arc::ptr_eq(&first.module, &tensor.0.module));
        assert_eq!(gpu.builtin_modules_kept(), 2);
    }
}
