//! The docs against the code they describe: verdicts are cited by their key (a verdict's number
//! depends on the experiments a run holds, and moves when a verdict is added), the registry
//! design.md shows is the one in `experiments/mod.rs`, and adding-an-experiment.md walks through
//! the smallest experiment.

use std::path::{Path, PathBuf};

use host::claim::Verdict;
use host::experiments::RunResults;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every verdict of a run of every experiment, in the order a full run's report.md numbers them.
fn all_verdicts() -> Vec<Verdict> {
    let recorded =
        host::report::merge::load(&workspace().join("results/2026-12-02-h200-s8")).unwrap();
    RunResults::empty(recorded.meta, recorded.device).verdicts()
}

/// The files under `dir` (recursively) whose name ends in `ext`.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

/// The prose the docs test reads: the README, docs/ (the run pages included), the committed runs'
/// READMEs and the Rust sources and tests, whose comments and help strings cite verdicts too.
fn cited_in() -> Vec<PathBuf> {
    let ws = workspace();
    let mut out = vec![ws.join("README.md")];
    files(&ws.join("docs"), "md", &mut out);
    // The committed runs' READMEs, not their logs.
    out.extend(
        std::fs::read_dir(ws.join("results"))
            .unwrap()
            .map(|e| e.unwrap().path().join("README.md"))
            .filter(|p| p.is_file()),
    );
    for dir in [
        "host/src",
        "host/tests",
        "xtask/src",
        "xtask/tests",
        "kernels-gpu/src",
    ] {
        files(&ws.join(dir), "rs", &mut out);
    }
    out.retain(|p| !p.ends_with("host/tests/docs.rs"));
    out
}

/// Each "verdict N" (any case, singular or plural) in `text`, with the byte offset where its word
/// starts and N. ("claim N" is left out: a kernel "claims 512 KiB".)
fn numbered_citations(text: &str) -> Vec<(usize, u32)> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    for word in ["verdict"] {
        for (at, _) in lower.match_indices(word) {
            let rest = &lower[at + word.len()..];
            let rest = rest.strip_prefix('s').unwrap_or(rest);
            let Some(rest) = rest.strip_prefix(' ') else {
                continue;
            };
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                out.push((at, n));
            }
        }
    }
    out
}

/// A number alone names no verdict for long: each "verdict N" in the docs, comments and help
/// strings follows the verdict's key in backticks (within the same sentence or so), and N is the
/// number a full run's report prints for that key.
#[test]
fn every_verdict_cited_by_number_is_cited_by_its_key_and_its_number_is_right() {
    let verdicts = all_verdicts();
    assert!(verdicts.len() >= 20, "{} verdicts", verdicts.len());
    let mut bad = Vec::new();
    let mut cited = 0;
    for path in cited_in() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, n) in numbered_citations(&text) {
            let mut from = at.saturating_sub(160);
            while !text.is_char_boundary(from) {
                from -= 1;
            }
            let before = &text[from..at];
            // The nearest key before the number.
            let key = verdicts
                .iter()
                .enumerate()
                .filter_map(|(i, v)| before.rfind(&format!("`{}`", v.key)).map(|pos| (pos, i)))
                .max();
            let line = text[..at].lines().count().max(1);
            let place = format!("{}:{line}", path.display());
            match key {
                None => bad.push(format!("{place}: verdict {n} without its key")),
                Some((_, i)) if i + 1 != n as usize => bad.push(format!(
                    "{place}: `{}` is verdict {} in a full run, not {n}",
                    verdicts[i].key,
                    i + 1
                )),
                Some(_) => cited += 1,
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(cited >= 10, "only {cited} citations read");
}

/// The list of experiments design.md shows is the list in `host/src/experiments/mod.rs`.
#[test]
fn design_md_shows_the_registry_as_it_is() {
    let block = |text: &str| -> Vec<String> {
        let start = text.find("$m! {").expect("the list's block, `$m! {`");
        text[start..]
            .lines()
            .skip(1)
            .take_while(|l| l.trim() != "}")
            .map(|l| l.trim().to_owned())
            .collect()
    };
    let ws = workspace();
    let code = std::fs::read_to_string(ws.join("host/src/experiments/mod.rs")).unwrap();
    let design = std::fs::read_to_string(ws.join("docs/design.md")).unwrap();
    let listed = block(&code);
    assert_eq!(
        listed.len(),
        host::experiments::registry::NAMES.len(),
        "{listed:?}"
    );
    assert_eq!(block(&design), listed);
}

/// adding-an-experiment.md walks through the smallest experiment folder, by lines.
#[test]
fn adding_an_experiment_walks_through_the_smallest_experiment() {
    let ws = workspace();
    let smallest = host::experiments::registry::NAMES
        .iter()
        .map(|name| {
            let mut sources = Vec::new();
            files(
                &ws.join("host/src/experiments").join(name),
                "rs",
                &mut sources,
            );
            let lines: usize = sources
                .iter()
                .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
                .sum();
            (lines, *name)
        })
        .min()
        .unwrap()
        .1;
    let page = std::fs::read_to_string(ws.join("docs/adding-an-experiment.md")).unwrap();
    assert!(
        page.contains(&format!("`{smallest}` is the smallest"))
            && page.contains(&format!("## The smallest, walked through: `{smallest}`")),
        "docs/adding-an-experiment.md should walk through `{smallest}`, the smallest experiment"
    );
}
