//! The runs committed under `results/`: their CSVs hold numbers column by column (what a user
//! loading them into pandas or a spreadsheet gets), every file the code renders from their
//! `results.json` is the one committed, and that `results.json` (schema version 1, written before
//! the version was stated) still loads into the same data and writes back byte for byte.

use std::path::{Path, PathBuf};

use host::experiments::RunResults;
use host::report::merge::load;
use host::results::SCHEMA_VERSION;
use host::results_io::tables;
use host::run_json::{holds_run_json, read_run_json, RESULTS_JSON};

mod support;
use support::each_in_parallel;

/// The CSV columns that hold text: names (a variant, entry, op, fixed binary, chosen line, the
/// kernel cuBLAS ran, the shape of a sweep's row), the limiter and the line choice in words,
/// whether a check passed and each row's flags. Every other column must hold numbers.
const TEXT_COLUMNS: &[&str] = &[
    "Variant",
    "Entry",
    "Family",
    "Limiter",
    "Verified",
    "flags",
    "Op",
    "Binary",
    "Line",
    "cuBLAS kernel",
    "Shape MxNxK",
    "Why (the rule's words)",
];

/// Whether `name` is a text column: one of [`TEXT_COLUMNS`], or the compared module's check.
fn declared_text(name: &str) -> bool {
    TEXT_COLUMNS.contains(&name) || name.ends_with(" verified")
}

/// Every folder under `results/` holding a run.
fn committed_runs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| holds_run_json(p))
        .collect();
    runs.sort();
    assert!(
        runs.len() >= 2,
        "the committed runs are not under {}",
        root.display()
    );
    runs
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("host-committed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn every_committed_csv_holds_numbers_column_by_column() {
    let mut numbers = 0;
    for dir in committed_runs() {
        let results = load(&dir).unwrap();
        for (name, table) in tables(&results) {
            let path = dir.join(format!("{name}.csv"));
            let mut reader = csv::Reader::from_path(&path).unwrap();
            let header: Vec<String> = reader
                .headers()
                .unwrap()
                .iter()
                .map(str::to_owned)
                .collect();
            let declared = table.csv_header();
            let names: Vec<&str> = declared.iter().map(|h| h.name.as_str()).collect();
            assert_eq!(
                header,
                names,
                "{}: not the columns the code writes (regenerate it: host report {} --out NEW)",
                path.display(),
                dir.display()
            );
            let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
            assert!(!records.is_empty(), "{}: no rows", path.display());
            for (i, column) in declared.iter().enumerate() {
                if !column.numeric {
                    assert!(
                        declared_text(&column.name),
                        "{}: column {:?} holds text but is not one of the text columns",
                        path.display(),
                        column.name
                    );
                    continue;
                }
                for (row, record) in records.iter().enumerate() {
                    let field = &record[i];
                    if field.is_empty() {
                        continue;
                    }
                    let x: f64 = field.parse().unwrap_or_else(|e| {
                        panic!(
                            "{} row {} column {:?}: {field:?} is not a number ({e})",
                            path.display(),
                            row + 2,
                            column.name
                        )
                    });
                    assert!(x.is_finite(), "{}: {field:?}", path.display());
                    numbers += 1;
                }
            }
        }
    }
    // The five experiments of one run and three of another hold thousands of figures.
    assert!(numbers > 5000, "only {numbers} numbers read");
}

/// `host report DIR --out NEW` of each committed run, the regeneration a user runs, writes every
/// file the committed folder holds for it byte for byte: report.md (its verdicts, under the rules of
/// today's code), tables.md, the CSVs, the plots and results.json. A rule or a rendering that
/// changes without `scripts/rerender-committed.sh` in the same commit fails here.
#[test]
fn every_committed_run_regenerates_byte_for_byte_report_included() {
    let rendered = each_in_parallel(&committed_runs(), |dir| {
        let mut differ = Vec::new();
        let mut reports = 0;
        let out = temp_dir(&dir.file_name().unwrap().to_string_lossy());
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_host"))
            .arg("report")
            .arg(dir)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "host report {} --out {}: {}",
            dir.display(),
            out.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let mut written: Vec<PathBuf> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        written.sort();
        for fresh in written {
            let file = fresh.file_name().unwrap();
            reports += usize::from(file == "report.md");
            let committed = dir.join(file);
            // A packed run's results.json is its results.json.gz, decompressed.
            let held = if file == RESULTS_JSON && !committed.exists() {
                read_run_json(dir, u64::MAX).1.ok()
            } else {
                std::fs::read(&committed).ok()
            };
            if held != Some(std::fs::read(&fresh).unwrap()) {
                differ.push(committed.display().to_string());
            }
        }
        std::fs::remove_dir_all(&out).unwrap();
        (differ, reports)
    });
    let differ: Vec<String> = rendered.iter().flat_map(|(d, _)| d.clone()).collect();
    let reports: usize = rendered.iter().map(|(_, r)| r).sum();
    assert!(
        differ.is_empty(),
        "not what the code renders from their results.json (or missing): {differ:?}; \
         re-render every committed run with scripts/rerender-committed.sh and say on the runs' \
         pages in docs/runs/ which verdicts moved"
    );
    assert_eq!(
        reports,
        committed_runs().len(),
        "a run without its report.md"
    );
}

/// The committed runs recorded before the schema version read as version 1, those recorded since
/// as the version they state; their module names and GEMM families read into the struct and the
/// enum, and every one writes back as it was.
#[test]
fn runs_without_a_schema_version_read_as_version_1_and_write_back_unchanged() {
    let (mut unversioned, mut with_compared) = (0, 0);
    for dir in committed_runs() {
        let text = String::from_utf8(read_run_json(&dir, u64::MAX).1.unwrap()).unwrap();
        let results: RunResults = serde_json::from_str(&text).unwrap();
        if text.contains("\"schema_version\"") {
            assert_eq!(results.schema_version, SCHEMA_VERSION, "{}", dir.display());
        } else {
            assert_eq!(results.schema_version, 1, "{}", dir.display());
            unversioned += 1;
        }
        assert_eq!(
            results.meta.module,
            host::kernel_source::name::RunModules::single(
                host::kernel_source::name::ModuleSource::BuiltIn
            )
        );
        // A run of one experiment alone (e.g. the shape sweep) may compare no module.
        if let Some(compared) = results.meta.compare_module.as_ref() {
            assert!(
                matches!(
                    compared.first,
                    host::kernel_source::name::ModuleSource::File(_)
                ),
                "{compared:?}"
            );
            with_compared += 1;
        }
        assert_eq!(serde_json::to_string_pretty(&results).unwrap() + "\n", text);
    }
    assert!(
        unversioned >= 2,
        "the runs of 2026-11-29 and 2026-11-30 state no version"
    );
    assert!(with_compared >= 2, "the compared modules' names were read");
}

#[test]
fn a_run_recorded_now_states_its_version_and_a_newer_one_is_refused() {
    let dir = &committed_runs()[0];
    let recorded = load(dir).unwrap();
    let results = RunResults::empty(recorded.meta.clone(), recorded.device.clone());
    assert_eq!(results.schema_version, SCHEMA_VERSION);
    let json = serde_json::to_value(&results).unwrap();
    assert_eq!(json["schema_version"], SCHEMA_VERSION);
    let back: RunResults = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, results);

    let mut newer = json;
    newer["schema_version"] = serde_json::json!(SCHEMA_VERSION + 1);
    let out = temp_dir("newer");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("results.json"), newer.to_string()).unwrap();
    let err = load(&out).unwrap_err().to_string();
    assert!(
        err.contains("schema_version is 3") && err.contains("reads versions 1 to 2"),
        "{err}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}
