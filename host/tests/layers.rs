//! The host's modules are layered: each may use those of its own layer or below, never one above
//! (lib.rs lists the layers). Read from the source; test code (`#[cfg(test)] mod tests`, files
//! ending in `_test.rs`) may reach anywhere.

use std::path::Path;

/// Top-level modules of `host/src` by layer, lowest first.
const LAYERS: &[&[&str]] = &[
    &[
        "results",
        "module_name",
        "table",
        "cell",
        "modules",
        "regular_file",
        "atomic_file",
        "stdout",
        "flag_values",
        "sample_scan",
    ],
    &["claim", "confidence", "figure", "occupancy"],
    &["cuda", "module_image"],
    &["sampling", "flags", "module_file", "out_dir"],
    &["calculator"],
    &["experiments"],
    &["results_io", "markdown_text"],
    &["report"],
    &["cli"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_module_uses_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut checked = 0;
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.iter().next().unwrap().to_string_lossy();
        let top = top.trim_end_matches(".rs");
        if top == "main" || top == "lib" || rel.to_string_lossy().ends_with("_test.rs") {
            continue;
        }
        let own = layer(top).unwrap_or_else(|| panic!("{top} is in no layer: add it to LAYERS"));
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let target: String = line[i + 7..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let Some(t) = layer(&target) else { continue };
                checked += 1;
                if t > own {
                    wrong.push(format!(
                        "{}: {top} uses {target}: {}",
                        rel.display(),
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} uses found: is the scan reading the sources?"
    );
    assert!(
        wrong.is_empty(),
        "modules reaching up:\n{}",
        wrong.join("\n")
    );
}
