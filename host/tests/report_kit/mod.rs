//! What the report tests share: the stored hand-made fixture, scratch folders, verdict lookups,
//! readers of the SVG and Markdown outputs, and the row editors that turn the fixture into the
//! cases each rule must judge.

#![allow(dead_code, unused_imports)]

pub use std::path::{Path, PathBuf};

pub use host::claim::Verdict;
pub use host::experiments::RunResults;
pub use host::figure::Labels;
pub use host::report::{self, CurvePlot};
pub use host::results::Comparison;

#[path = "../cublas_fixture/mod.rs"]
mod cublas_fixture;
pub use cublas_fixture::with_cublas;

pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_fixture")
}

pub fn fixture() -> RunResults {
    report::merge::load(&fixture_dir()).expect("fixture loads")
}

pub fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

pub fn by_key<'a>(vs: &'a [Verdict], key: &str) -> &'a Verdict {
    vs.iter()
        .find(|v| v.key == key)
        .unwrap_or_else(|| panic!("no verdict {key}"))
}

pub fn judge(r: &RunResults, key: &str) -> Verdict {
    by_key(&r.verdicts(), key).clone()
}

/// Parses an SVG as XML and returns the text of its `<text>` elements.
pub fn svg_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("800"));
    assert_eq!(root.attribute("height"), Some("500"));
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

/// The rows of every Markdown table in `md`, each as its trimmed cells (separator lines left out).
pub fn md_rows(md: &str) -> Vec<Vec<String>> {
    md.lines()
        .filter(|l| l.starts_with('|') && !l.contains("---"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// Whether some table row of `md` starts with `cells`.
pub fn has_row(md: &str, cells: &[&str]) -> bool {
    md_rows(md)
        .iter()
        .any(|r| r.len() >= cells.len() && r.iter().zip(cells).all(|(a, b)| a == b))
}

pub fn has(texts: &[String], needle: &str) -> bool {
    texts.iter().any(|t| t.contains(needle))
}

pub fn gemm_mut<'a>(
    r: &'a mut RunResults,
    label: &str,
) -> &'a mut host::experiments::occupancy::GemmRow {
    r.occupancy
        .as_mut()
        .unwrap()
        .rows
        .iter_mut()
        .find(|x| x.variant == label)
        .unwrap()
}

pub fn copy_mut<'a>(
    r: &'a mut RunResults,
    label: &str,
) -> &'a mut host::experiments::bandwidth::CopyRow {
    r.bandwidth
        .as_mut()
        .unwrap()
        .rows
        .iter_mut()
        .find(|x| x.variant == label)
        .unwrap()
}

pub fn cap_mut(r: &mut RunResults, cap: u32) -> &mut host::experiments::regs::RegsRow {
    r.regs
        .as_mut()
        .unwrap()
        .iter_mut()
        .find(|x| x.cap == cap)
        .unwrap()
}

pub const PEAK: &str = "peak-below-max-occupancy";
pub const FASTEST: &str = "fastest-gemm-at-low-occupancy";

pub const ACC: &str = "more-accumulators-at-equal-occupancy";
pub const FALLS: &str = "falls-past-peak";
pub const FEW: &str = "few-threads-match-many";
pub const FLAT: &str = "bandwidth-flat-over-occupancy";
pub const SPILLS: &str = "throughput-rises-as-spills-fall";
pub const FIRST_FREE: &str = "first-spill-free-cap-is-best";
pub const MORE_REGS: &str = "more-registers-do-not-help";

pub fn with_comparison(mut r: RunResults) -> RunResults {
    let cmp = |throughput: f64, regs: u32, timing: &host::results::Timing, check| Comparison {
        // Two more than ours, within the 255 a thread can have.
        regs: (regs + 2).min(255),
        throughput: throughput * 0.9,
        ratio: 1.0 / 0.9,
        spill_stores: Some(0),
        spill_loads: Some(0),
        timing: timing.clone(),
        check,
    };
    r.meta.compare_module = Some("nvcc (hand-made)".into());
    for x in &mut r.occupancy.as_mut().unwrap().rows {
        x.measured.compare = Some(cmp(
            x.figures.gflops,
            x.figures.regs,
            &x.figures.timing,
            x.measured.check.clone(),
        ));
    }
    for x in &mut r.bandwidth.as_mut().unwrap().rows {
        x.measured.compare = Some(cmp(x.gbps, x.regs, &x.timing, x.measured.check.clone()));
    }
    for x in r.regs.as_mut().unwrap() {
        x.measured.compare = Some(cmp(
            x.figures.gflops,
            x.figures.regs,
            &x.figures.timing,
            x.measured.check.clone(),
        ));
    }
    r
}

/// Boxes of the coloured (point and reference-line) labels, estimated as the placer does.
pub fn label_boxes(path: &Path) -> Vec<(String, f64, f64, f64, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter(|n| n.attribute("fill") != Some("#000000") && n.attribute("transform").is_none())
        .filter(|n| n.attribute("text-anchor") == Some("start"))
        .filter_map(|n| {
            let s = n.text()?.trim().to_string();
            let x: f64 = n.attribute("x")?.parse().ok()?;
            let y: f64 = n.attribute("y")?.parse().ok()?;
            let fs: f64 = n.attribute("font-size")?.parse().ok()?;
            let w = s.chars().count() as f64 * fs * 0.6;
            Some((s, x, y, x + w, y + fs * 1.15))
        })
        .collect()
}

/// The cells of the first Markdown table row of `md` that starts with `first`.
pub fn md_row(md: &str, first: &[&str]) -> Vec<String> {
    md.lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.len() >= first.len() && cells[..first.len()] == *first)
        .unwrap_or_else(|| panic!("no row {first:?} in\n{md}"))
}

pub const CAP_HELPS: &str = "cap-helps-without-spills";
pub const SMEM: &str = "shared-memory-as-fast-as-registers";

pub const CLIFF: &str = "register-cliff";
