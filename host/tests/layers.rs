//! The host's modules are layered: each may use those of its own layer or below, never one above
//! (lib.rs lists the layers). Read from the source; test code (`#[cfg(test)] mod tests`, files
//! ending in `_test.rs`) may reach anywhere.

use std::collections::BTreeSet;
use std::path::Path;

/// Top-level modules of `host/src` by layer, lowest first.
const LAYERS: &[&[&str]] = &[
    &[
        "results",
        "kernel_source",
        "table",
        "cell",
        "regular_file",
        "atomic_file",
        "run_json",
        "stdout",
        "flag_values",
        "sample_scan",
        "phase_log",
    ],
    &["claim", "confidence", "figure", "occupancy"],
    &["cuda"],
    &["sampling", "flags", "out_dir"],
    &["calculator"],
    &["experiments"],
    &["across"],
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

// ---- The import graph between host/src files: circles and cross-experiment imports ----

/// One token of Rust source: an identifier or keyword, `::`, or a single punctuation character.
/// Comments, string and character literals are dropped, so a path inside them is never read.
fn tokens(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if (ch == 'r' || ch == 'b') && {
            let mut j = i + 1;
            if ch == 'b' && c.get(j) == Some(&'r') {
                j += 1;
            }
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            c.get(j) == Some(&'"') && (j > i + 1 || ch == 'b')
        } {
            // raw or byte string: r"..", r#".."#, b"..", br#".."#
            let mut j = i + 1;
            let raw = ch == 'r' || c.get(j) == Some(&'r');
            if ch == 'b' && c.get(j) == Some(&'r') {
                j += 1;
            }
            let mut hashes = 0;
            while c[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if !raw && c[j] == '\\' {
                    j += 2;
                } else if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                } else {
                    j += 1;
                }
            }
            i = j;
        } else if ch == '"' {
            i += 1;
            while c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' {
            // a character literal ('a', '\n', '\u{..}') or a lifetime ('a)
            if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && ident(c[i]) {
                    i += 1;
                }
            }
        } else if ident(ch) {
            let s = i;
            while i < c.len() && ident(c[i]) {
                i += 1;
            }
            out.push(c[s..i].iter().collect());
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else {
            out.push(ch.to_string());
            i += 1;
        }
    }
    out
}

/// Drops every item under `#[cfg(test)]` (a `mod tests { .. }`, a `mod x_test;`, a test-only `use`
/// or function): test code may reach anywhere.
fn without_test_items(t: Vec<String>) -> Vec<String> {
    let cfg_test = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i..].iter().take(7).map(String::as_str).eq(cfg_test) {
            i += 7;
            let mut depth = 0;
            while i < t.len() {
                match t[i].as_str() {
                    "{" => depth += 1,
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    ";" if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            out.push(t[i].clone());
            i += 1;
        }
    }
    out
}

/// Expands one `use` tree (the tokens between `use` and `;`) into its paths, each with the name it
/// binds (`None` for a glob).
fn use_paths(t: &[String], prefix: &[String], out: &mut Vec<(Vec<String>, Option<String>)>) {
    // split at top-level commas
    let mut depth = 0;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, s) in t.iter().enumerate() {
        match s.as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            "," if depth == 0 => {
                parts.push(&t[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&t[start..]);
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        let mut path = prefix.to_vec();
        let mut i = 0;
        if part[0] == "::" {
            i = 1;
        }
        loop {
            match part.get(i).map(String::as_str) {
                Some("{") => {
                    use_paths(&part[i + 1..part.len() - 1], &path, out);
                    break;
                }
                Some("*") => {
                    out.push((path, None));
                    break;
                }
                Some(name) => {
                    if name != "self" || path.is_empty() {
                        path.push(name.to_string());
                    }
                    match part.get(i + 1).map(String::as_str) {
                        Some("::") => i += 2,
                        Some("as") => {
                            out.push((path, Some(part[i + 2].clone())));
                            break;
                        }
                        _ => {
                            let bound = path.last().cloned();
                            out.push((path, bound));
                            break;
                        }
                    }
                }
                None => break,
            }
        }
    }
}

struct SourceFile {
    rel: String,
    module: Vec<String>,
    /// every `use`: the path as written and the name it binds
    uses: Vec<(Vec<String>, Option<String>)>,
    /// every other path in the code that starts at `crate`, `super`, `self` or a child module
    paths: Vec<Vec<String>>,
}

fn read_sources() -> Vec<SourceFile> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    files
        .iter()
        .filter_map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            // main.rs is another crate; _test.rs files are test code
            (rel != "main.rs" && !rel.ends_with("_test.rs"))
                .then(|| parse(&rel, &std::fs::read_to_string(f).unwrap()))
        })
        .collect()
}

/// One file of `host/src` (`rel` its path there) read from its text.
fn parse(rel: &str, text: &str) -> SourceFile {
    let mut module: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
        module.pop();
    }
    let t = without_test_items(tokens(text));
    let mut uses = Vec::new();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let after_colons = i > 0 && t[i - 1] == "::";
        if t[i] == "use" {
            let end = i + t[i..].iter().position(|s| s == ";").unwrap();
            use_paths(&t[i + 1..end], &[], &mut uses);
            i = end + 1;
        } else if !after_colons
            && t[i]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
            && t.get(i + 1).is_some_and(|s| s == "::")
        {
            let mut path = vec![t[i].clone()];
            let mut j = i + 1;
            while t.get(j).is_some_and(|s| s == "::")
                && t.get(j + 1)
                    .is_some_and(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_'))
            {
                path.push(t[j + 1].clone());
                j += 2;
            }
            // A path through a macro's metavariable (`super::$field::Spec`) names an item the
            // scan cannot know; its known head alone would name the wrong file.
            let through_metavariable =
                t.get(j).is_some_and(|s| s == "::") && t.get(j + 1).is_some_and(|s| s == "$");
            if !through_metavariable {
                paths.push(path);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    SourceFile {
        rel: rel.to_owned(),
        module,
        uses,
        paths,
    }
}

fn module_file(files: &[SourceFile], m: &[String]) -> Option<usize> {
    files.iter().position(|f| f.module == m)
}

/// The absolute module path of a path written in `f`: `crate::`, `self::`, `super::`, a child
/// module, or a name `f` imported (`use super::row; row::fill()`); `None` for another crate's.
fn absolute(
    files: &[SourceFile],
    f: &SourceFile,
    p: &[String],
    hops: usize,
) -> Option<Vec<String>> {
    let mut base = f.module.clone();
    let mut rest = p;
    match p.first()?.as_str() {
        "crate" => {
            base.clear();
            rest = &p[1..];
        }
        "self" => rest = &p[1..],
        "super" => {}
        first => {
            let mut child = base.clone();
            child.push(first.to_string());
            if module_file(files, &child).is_none() {
                if hops > 16 {
                    return None;
                }
                let Some((used, _)) = f.uses.iter().find(|(_, b)| b.as_deref() == Some(first))
                else {
                    // a module a glob brought in (`use crate::experiments::*; ilp::run()`)
                    return f
                        .uses
                        .iter()
                        .filter(|(_, b)| b.is_none())
                        .filter_map(|(glob, _)| absolute(files, f, glob, hops + 1))
                        .find(|m| {
                            let mut child = m.clone();
                            child.push(first.to_string());
                            module_file(files, &child).is_some()
                        })
                        .map(|mut m| {
                            m.extend_from_slice(p);
                            m
                        });
                };
                if used.first().map(String::as_str) == Some(first) {
                    return None;
                }
                let mut whole = used.clone();
                whole.extend_from_slice(&p[1..]);
                return absolute(files, f, &whole, hops + 1);
            }
        }
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend_from_slice(rest);
    Some(base)
}

/// The file that defines the item at an absolute path, followed through re-exports.
fn defining(files: &[SourceFile], abs: &[String], hops: usize) -> Option<usize> {
    let n = (0..=abs.len())
        .rev()
        .find(|&n| module_file(files, &abs[..n]).is_some())?;
    let file = module_file(files, &abs[..n])?;
    let Some(name) = abs.get(n) else {
        return Some(file);
    };
    let f = &files[file];
    let reexport = f
        .uses
        .iter()
        .find(|(_, b)| b.as_deref() == Some(name.as_str()));
    if let (Some((used, _)), true) = (reexport, hops < 16) {
        if let Some(mut target) = absolute(files, f, used, 0) {
            target.extend_from_slice(&abs[n + 1..]);
            return defining(files, &target, hops + 1).or(Some(file));
        }
    }
    Some(file)
}

/// The graph of imports between files: `edges[a]` holds every file whose item file `a` names,
/// through a `use` (grouped or not) or a path in the code, followed through re-exports to the
/// file that defines it.
fn import_graph(files: &[SourceFile]) -> Vec<BTreeSet<usize>> {
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let written = f.uses.iter().map(|(p, _)| p).chain(&f.paths);
            written
                .filter_map(|p| absolute(files, f, p, 0))
                .filter_map(|abs| defining(files, &abs, 0))
                .filter(|&j| j != i)
                .collect()
        })
        .collect()
}

/// The strongly connected components of more than one file (Tarjan): each is an import circle.
fn circles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn no_import_circle_among_host_files() {
    let files = read_sources();
    let edges = import_graph(&files);
    let arrows: usize = edges.iter().map(BTreeSet::len).sum();
    assert!(
        arrows > 300,
        "only {arrows} imports between files: is the scan reading the sources?"
    );
    let found = circles(&edges);
    let files = &files;
    let words: Vec<String> = found
        .iter()
        .map(|c| {
            let ties: Vec<String> = c
                .iter()
                .flat_map(|&a| {
                    edges[a]
                        .iter()
                        .filter(|b| c.contains(b))
                        .map(move |&b| format!("  {} -> {}", files[a].rel, files[b].rel))
                })
                .collect();
            format!("circle of {} files:\n{}", c.len(), ties.join("\n"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "{} import circles among host/src files (break them: move the shared items below both):\n{}",
        found.len(),
        words.join("\n")
    );
}

/// The experiment folder a file belongs to (`experiments/ilp/row.rs` -> `ilp`): a folder the
/// registry lists; the other files and folders of `experiments/` are shared rooms, no experiment's.
fn experiment_folder(rel: &str) -> Option<&str> {
    let mut parts = rel.strip_prefix("experiments/")?.split('/');
    let folder = parts.next()?;
    parts.next()?;
    host::experiments::registry::NAMES
        .contains(&folder)
        .then_some(folder)
}

/// Every import from one experiment folder into another, as `importer -> imported` files,
/// whatever the path syntax (`crate::experiments::ilp::..`, `super::super::ilp::..`, a grouped
/// `use super::{ilp::..}`, an alias, a glob, a path in the code, a re-export by a shared room).
fn cross_experiment_imports(files: &[SourceFile]) -> BTreeSet<String> {
    let edges = import_graph(files);
    let mut cross = BTreeSet::new();
    for (a, targets) in edges.iter().enumerate() {
        for &b in targets {
            let (from, to) = (
                experiment_folder(&files[a].rel),
                experiment_folder(&files[b].rel),
            );
            if from.is_some() && to.is_some() && from != to {
                cross.insert(format!("{} -> {}", files[a].rel, files[b].rel));
            }
        }
    }
    cross
}

/// An experiment is one folder and one registry line: what two experiments share lives in a room
/// below them (a file directly in `experiments/`), never in one of them.
#[test]
fn no_experiment_imports_another() {
    let cross = cross_experiment_imports(&read_sources());
    assert!(
        cross.is_empty(),
        "an experiment imports another (move what they share below both):\n{cross:#?}"
    );
}

/// The detector itself, on made-up files: every way of writing a path to another experiment is
/// caught; a shared room, the experiment's own files, comments, strings and test code are not.
#[test]
fn every_path_syntax_to_another_experiment_is_caught() {
    let shared = [
        (
            "experiments/mod.rs",
            "pub mod ilp; pub mod mma; pub mod cells; pub use ilp::plan::layout;",
        ),
        ("experiments/cells.rs", "pub fn cell() {}"),
        ("experiments/ilp/mod.rs", "pub mod plan; pub mod run;"),
        (
            "experiments/ilp/plan.rs",
            "pub fn layout() {} pub struct Layout;",
        ),
        ("experiments/ilp/run.rs", "pub fn mean_clock_mhz() {}"),
        ("experiments/mma/mod.rs", "pub mod run; pub mod table;"),
        ("experiments/mma/table.rs", "pub fn columns() {}"),
    ];
    let caught = |code: &str| {
        let mut files: Vec<SourceFile> = shared.iter().map(|(r, t)| parse(r, t)).collect();
        files.push(parse("experiments/mma/run.rs", code));
        cross_experiment_imports(&files)
    };
    for code in [
        "use super::super::ilp::run::mean_clock_mhz;",
        "use crate::experiments::ilp::plan::layout;",
        "use super::super::{cells, ilp::plan::Layout};",
        "use crate::experiments::{cells, ilp::{plan::layout, run}};",
        "use crate::experiments::ilp::{self, plan};",
        "use crate::experiments::ilp;",
        "use crate::experiments::ilp::run::*;",
        "use crate::experiments as ex; fn f() { ex::ilp::run::mean_clock_mhz() }",
        "use crate::experiments::*; fn f() { ilp::run::mean_clock_mhz() }",
        "fn f() { crate::experiments::ilp::plan::layout() }",
        "fn f() { super::super::ilp::plan::layout() }",
        "fn f() -> Vec<crate::experiments::ilp::plan::Layout> { Vec::new() }",
        "use crate::experiments::layout;",
    ] {
        assert!(!caught(code).is_empty(), "not caught: {code}");
    }
    for code in [
        "use super::table::columns; use super::super::cells::cell;",
        "use crate::experiments::cells;",
        "// use crate::experiments::ilp::plan::layout;",
        r#"const S: &str = "crate::experiments::ilp::plan::layout";"#,
        "#[cfg(test)]\nmod tests { use crate::experiments::ilp::plan::layout; }",
    ] {
        assert!(
            caught(code).is_empty(),
            "caught, wrongly: {code}\n{:?}",
            caught(code)
        );
    }
}
/// The registry (the list's per-experiment types, what is done over every experiment, the run
/// loop and the run's record) sits above the experiments: no experiment folder imports it. Its
/// own uses of the folders go through the list's macro, which the scan does not follow, so a
/// circle through it would not show as one.
#[test]
fn no_experiment_imports_the_registry() {
    const ABOVE: &[&str] = &[
        "experiments/roster.rs",
        "experiments/registry.rs",
        "experiments/run_loop.rs",
        "experiments/record.rs",
        "experiments/resume.rs",
    ];
    let files = read_sources();
    let edges = import_graph(&files);
    let wrong: Vec<String> = edges
        .iter()
        .enumerate()
        .filter(|(a, _)| experiment_folder(&files[*a].rel).is_some())
        .flat_map(|(a, targets)| {
            let files = &files;
            targets
                .iter()
                .filter(|&&b| ABOVE.contains(&files[b].rel.as_str()))
                .map(move |&b| format!("{} -> {}", files[a].rel, files[b].rel))
        })
        .collect();
    assert!(
        ABOVE.iter().all(|f| files.iter().any(|s| s.rel == *f)),
        "a file of the registry moved: update ABOVE"
    );
    assert!(
        wrong.is_empty(),
        "an experiment imports the registry:\n{wrong:#?}"
    );
}
