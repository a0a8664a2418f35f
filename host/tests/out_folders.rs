//! `--out` never loses a run: a folder holding another run, a merged report or unrelated files is
//! refused (exit code 2, nothing written) unless `--force` is given; a folder holding the same
//! run may be rewritten; `report DIR` rewrites DIR's report and plots only; and `--out` is created
//! only once every other flag and file has passed. No GPU needed.

mod support;

use std::path::Path;

use support::{each_in_parallel, fixture_dir, host, path, run_folder, scratch, stderr};

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

/// The names of the files in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    snapshot(dir).into_iter().map(|(n, _)| n).collect()
}

/// The committed run that regenerates into the most files (every experiment, the wgmma table).
fn richest_committed_run() -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| host::run_json::holds_run_json(p))
        .max_by_key(|p| {
            std::fs::read_dir(p)
                .unwrap()
                .filter(|e| {
                    let n = e.as_ref().unwrap().file_name();
                    let n = n.to_string_lossy();
                    n.ends_with(".csv") || n.ends_with(".svg")
                })
                .count()
        })
        .expect("a committed run under results/")
}

/// `host report DIRS... --out OUT` (with `extra` flags), which must succeed.
fn report_into(dirs: &[&Path], out: &Path, extra: &[&str]) {
    let mut args = vec!["report"];
    args.extend(dirs.iter().map(|d| path(d)));
    args.extend(["--out", path(out)]);
    args.extend(extra);
    let o = host(&args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
}

#[test]
fn a_folder_written_over_another_run_or_merge_holds_the_new_one_only() {
    let root = scratch("out-one-run");
    let rich = richest_committed_run();
    let small = run_folder(&root.join("small"));
    // What the small run alone writes, and its merge with another run alone.
    let fresh = root.join("fresh");
    report_into(&[&small], &fresh, &[]);
    let other = root.join("other");
    other_run(&other);
    let fresh_merge = root.join("fresh-merge");
    report_into(&[&small, &other], &fresh_merge, &[]);

    // A folder of a run with every experiment, and a file of the user's beside it.
    let dir = root.join("dir");
    report_into(&[&rich], &dir, &[]);
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    assert!(
        names(&dir).len() > names(&fresh).len() + 5,
        "{:?}",
        names(&dir)
    );
    report_into(&[&small], &dir, &["--force"]);
    let mut expected = names(&fresh);
    expected.push("notes.txt".to_owned());
    expected.sort();
    assert_eq!(
        names(&dir),
        expected,
        "the old run's files are gone, the user's kept"
    );

    // A merge over a merge of more experiments keeps only its own plots.
    let merged = root.join("merged");
    report_into(&[&rich, &small], &merged, &[]);
    report_into(&[&small, &other], &merged, &[]);
    assert_eq!(names(&merged), names(&fresh_merge));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn every_file_the_writers_write_is_known_as_the_labs() {
    let known = host::report::lab_file_names();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let runs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|run| host::run_json::holds_run_json(run))
        .collect();
    let checked: usize = each_in_parallel(&runs, |run| {
        let results = host::report::merge::load(run).unwrap();
        let out = scratch(&format!(
            "out-known-{}",
            run.file_name().unwrap().to_string_lossy()
        ));
        host::report::write_run(&out, &results).unwrap();
        let names = names(&out);
        for name in &names {
            assert!(
                known.contains(name),
                "{name} (from {}) is not among the lab's files: declare its stem \
                 (Experiment::MORE_CSVS or MORE_PLOTS)",
                run.display()
            );
        }
        std::fs::remove_dir_all(&out).unwrap();
        names.len()
    })
    .into_iter()
    .sum();
    assert!(checked > 20, "only {checked} files checked");
}

#[test]
#[cfg_attr(
    lab_gpu,
    ignore = "a CUDA driver is present: a run failing before it starts needs a machine without one"
)]
fn a_run_that_fails_before_starting_leaves_no_out_folder() {
    assert!(
        !host::cuda::driver_present(),
        "a CUDA driver is present: the failure before the run cannot be seen here"
    );
    let root = scratch("out-no-driver");
    let new = root.join("a/b");
    let o = host(&["occupancy", "--out", path(&new)]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        !root.join("a").exists(),
        "{} was left behind",
        new.display()
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// A folder that cannot be written into while the guard lives: made read-only by its mode, or,
/// for root (whom modes do not stop), by a read-only bind mount.
struct ReadOnly {
    dir: std::path::PathBuf,
    mounted: bool,
}

impl ReadOnly {
    fn new(dir: &Path) -> ReadOnly {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let mut guard = ReadOnly {
            dir: dir.to_owned(),
            mounted: false,
        };
        if std::fs::write(dir.join(".probe"), "x").is_ok() {
            let _ = std::fs::remove_file(dir.join(".probe"));
            let mount = |args: &[&str]| {
                std::process::Command::new("mount")
                    .args(args)
                    .arg(path(dir))
                    .arg(path(dir))
                    .status()
                    .is_ok_and(|s| s.success())
            };
            guard.mounted = mount(&["--bind"]);
            assert!(
                guard.mounted && mount(&["-o", "remount,ro,bind"]),
                "{} stays writable (root without mount): the refusal cannot be seen here",
                dir.display()
            );
        }
        guard
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.mounted {
            let _ = std::process::Command::new("umount").arg(&self.dir).status();
        }
        let _ = std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o755));
    }
}

#[test]
#[cfg(unix)]
fn report_refuses_a_folder_it_cannot_write_before_writing_anything() {
    let root = scratch("report-read-only");
    let dir = run_folder(&root.join("run"));
    let before = snapshot(&dir);
    {
        let _ro = ReadOnly::new(&dir);
        for (args, flag) in [
            (vec!["report", path(&dir)], "report: "),
            (vec!["report", path(&dir), "--out", path(&dir)], "--out: "),
        ] {
            let o = host(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.starts_with(&format!(
                    "error: {flag}{} cannot be written into",
                    dir.display()
                )) && err.contains("nothing was written")
                    && !err.contains("rewriting"),
                "{err}"
            );
        }
    }
    assert_eq!(snapshot(&dir), before);
    std::fs::remove_dir_all(&root).unwrap();
}

/// The header of the merged report's table of figures, split into its columns.
fn figure_columns(report: &str) -> Vec<String> {
    let line = report
        .lines()
        .find(|l| l.starts_with("| Exp."))
        .expect("the table of figures");
    line.split('|')
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect()
}

#[test]
fn merged_runs_on_one_gpu_get_their_own_columns_and_a_folder_twice_is_refused() {
    let root = scratch("merge-columns");
    // Two runs in folders of the same name, both compared with a module of the same name.
    let compared = |dir: &Path, date: &str| {
        run_folder(dir);
        let text = std::fs::read_to_string(dir.join("results.json")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["meta"]["date"] = date.into();
        v["meta"]["compare_label"] = "peer".into();
        v["meta"]["compare_module"] = "/tmp/peer.cubin".into();
        std::fs::write(dir.join("results.json"), v.to_string()).unwrap();
    };
    let a = root.join("a/h200");
    let b = root.join("b/h200");
    compared(&a, "2026-01-01T00:00:00Z");
    compared(&b, "2026-01-02T00:00:00Z");
    let out = root.join("merged");
    report_into(&[&a, &b], &out, &[]);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let columns = figure_columns(&report);
    assert_eq!(columns.len(), 3 + 4, "{columns:?}");
    for (i, c) in columns.iter().enumerate() {
        assert!(!columns[..i].contains(c), "{c} twice: {columns:?}");
    }
    assert!(
        columns
            .iter()
            .any(|c| c.ends_with("· peer (h200, 2026-01-02T00:00:00Z)")),
        "{columns:?}"
    );
    // The same folder twice, however named, is refused before anything is written.
    let again = root.join("a/../a/h200/");
    let out2 = root.join("twice");
    let o = host(&["report", path(&a), path(&again), "--out", path(&out2)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is given twice"), "{err}");
    assert!(!out2.exists());
    std::fs::remove_dir_all(&root).unwrap();
}
