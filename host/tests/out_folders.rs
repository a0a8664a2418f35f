//! `--out` never loses a run: a folder holding another run, a merged report or unrelated files is
//! refused (exit code 2, nothing written) unless `--force` is given; a folder holding the same
//! run may be rewritten; `report DIR` rewrites DIR's report and plots only; and `--out` is created
//! only once every other flag and file has passed. No GPU needed.

mod support;

use std::path::Path;

use support::{fixture_dir, host, path, run_folder, scratch, stderr};

/// Every file in `dir` with its bytes, sorted by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// A folder holding a run other than the fixture's (another date).
fn other_run(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let text = std::fs::read_to_string(fixture_dir().join("results.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["meta"]["date"] = "2026-11-29T08:00:00Z".into();
    v["meta"]["command"] = "host all --out results/h200".into();
    std::fs::write(dir.join("results.json"), v.to_string()).unwrap();
    std::fs::write(dir.join("occupancy.csv"), "the 2026-11-29 data\n").unwrap();
}

#[test]
fn an_experiment_run_refuses_a_folder_holding_another_run_unless_forced() {
    let root = scratch("out-run");
    let old = root.join("h200");
    other_run(&old);
    let before = snapshot(&old);
    let o = host(&["all", "--out", path(&old), "--check-only"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("holds another run (`host all --out results/h200`, 2026-11-29T08:00:00Z)")
            && err.contains("--force"),
        "{err}"
    );
    assert_eq!(snapshot(&old), before, "nothing was written");
    let o = host(&["all", "--out", path(&old), "--check-only", "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_folder_of_unrelated_files_is_refused_and_an_empty_one_taken() {
    let root = scratch("out-other");
    std::fs::write(root.join("notes.txt"), "mine").unwrap();
    let o = host(&["occupancy", "--out", path(&root), "--check-only"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("holds files that are not this lab's results (notes.txt)"),
        "{err}"
    );
    let empty = root.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = host(&["occupancy", "--out", path(&empty), "--check-only"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(empty.is_dir(), "an existing folder stays");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn out_is_created_only_after_every_other_check_and_not_left_by_check_only() {
    let root = scratch("out-last");
    let new = root.join("a/b");
    for args in [
        &["occupancy", "--variants", "Z"][..],
        &["regs", "--caps", "20"],
        &["bandwidth", "--module", "/nonexistent.cubin"],
        &["all", "--size", "100"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--out", path(&new)]);
        let o = host(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!root.join("a").exists(), "{args:?} left {}", new.display());
    }
    let o = host(&["occupancy", "--out", path(&new), "--check-only"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !root.join("a").exists(),
        "--check-only removes the folders it made"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn report_in_place_rewrites_the_rendering_and_never_results_json() {
    let root = scratch("report-in-place");
    let dir = run_folder(&root.join("run"));
    std::fs::write(dir.join("occupancy.csv"), "kept as it is\n").unwrap();
    let json = std::fs::read(dir.join("results.json")).unwrap();
    for args in [
        vec!["report", path(&dir)],
        // --out naming the folder itself is the same as in place.
        vec!["report", path(&dir), "--out", path(&dir)],
    ] {
        let o = host(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!("rewriting the report of {}", dir.display()))
                && err.contains("results.json, tables.md and the CSVs are left as they are"),
            "{err}"
        );
        assert_eq!(std::fs::read(dir.join("results.json")).unwrap(), json);
        assert_eq!(
            std::fs::read_to_string(dir.join("occupancy.csv")).unwrap(),
            "kept as it is\n"
        );
        assert!(dir.join("report.md").is_file());
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn report_regenerates_into_a_new_folder_or_its_own_copy_only() {
    let root = scratch("report-out");
    let src = run_folder(&root.join("src"));
    let copy = root.join("copy");
    for _ in 0..2 {
        // New, then holding the same run: both are fine.
        let o = host(&["report", path(&src), "--out", path(&copy)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(copy.join("results.json").is_file() && copy.join("tables.md").is_file());
    }
    let old = root.join("old");
    other_run(&old);
    let before = snapshot(&old);
    let o = host(&["report", path(&src), "--out", path(&old)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("holds another run"), "{err}");
    assert_eq!(snapshot(&old), before, "the other run is untouched");
    let o = host(&["report", path(&src), "--out", path(&old), "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_merge_may_replace_an_earlier_merge_but_not_a_run() {
    let root = scratch("merge-out");
    let a = run_folder(&root.join("a"));
    let b = root.join("b");
    other_run(&b);
    let merged = root.join("merged");
    for _ in 0..2 {
        let o = host(&["report", path(&a), path(&b), "--out", path(&merged)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let o = host(&["report", path(&a), path(&b), "--out", path(&b)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("holds another run"), "{err}");
    // Regenerating a single run into the merged folder would replace the merge.
    let o = host(&["report", path(&a), "--out", path(&merged)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("a merged report"), "{}", stderr(&o));
    std::fs::remove_dir_all(&root).unwrap();
}
