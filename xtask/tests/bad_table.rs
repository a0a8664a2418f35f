//! A variant table line that cannot work is rejected at compile time with its label.
//! Each case copies kernels-gpu to a scratch folder, adds one bad line, and `cargo check`s it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Checks kernels-gpu with `line` added after `anchor`; returns cargo's stderr on failure.
fn check_with_line(case: &str, anchor: &str, line: &str) -> Result<(), String> {
    check_with_edit(case, anchor, &format!("{anchor}\n        {line}"))
}

/// Checks kernels-gpu with the first `from` in the table replaced by `to`; returns cargo's
/// stderr on failure.
fn check_with_edit(case: &str, from: &str, to: &str) -> Result<(), String> {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let scratch: PathBuf = ws.join("target").join("bad-table").join(case);
    let _ = std::fs::remove_dir_all(&scratch);
    copy_dir(&ws.join("kernels-gpu"), &scratch.join("kernels-gpu"));
    let table = scratch.join("kernels-gpu/src/variants.rs");
    let text = std::fs::read_to_string(&table).unwrap();
    assert!(text.contains(from), "`{from}` not in variants.rs");
    std::fs::write(&table, text.replacen(from, to, 1)).unwrap();
    // A standalone workspace: edition and version are spelled out, not inherited.
    let manifest = scratch.join("kernels-gpu/Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap();
    let toml = toml
        .replace("edition.workspace = true", "edition = \"2021\"")
        .replace("version.workspace = true", "version = \"0.0.0\"")
        .replace("license.workspace = true", "")
        + "\n[workspace]\n";
    std::fs::write(&manifest, toml).unwrap();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["check", "--quiet", "--offline", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(scratch.join("target"))
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

const GEMM_ANCHOR: &str = "(\"D+\",    seed { block: (64, 64, 8), thread: (16, 16) }),";
const COPY_ANCHOR: &str = "(\"T14f4\",     32,    14,     4),";

#[test]
fn a_good_extra_line_compiles() {
    check_with_line(
        "good",
        GEMM_ANCHOR,
        "(\"E\", seed { block: (64, 64, 8), thread: (4, 8) }),",
    )
    .expect("a valid new tile shape is accepted");
}

#[test]
fn more_than_1024_threads_is_rejected() {
    let err = check_with_line(
        "threads",
        GEMM_ANCHOR,
        "(\"X1\", seed { block: (64, 64, 8), thread: (1, 2) }),",
    )
    .unwrap_err();
    assert!(
        err.contains("gemm variant X1") && err.contains("1024"),
        "{err}"
    );
}

#[test]
fn a_sub_tile_that_does_not_divide_is_rejected() {
    let err = check_with_line(
        "divide",
        GEMM_ANCHOR,
        "(\"X3\", seed { block: (64, 64, 8), thread: (3, 4) }),",
    )
    .unwrap_err();
    assert!(
        err.contains("gemm variant X3") && err.contains("does not divide"),
        "{err}"
    );
}

#[test]
fn a_seed_line_with_another_block_tile_is_rejected() {
    let err = check_with_line(
        "seedblock",
        GEMM_ANCHOR,
        "(\"X4\", seed { block: (128, 128, 8), thread: (8, 8) }),",
    )
    .unwrap_err();
    assert!(
        err.contains("gemm variant X4") && err.contains("64x64x8"),
        "{err}"
    );
}

#[test]
fn a_good_tuned_line_compiles() {
    check_with_line(
        "tunedgood",
        GEMM_ANCHOR,
        "(\"G1\", tuned { block: (128, 128, 8), warp: (64, 32), thread: (8, 8), stages: 2 }),",
    )
    .expect("a valid tuned shape is accepted");
}

/// Each bad tuned line, and the words its error must contain besides its label.
const BAD_TUNED: &[(&str, &str, &str)] = &[
    (
        "Y1",
        "block: (128, 128, 8), warp: (64, 32), thread: (6, 8), stages: 3",
        "4x4 blocks",
    ),
    (
        "Y2",
        "block: (128, 128, 8), warp: (64, 64), thread: (8, 8), stages: 3",
        "32 thread tiles",
    ),
    (
        "Y3",
        "block: (128, 96, 8), warp: (64, 64), thread: (8, 16), stages: 3",
        "does not divide the block tile",
    ),
    (
        "Y4",
        "block: (512, 256, 8), warp: (32, 32), thread: (4, 8), stages: 3",
        "1024 threads",
    ),
    (
        "Y5",
        "block: (128, 128, 4), warp: (32, 32), thread: (4, 8), stages: 3",
        "split the A and B slices",
    ),
    (
        "Y6",
        "block: (128, 128, 8), warp: (64, 32), thread: (8, 8), stages: 1",
        "stages must be 2..=8",
    ),
    (
        "Y7",
        "block: (256, 256, 32), warp: (64, 64), thread: (16, 8), stages: 8",
        "227 KB",
    ),
];

#[test]
fn bad_tuned_lines_are_rejected_by_name() {
    for (label, shape, words) in BAD_TUNED {
        let line = format!("(\"{label}\", tuned {{ {shape} }}),");
        let err = check_with_line(&format!("tuned{label}"), GEMM_ANCHOR, &line)
            .expect_err("a bad tuned line must not compile");
        assert!(
            err.contains(&format!("gemm variant {label}")) && err.contains(words),
            "{label}: {err}"
        );
    }
}

#[test]
fn a_width_other_than_1_2_4_is_rejected() {
    let err = check_with_line("width", COPY_ANCHOR, "(\"W3\", 64, 8, 3),").unwrap_err();
    assert!(
        err.contains("memcpy variant W3") && err.contains("WIDTH"),
        "{err}"
    );
}

#[test]
fn more_than_1024_copy_threads_is_rejected() {
    let err = check_with_line("copythreads", COPY_ANCHOR, "(\"Big\", 2048, 1, 1),").unwrap_err();
    assert!(err.contains("memcpy variant Big"), "{err}");
}

const GRID_THREADS: &str = "threads [32, 64, 128, 256, 512, 1024],";
const GRID_LOADS: &str = "loads [1, 2, 3, 4, 6, 8, 12, 14, 16, 24, 32],";
const GRID_WIDTHS: &str = "widths [1, 2, 4],";

#[test]
fn a_grid_width_other_than_1_2_4_is_rejected() {
    let err = check_with_edit("grid-width", GRID_WIDTHS, "widths [1, 2, 3, 4],").unwrap_err();
    assert!(
        err.contains("memcpy grid: width 3 is not 1, 2 or 4"),
        "{err}"
    );
}

#[test]
fn grid_threads_of_0_or_over_1024_are_rejected() {
    let err = check_with_edit(
        "grid-threads0",
        GRID_THREADS,
        "threads [0, 32, 64, 128, 256, 512, 1024],",
    )
    .unwrap_err();
    assert!(
        err.contains("memcpy grid: threads 0 is outside 1..=1024"),
        "{err}"
    );
    let err = check_with_edit(
        "grid-threads2048",
        GRID_THREADS,
        "threads [32, 64, 128, 256, 512, 1024, 2048],",
    )
    .unwrap_err();
    assert!(
        err.contains("memcpy grid: threads 2048 is outside 1..=1024"),
        "{err}"
    );
}

#[test]
fn a_grid_value_given_twice_is_rejected() {
    let err = check_with_edit(
        "grid-dup",
        GRID_LOADS,
        "loads [1, 2, 3, 4, 6, 8, 8, 12, 14, 16, 24, 32],",
    )
    .unwrap_err();
    assert!(
        err.contains("memcpy grid: the loads list must be strictly ascending"),
        "{err}"
    );
}

#[test]
fn grid_loads_of_0_are_rejected() {
    let err = check_with_edit(
        "grid-loads0",
        GRID_LOADS,
        "loads [0, 1, 2, 3, 4, 6, 8, 12, 14, 16, 24, 32],",
    )
    .unwrap_err();
    assert!(
        err.contains("memcpy grid: loads 0 is outside 1..=64"),
        "{err}"
    );
}

#[test]
fn a_labelled_point_off_the_grid_is_rejected() {
    let err = check_with_line("offgrid", COPY_ANCHOR, "(\"Off\", 96, 1, 1),").unwrap_err();
    assert!(
        err.contains("memcpy variant Off: (96, 1, 1) is not a point of the memcpy grid line"),
        "{err}"
    );
}

#[test]
fn a_new_label_on_a_grid_point_compiles() {
    check_with_line("ongrid", COPY_ANCHOR, "(\"T4f4\", 256, 4, 4),")
        .expect("a label on a grid point is accepted");
}

#[test]
fn fma_and_chase_lines_are_checked() {
    let err = check_with_edit("fma0", "fma_ilp: [1, 2, 3,", "fma_ilp: [0, 1, 2, 3,").unwrap_err();
    assert!(
        err.contains("fma_ilp line: ILP 0 is outside 1..=32"),
        "{err}"
    );
    let err =
        check_with_edit("chase64", "(\"chase_u32\", 128)", "(\"chase_u32\", 64)").unwrap_err();
    assert!(err.contains("chase line: slots of 64 bytes"), "{err}");
}

const BF16_ANCHOR: &str =
    "(\"M6\",    mma { block: (64, 64, 32), warp: (32, 32), mma: (16, 8, 16), stages: 4 }),";

#[test]
fn a_good_bf16_line_compiles() {
    check_with_line(
        "bf16good",
        BF16_ANCHOR,
        "(\"G2\", mma { block: (128, 64, 64), warp: (64, 32), mma: (16, 8, 16), stages: 3 }),",
    )
    .expect("a valid tensor-core shape is accepted");
}

/// Each bad BF16 GEMM line, and the words its error must contain besides its label.
const BAD_BF16: &[(&str, &str, &str)] = &[
    (
        "Z1",
        "block: (128, 128, 32), warp: (64, 64), mma: (16, 8, 8), stages: 3",
        "m16n8k16",
    ),
    (
        "Z2",
        "block: (128, 192, 32), warp: (64, 48), mma: (16, 8, 16), stages: 3",
        "power of two",
    ),
    (
        "Z3",
        "block: (96, 128, 32), warp: (64, 64), mma: (16, 8, 16), stages: 3",
        "does not divide the block tile",
    ),
    (
        "Z4",
        "block: (512, 256, 32), warp: (16, 64), mma: (16, 8, 16), stages: 3",
        "1024 threads",
    ),
    (
        "Z5",
        "block: (128, 128, 32), warp: (128, 64), mma: (16, 8, 16), stages: 3",
        "128 accumulators",
    ),
    (
        "Z6",
        "block: (128, 128, 48), warp: (64, 64), mma: (16, 8, 16), stages: 3",
        "BK must be 32 or a multiple of 64",
    ),
    (
        "Z7",
        "block: (128, 96, 32), warp: (64, 32), mma: (16, 8, 16), stages: 3",
        "BN must be a multiple of 64",
    ),
    (
        "Z8",
        "block: (64, 128, 32), warp: (16, 16), mma: (16, 8, 16), stages: 3",
        "16-byte chunks evenly",
    ),
    (
        "Z9",
        "block: (128, 128, 32), warp: (64, 64), mma: (16, 8, 16), stages: 9",
        "stages must be 2..=8",
    ),
    (
        "Z10",
        "block: (256, 256, 64), warp: (64, 64), mma: (16, 8, 16), stages: 4",
        "227 KB",
    ),
];

/// All bad lines at once (the compiler reports every failing check), each error naming its line.
#[test]
fn bad_bf16_lines_are_rejected_by_name() {
    let lines: Vec<String> = BAD_BF16
        .iter()
        .map(|(label, shape, _)| format!("(\"{label}\", mma {{ {shape} }}),"))
        .collect();
    let err = check_with_line("bf16bad", BF16_ANCHOR, &lines.join("\n        "))
        .expect_err("bad tensor-core lines must not compile");
    for (label, _, words) in BAD_BF16 {
        let named = format!("gemm_bf16 variant {label}: ");
        let line = err
            .lines()
            .find(|l| l.contains(&named))
            .unwrap_or_else(|| panic!("{label} not named in:\n{err}"));
        assert!(line.contains(words), "{label}: {line}");
    }
}

#[test]
fn a_bf16_label_taken_by_a_gemm_line_or_a_bad_mma_ilp_is_rejected() {
    let err = check_with_line(
        "bf16dup",
        BF16_ANCHOR,
        "(\"R1\", mma { block: (64, 64, 32), warp: (32, 32), mma: (16, 8, 16), stages: 3 }),",
    )
    .unwrap_err();
    assert!(err.contains("gemm_bf16: two lines share a label"), "{err}");
    let err =
        check_with_edit("mma0", "mma_bf16_ilp: [1, 2,", "mma_bf16_ilp: [0, 1, 2,").unwrap_err();
    assert!(
        err.contains("mma_bf16_ilp line: ILP 0 is outside 1..=16"),
        "{err}"
    );
}

#[test]
fn bad_shared_memory_copy_lines_are_rejected_by_name() {
    let smem = "(256,       2048,        4),         //   8 KiB (64 KiB a block)";
    let err = check_with_line("smem-stage", smem, "(32, 1000, 4),").unwrap_err();
    assert!(
        err.contains("smem_copy line (32, 1000, 4)") && err.contains("multiple of 512"),
        "{err}"
    );
    let tma = "(128,       4096,        4),         //  16 KiB (64 KiB a block)";
    let err = check_with_line("tma-stages", tma, "(32, 4096, 16),").unwrap_err();
    assert!(
        err.contains("tma_copy line (32, 4096, 16)") && err.contains("at most 8 stages"),
        "{err}"
    );
}

#[test]
fn bad_persistent_copy_lines_are_rejected_by_name() {
    let anchor = "(1024,      8,     1),     // 32 KiB";
    check_with_line("persistent-good", anchor, "(512, 4, 2),").expect("a good line compiles");
    for (case, line, words) in [
        ("persistent-warps", "(100, 4, 4),", "(100, 4, 4)"),
        ("persistent-width", "(256, 4, 3),", "(256, 4, 3)"),
        ("persistent-registers", "(1024, 16, 4),", "(1024, 16, 4)"),
    ] {
        let err = check_with_line(case, anchor, line).unwrap_err();
        assert!(
            err.contains(&format!("persistent_copy line {words}")),
            "{case}: {err}"
        );
    }
    let err = check_with_line("persistent-twice", anchor, "(1024, 8, 1),").unwrap_err();
    assert!(
        err.contains("two lines share threads, loads and width"),
        "{err}"
    );
}

const WGEMM_ANCHOR: &str =
    "(\"W8\",    wgmma { block: (128, 256, 64), stages: 3, consumers: 2, cluster: 1 }), // 384";

/// Lines of turns (`wgmma_turns`): W10 (W9, which is in the table, in clusters of two) compiles;
/// W9's tiles again under another label share its entry and are refused; bad ones, and a line that
/// shares 64-row tiles between two consumers, are rejected, each error naming its line (all at
/// once: the compiler reports every failing check).
#[test]
fn lines_of_turns_are_checked_by_name() {
    check_with_line(
        "turns_good",
        WGEMM_ANCHOR,
        "(\"W10\", wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 2 }),",
    )
    .expect("W10's line compiles");
    let err = check_with_line(
        "turns_twice",
        WGEMM_ANCHOR,
        "(\"W9b\", wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 1 }),",
    )
    .expect_err("a second W9 must not compile");
    assert!(
        err.contains("gemm_wgmma: two lines share a label or an entry"),
        "{err}"
    );
    let bad = [
        (
            "WT3",
            "wgmma_turns { block: (128, 128, 64), stages: 4, consumers: 3, cluster: 1 }",
            "wgmma_turns needs two consumers",
        ),
        (
            "WT4",
            "wgmma_turns { block: (128, 256, 64), stages: 4, consumers: 2, cluster: 1 }",
            "the accumulators and fragments do not fit",
        ),
        (
            "WT5",
            "wgmma { block: (64, 256, 64), stages: 4, consumers: 2, cluster: 1 }",
            "BM must be 64 per consumer warpgroup",
        ),
    ];
    let lines: Vec<String> = bad
        .iter()
        .map(|(label, line, _)| format!("(\"{label}\", {line}),"))
        .collect();
    let err = check_with_line("turns_bad", WGEMM_ANCHOR, &lines.join("\n        "))
        .expect_err("bad lines of turns must not compile");
    for (label, _, words) in bad {
        let named = format!("gemm_wgmma line {label}: ");
        let line = err
            .lines()
            .find(|l| l.contains(&named))
            .unwrap_or_else(|| panic!("{label} not named in:\n{err}"));
        assert!(line.contains(words), "{label}: {line}");
    }
}
