//! The runs committed under `results/`: their CSVs hold numbers column by column (what a user
//! loading them into pandas or a spreadsheet gets), every file the code renders from their
//! `results.json` is the one committed, and that `results.json` (schema version 1, written before
//! the version was stated) still loads into the same data and writes back byte for byte.

use std::path::{Path, PathBuf};

use host::experiments::RunResults;
use host::report::merge::load;
use host::results::SCHEMA_VERSION;
use host::results_io::{tables, write_results};

/// The CSV columns that hold text: names (a variant, entry, op or fixed binary), the limiter in words, whether a check passed and each
/// row's flags. Every other column must hold numbers.
const TEXT_COLUMNS: &[&str] = &[
    "Variant", "Entry", "Family", "Limiter", "Verified", "flags", "Op", "Binary",
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
        .filter(|p| p.join("results.json").is_file())
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

/// `host report DIR --out NEW` of each committed run writes the committed tables and CSVs, and its
/// results.json unchanged.
#[test]
fn the_committed_files_are_what_the_code_renders_from_their_results() {
    for dir in committed_runs() {
        let results = load(&dir).unwrap();
        let out = temp_dir(&dir.file_name().unwrap().to_string_lossy());
        for written in write_results(&out, &results).unwrap() {
            let file = written.file_name().unwrap();
            let committed = std::fs::read_to_string(dir.join(file)).unwrap();
            let fresh = std::fs::read_to_string(&written).unwrap();
            assert!(
                committed == fresh,
                "{}: the code renders it differently (regenerate: host report {} --out NEW)",
                dir.join(file).display(),
                dir.display()
            );
        }
        std::fs::remove_dir_all(&out).unwrap();
    }
}

/// The committed runs recorded before the schema version read as version 1, those recorded since
/// as the version they state; their module names and GEMM families read into the struct and the
/// enum, and every one writes back as it was.
#[test]
fn runs_without_a_schema_version_read_as_version_1_and_write_back_unchanged() {
    let mut unversioned = 0;
    for dir in committed_runs() {
        let text = std::fs::read_to_string(dir.join("results.json")).unwrap();
        let results: RunResults = serde_json::from_str(&text).unwrap();
        if text.contains("\"schema_version\"") {
            assert_eq!(results.schema_version, SCHEMA_VERSION, "{}", dir.display());
        } else {
            assert_eq!(results.schema_version, 1, "{}", dir.display());
            unversioned += 1;
        }
        assert_eq!(
            results.meta.module,
            host::module_name::RunModules::single(host::module_name::ModuleSource::BuiltIn)
        );
        let compared = results.meta.compare_module.as_ref().unwrap();
        assert!(
            matches!(compared.first, host::module_name::ModuleSource::File(_)),
            "{compared:?}"
        );
        assert_eq!(serde_json::to_string_pretty(&results).unwrap() + "\n", text);
    }
    assert!(
        unversioned >= 2,
        "the runs of 2026-11-29 and 2026-11-30 state no version"
    );
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
