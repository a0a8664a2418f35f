//! The occupancy calculator against the seeds' worked examples, the allocation rules, and (once
//! recorded on a GPU) the driver's own answers.

use clap::Parser;
use host::calculator::driver_sweep::{dense_dyn_smem, ptx_entries};
use host::calculator::CalcArgs;
use host::occupancy::golden::table_vs_device;
use host::occupancy::{
    all_curves, cliff_table, max_potential_block_size, occupancy, occupancy_with_carveout,
    parse_size, replay, Arch, Axis, Carveout, GoldenFile, KernelResources, Limiter, Limits,
    OccupancyError,
};

fn kernel(threads: u32, regs: u32, static_smem: u32, dyn_smem: u32) -> KernelResources {
    KernelResources {
        threads,
        regs_per_thread: regs,
        static_smem,
        dyn_smem,
    }
}

fn a100() -> Limits {
    Arch::Sm80.limits()
}

fn h100() -> Limits {
    Arch::Sm90.limits()
}

// ---- seed 003, section 4.1: 40 registers, 256 threads, 16 KB on an A100 ----

#[test]
fn seed_003_worked_example() {
    let o = occupancy(&a100(), &kernel(256, 40, 16 * 1024, 0)).unwrap();
    assert_eq!(o.regs_per_warp, 1280);
    assert_eq!(o.block_limits.registers, 6);
    // (16 KB + 1 KB reserved) per block in 164 KB: 9 (the seed, without the reserve, says 10).
    assert_eq!(o.block_limits.shared_memory, 9);
    assert_eq!(o.block_limits.warps, 8);
    assert_eq!(o.block_limits.blocks, 32);
    assert_eq!(o.blocks_per_sm, 6);
    assert_eq!(o.warps_per_sm, 48);
    assert_eq!(o.occupancy, 0.75);
    assert_eq!(o.binding, vec![Limiter::Registers]);
}

// ---- seed 003, section 3.1: the register table on an A100 ----

#[test]
fn seed_003_register_table() {
    let l = a100();
    let rows = cliff_table(&l, &[]);
    let warps = |r: u32| rows.iter().find(|x| x.regs_per_thread == r).unwrap();
    assert_eq!((warps(32).regs_per_warp, warps(32).warps), (1024, 64));
    assert_eq!((warps(64).regs_per_warp, warps(64).warps), (2048, 32));
    assert_eq!((warps(128).regs_per_warp, warps(128).warps), (4096, 16));
    // 255 × 32 = 8160, rounded to 8192.
    assert_eq!((warps(255).regs_per_warp, warps(255).warps), (8192, 8));
    assert_eq!(warps(255).occupancy, 0.125);
    // 48 registers: the seed says 65536 / 1536 = 42 warps; per sub-partition it is
    // floor(16384 / 1536) = 10, so 40 warps.
    assert_eq!((warps(48).regs_per_warp, warps(48).warps), (1536, 40));
    assert_eq!(warps(48).seed_warps, Some(42));
    assert_eq!(warps(64).seed_warps, None);
}

// ---- seed 003, section 3.3: the block size table on an A100 ----

#[test]
fn seed_003_block_size_table() {
    let l = a100();
    let cases = [
        (32, 32, 32, Limiter::Blocks),
        (64, 32, 64, Limiter::Blocks),
        (128, 16, 64, Limiter::Warps),
        (256, 8, 64, Limiter::Warps),
        (512, 4, 64, Limiter::Warps),
        (1024, 2, 64, Limiter::Warps),
    ];
    for (threads, blocks, warps, limiter) in cases {
        let o = occupancy(&l, &kernel(threads, 16, 0, 0)).unwrap();
        assert_eq!(
            (o.blocks_per_sm, o.warps_per_sm),
            (blocks, warps),
            "{threads}"
        );
        assert!(o.binding.contains(&limiter), "{threads}: {:?}", o.binding);
    }
}

// ---- seed 003, section 3.2: the shared memory table on an A100 (256 threads) ----

#[test]
fn seed_003_shared_memory_table() {
    let l = a100();
    let at = |kb: u32| occupancy(&l, &kernel(256, 16, kb * 1024, 0));
    // 8 KB: shared memory allows 18 blocks, the warps only 8: full occupancy.
    let o = at(8).unwrap();
    assert_eq!((o.block_limits.shared_memory, o.warps_per_sm), (18, 64));
    // 32 KB: the seed says 5 blocks; with the 1 KB reserve 33 KB fits only 4 times in 164 KB.
    let o = at(32).unwrap();
    assert_eq!((o.blocks_per_sm, o.occupancy), (4, 0.5));
    assert_eq!(o.binding, vec![Limiter::SharedMemory]);
    // 64 KB: 2 blocks, 25 %.
    let o = at(64).unwrap();
    assert_eq!((o.blocks_per_sm, o.occupancy), (2, 0.25));
    // 163 KB is the opt-in maximum: one block; the seed's 164 KB cannot launch at all.
    assert_eq!(at(163).unwrap().blocks_per_sm, 1);
    assert!(matches!(
        at(164),
        Err(OccupancyError::TooMuchSharedMemory { .. })
    ));
}

// ---- seed 002: the 32 -> 33 register cliff ----

#[test]
fn register_cliff_is_48_warps_not_51() {
    for l in [a100(), h100()] {
        let rows = cliff_table(&l, &[]);
        let r33 = rows.iter().find(|r| r.regs_per_thread == 33).unwrap();
        assert_eq!(r33.regs_per_warp, 1280, "{}", l.name);
        assert_eq!(r33.warps, 48, "{}", l.name);
        assert_eq!(r33.seed_warps, Some(51));
        let r32 = rows.iter().find(|r| r.regs_per_thread == 32).unwrap();
        assert_eq!(r32.warps, 64);
        // And a real kernel: two-warp blocks at 33 registers, 48 resident warps.
        let o = occupancy(&l, &kernel(64, 33, 0, 0)).unwrap();
        assert_eq!(o.warps_per_sm, 48);
        assert_eq!(o.binding, vec![Limiter::Registers]);
    }
}

#[test]
fn registers_are_split_between_sub_partitions() {
    // 3-warp blocks at 96 registers (3072 per warp): 5 warps per sub-partition, 20 per SM,
    // so 6 blocks (18 warps); a single 64 K pool would give 21 warps / 7 blocks.
    let o = occupancy(&h100(), &kernel(96, 96, 0, 0)).unwrap();
    assert_eq!(o.block_limits.registers, 6);
    assert_eq!(o.warps_per_sm, 18);
}

#[test]
fn ties_name_every_binding_limiter() {
    let o = occupancy(&h100(), &kernel(256, 32, 0, 0)).unwrap();
    assert_eq!(o.blocks_per_sm, 8);
    assert_eq!(o.binding, vec![Limiter::Registers, Limiter::Warps]);
    assert_eq!(
        host::occupancy::limiter_names(&o.binding),
        "registers + warps"
    );
    assert_eq!(Limiter::Blocks.to_string(), "blocks/SM");
    assert_eq!(Limiter::SharedMemory.to_string(), "shared memory");
}

#[test]
fn architectures_differ_where_the_table_says() {
    // 48-warp parts.
    for arch in [Arch::Sm86, Arch::Sm89, Arch::Sm120] {
        let o = occupancy(&arch.limits(), &kernel(1024, 16, 0, 0)).unwrap();
        assert_eq!((o.blocks_per_sm, o.warps_per_sm), (1, 32), "{arch}");
        let o = occupancy(&arch.limits(), &kernel(512, 16, 0, 0)).unwrap();
        assert_eq!(o.warps_per_sm, 48, "{arch}");
    }
    // Turing: 32 warps, 16 blocks, 64 KB, no reserve, 256-byte unit.
    let t = Arch::Sm75.limits();
    let o = occupancy(&t, &kernel(32, 16, 0, 0)).unwrap();
    assert_eq!(
        (o.blocks_per_sm, o.binding.clone()),
        (16, vec![Limiter::Blocks])
    );
    let o = occupancy(&t, &kernel(64, 16, 100, 0)).unwrap();
    assert_eq!(o.smem_per_block, 256);
    // sm_90 fits 227 KB in one block; 228 KB cannot launch.
    assert_eq!(
        occupancy(&h100(), &kernel(128, 32, 0, 227 * 1024))
            .unwrap()
            .blocks_per_sm,
        1
    );
}

#[test]
fn carveout_preference_limits_shared_memory() {
    // 50 % of 228 KB = 114 KB, rounded up to the 132 KB carveout; 17 KB blocks: 7 fit.
    let k = kernel(256, 32, 16 * 1024, 0);
    let o = occupancy_with_carveout(&h100(), &k, Carveout::Percent(50)).unwrap();
    assert_eq!(o.smem_config, 132 * 1024);
    assert_eq!(o.blocks_per_sm, 7);
    assert_eq!(o.binding, vec![Limiter::SharedMemory]);
    // A preference too small for one block gives way to the smallest carveout that holds it.
    let k = kernel(256, 32, 90 * 1024, 0);
    let o = occupancy_with_carveout(&h100(), &k, Carveout::Percent(0)).unwrap();
    assert_eq!(o.smem_config, 100 * 1024);
    assert_eq!(o.blocks_per_sm, 1);
    assert!(occupancy_with_carveout(&h100(), &k, Carveout::Percent(101)).is_err());
}

// ---- kernels that cannot launch ----

#[test]
fn impossible_kernels_are_errors() {
    let l = h100();
    assert!(matches!(
        occupancy(&l, &kernel(1025, 32, 0, 0)),
        Err(OccupancyError::TooManyThreads {
            threads: 1025,
            max: 1024
        })
    ));
    assert!(matches!(
        occupancy(&l, &kernel(256, 256, 0, 0)),
        Err(OccupancyError::TooManyRegsPerThread {
            regs: 256,
            max: 255
        })
    ));
    assert!(matches!(
        occupancy(&l, &kernel(0, 32, 0, 0)),
        Err(OccupancyError::NoThreads)
    ));
    // 1024 threads at 65 registers need 32 × 2304 > 65536 registers; 64 is the most.
    let e = occupancy(&l, &kernel(1024, 65, 0, 0)).unwrap_err();
    assert!(
        matches!(e, OccupancyError::TooManyRegsPerBlock { max_regs: 64, .. }),
        "{e:?}"
    );
    assert_eq!(
        occupancy(&l, &kernel(1024, 64, 0, 0))
            .unwrap()
            .blocks_per_sm,
        1
    );
    // Static + dynamic over the 227 KB opt-in.
    let e = occupancy(&l, &kernel(128, 32, 16 * 1024, 212 * 1024)).unwrap_err();
    assert!(matches!(e, OccupancyError::TooMuchSharedMemory { .. }));
    assert!(e.to_string().contains("232448"), "{e}");
}

#[test]
fn unknown_arch_is_an_error() {
    let e = "sm_61".parse::<Arch>().unwrap_err();
    assert!(
        e.to_string().contains("unknown architecture `sm_61`"),
        "{e}"
    );
    assert!(e.to_string().contains("sm_90"), "{e}");
    // The flag is refused as it is read, naming the architectures the table knows.
    let e = Cli::try_parse_from(["calc", "--arch", "gfx90a"])
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("unknown architecture `gfx90a`") && e.to_string().contains("sm_90"),
        "{e}"
    );
}

// ---- cudaOccupancyMaxPotentialBlockSize ----

#[test]
fn max_potential_block_size_cases() {
    // Nothing binds before the SM is full: the largest block.
    let b = max_potential_block_size(&h100(), &kernel(0, 32, 0, 0), None).unwrap();
    assert_eq!((b.block_size, b.blocks_per_sm, b.occupancy), (1024, 2, 1.0));
    // 40 registers: 48 warps at most; 768 is the largest block that reaches them (512 ties).
    let mut l = a100();
    l.sm_count = Some(108);
    let b = max_potential_block_size(&l, &kernel(0, 40, 0, 0), None).unwrap();
    assert_eq!(
        (b.block_size, b.blocks_per_sm, b.warps_per_sm),
        (768, 2, 48)
    );
    assert_eq!(b.min_grid_size, Some(216));
    // A limit that is not a warp multiple is itself a candidate; 64 threads fill the SM first.
    let b = max_potential_block_size(&h100(), &kernel(0, 32, 0, 0), Some(100)).unwrap();
    assert_eq!((b.block_size, b.blocks_per_sm), (64, 32));
    // 100 KB per block on sm_90: two blocks per SM whatever the size, so the largest wins.
    let b = max_potential_block_size(&h100(), &kernel(0, 32, 0, 100 * 1024), None).unwrap();
    assert_eq!((b.block_size, b.blocks_per_sm), (1024, 2));
    // Too much shared memory for any block size.
    assert!(max_potential_block_size(&h100(), &kernel(0, 32, 0, 300 * 1024), None).is_err());
}

// ---- curves ----

#[test]
fn curves_cover_their_axes() {
    let l = h100();
    let [regs, block, smem] = all_curves(&l, &kernel(256, 40, 0, 0));
    assert_eq!((regs.axis, regs.points.len()), (Axis::Registers, 255));
    assert_eq!(regs.points[32].x, 33);
    assert_eq!(regs.points[32].warps_per_sm, 48);
    assert_eq!((block.axis, block.points.len()), (Axis::BlockSize, 32));
    assert_eq!(block.points.last().unwrap().x, 1024);
    assert_eq!(smem.axis, Axis::DynamicSharedMemory);
    assert_eq!(smem.points.len() as u32, 227 * 1024 / 128 + 1);
    assert!(smem
        .points
        .windows(2)
        .all(|w| w[1].blocks_per_sm <= w[0].blocks_per_sm));
    assert_eq!(smem.points.last().unwrap().blocks_per_sm, 1);
    // 1024-thread blocks at high register counts cannot launch: zero, with the reason.
    let [regs, _, _] = all_curves(&l, &kernel(1024, 32, 0, 0));
    let p = &regs.points[100];
    assert_eq!(p.blocks_per_sm, 0);
    assert!(p.error.as_deref().unwrap().contains("registers"));
}

// ---- the command line ----

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    calc: CalcArgs,
}

fn parse(args: &[&str]) -> CalcArgs {
    let mut v = vec!["calc"];
    v.extend_from_slice(args);
    Cli::try_parse_from(v).unwrap().calc
}

#[test]
fn sizes_parse_as_users_type_them() {
    assert_eq!(parse_size("16K"), Ok(16 * 1024));
    assert_eq!(parse_size("48k"), Ok(48 * 1024));
    assert_eq!(parse_size("16KB"), Ok(16 * 1024));
    assert_eq!(parse_size("16KiB"), Ok(16 * 1024));
    assert_eq!(parse_size("1M"), Ok(1024 * 1024));
    assert_eq!(parse_size("1.5K"), Ok(1536));
    assert_eq!(parse_size("4096"), Ok(4096));
    assert_eq!(parse_size("0"), Ok(0));
    for bad in ["", "K", "abc", "1.1K", "-1", "16G", "99999999999"] {
        assert!(parse_size(bad).is_err(), "{bad}");
    }
    let a = parse(&["--smem", "16K", "--dyn-smem", "48K"]);
    assert_eq!((a.smem, a.dyn_smem), (16 * 1024, 48 * 1024));
    let mut v = vec!["calc", "--smem", "lots"];
    assert!(Cli::try_parse_from(&v).is_err());
    v[1] = "--arch";
    v.push("--device");
    v.push("0");
    assert!(
        Cli::try_parse_from(&v).is_err(),
        "--arch and --device conflict"
    );
}

#[test]
fn calc_prints_the_block_limits() {
    let out = host::calculator::run(&parse(&[
        "--arch",
        "sm_80",
        "--threads",
        "256",
        "--regs",
        "40",
        "--smem",
        "16K",
    ]))
    .unwrap();
    assert!(out.contains("Block Limit Registers"), "{out}");
    assert!(out.contains("48 of 64 warps"), "{out}");
    assert!(out.contains("75.0%"), "{out}");
    assert!(out.contains("limited by registers"), "{out}");

    let out = host::calculator::run(&parse(&[
        "--arch",
        "sm_90",
        "--regs",
        "33",
        "--cliff",
        "--curves",
        "--max-potential-block-size",
        "--sms",
        "132",
    ]))
    .unwrap();
    assert!(out.contains("seed says 51"), "{out}");
    assert!(out.contains("max potential block size"), "{out}");
    assert!(out.contains("occupancy vs registers/thread"), "{out}");
    assert!(out.contains("occupancy vs dynamic smem"), "{out}");

    let json = host::calculator::run(&parse(&["--arch", "sm_90", "--curves", "--json"])).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["occupancy"]["blocks_per_sm"], 8);
    assert_eq!(v["curves"][1]["points"].as_array().unwrap().len(), 32);

    // More threads than any block holds is refused as the flag is read, naming its range.
    let e = Cli::try_parse_from(["calc", "--arch", "sm_90", "--threads", "2048"])
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("--threads: 2048 is not in 1..=1024"),
        "{e}"
    );
    // A kernel the architecture cannot hold is a usage error.
    let e = host::calculator::run(&parse(&["--arch", "sm_70", "--smem", "200K"])).unwrap_err();
    assert!(e.is::<host::flags::UsageError>(), "{e:#}");
    assert!(
        format!("{e:#}").contains("sm_70 cannot launch this kernel"),
        "{e:#}"
    );
}

// ---- golden files ----

#[test]
fn ptx_entries_and_dense_sizes() {
    let ptx =
        ".visible .entry gemm_tm4_tn4(\n\t.param .u64 a\n)\n{\n}\n.visible .entry memcpy_t1(\n)";
    assert_eq!(ptx_entries(ptx), vec!["gemm_tm4_tn4", "memcpy_t1"]);
    let l = h100();
    let sizes = dense_dyn_smem(&l, 4096);
    assert!(sizes.windows(2).all(|w| w[0] < w[1]));
    assert!(*sizes.last().unwrap() <= 227 * 1024 - 4096);
    // The edge where 2 blocks stop fitting: 228 KB / 2 - 1 KB reserved - 4 KB static.
    assert!(sizes.contains(&(114 * 1024 - 1024 - 4096)));
}

#[test]
fn golden_file_round_trips() {
    let text = "\
# attributes: {\"name\":\"Test GPU\",\"compute_capability\":[9,0],\"sm_count\":132,\"warp_size\":32,\"max_threads_per_block\":1024,\"max_threads_per_sm\":2048,\"max_blocks_per_sm\":32,\"regs_per_sm\":65536,\"regs_per_block\":65536,\"smem_per_sm\":233472,\"smem_per_block\":49152,\"smem_per_block_optin\":232448,\"reserved_smem_per_block\":1024}
entry,reg_cap,threads,regs,static_smem,dyn_smem,driver_blocks
k,0,256,40,16384,0,6
k,0,1024,65,0,0,0
";
    let g = GoldenFile::parse(text).unwrap();
    assert_eq!(g.rows.len(), 2);
    assert_eq!(GoldenFile::parse(&g.render()).unwrap(), g);
    let table = g.table_limits().unwrap();
    let device = Limits::from_attributes(&g.attributes);
    assert_eq!(table_vs_device(&table, &device), vec![]);
    assert!(replay(&g.rows, &table).mismatches.is_empty());
    // A wrong driver figure is caught.
    let bad = GoldenFile::parse(&text.replace(",6\n", ",7\n")).unwrap();
    assert_eq!(replay(&bad.rows, &table).mismatches.len(), 1);
    assert!(GoldenFile::parse("entry\nk,1,2\n").is_err());
}

#[test]
fn golden_h200_replays_with_zero_mismatches() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/occupancy_golden_h200.csv"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!(
            "SKIP: {path} not recorded yet (record it on the H200 with \
             `host calc --record-golden {path}`)"
        );
        return;
    };
    let golden = GoldenFile::parse(&text).unwrap();
    assert!(golden.rows.len() > 1000, "only {} rows", golden.rows.len());
    let table = golden.table_limits().unwrap();
    let device = Limits::from_attributes(&golden.attributes);
    assert_eq!(
        table_vs_device(&table, &device),
        vec![],
        "the {} table differs from the recorded device",
        table.name
    );
    let r = replay(&golden.rows, &table);
    assert!(r.mismatches.is_empty(), "{}", r.summary(30));
    let r = replay(&golden.rows, &device);
    assert!(r.mismatches.is_empty(), "{}", r.summary(30));
}

#[test]
fn the_recorded_golden_file_renders_back_byte_identical() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/occupancy_golden_h200.csv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let g = GoldenFile::parse(&text).unwrap();
    assert_eq!(g.render(), text);
}
