//! Reading the listings the build tests check: a PTX entry's body and loops, its fma and mma
//! operands, and an entry's SASS (nvdisasm's text): its instructions, its FP32 ones.

use std::path::Path;

use kernels_gpu::variants::FmaOp;
use ptxas_report::toolkit;

/// The text of `entry`'s body.
pub fn body_of<'a>(ptx: &'a str, entry: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {entry}(")).unwrap();
    let open = start + ptx[start..].find("\n{").unwrap();
    let close = open + ptx[open..].find("\n}").unwrap();
    &ptx[open..close]
}

/// The instructions of each loop of a body: from a label to the branch back to it.
pub fn loops(body: &str) -> Vec<Vec<&str>> {
    let lines: Vec<&str> = body.lines().map(str::trim).collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(at) = line.find("bra") else { continue };
        let target = line[at..]
            .split_whitespace()
            .nth(1)
            .unwrap()
            .trim_end_matches(';');
        if let Some(head) = lines[..i].iter().position(|l| *l == format!("{target}:")) {
            found.push(lines[head + 1..i].to_vec());
        }
    }
    found
}

/// `(dest, x, a, b)` of `fma.rn.f32 dest, x, a, b;`.
pub fn fma_operands(line: &str) -> Option<[&str; 4]> {
    let rest = line
        .strip_prefix("fma.rn.f32")?
        .trim()
        .trim_end_matches(';');
    let ops: Vec<&str> = rest.split(',').map(str::trim).collect();
    ops.try_into().ok()
}

/// The chains of a loop's fmas, an fma continuing the chain whose latest value it reads: the
/// length of each chain, in order of first appearance.
pub fn chain_lengths(fmas: &[[&str; 4]]) -> Vec<u32> {
    let mut latest: std::collections::HashMap<&str, usize> = Default::default();
    let mut lengths: Vec<u32> = Vec::new();
    for [dest, x, ..] in fmas {
        let chain = match latest.get(x) {
            Some(&c) => c,
            None => {
                lengths.push(0);
                lengths.len() - 1
            }
        };
        lengths[chain] += 1;
        latest.insert(dest, chain);
    }
    lengths
}

/// The instruction every tensor-core entry is built on.
pub const MMA: &str = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";

/// The four register groups `{d..}, {a..}, {b..}, {c..}` of an mma line.
pub fn mma_operands(line: &str) -> Option<[&str; 4]> {
    let rest = line.strip_prefix(MMA)?;
    let groups: Vec<&str> = rest
        .split('{')
        .skip(1)
        .map(|g| g.split('}').next().unwrap_or_default().trim())
        .collect();
    groups.try_into().ok()
}

/// nvdisasm's listing (`-c`) of `cubin`. nvdisasm ([`toolkit::NVDISASM`]): $NVDISASM, else beside ptxas (a CUDA
/// toolkit's bin); pip's ptxas wheel has none, so `.ci/run` installs pip's
/// `nvidia-cuda-nvdisasm` and sets NVDISASM.
///
/// A whole module takes nvdisasm seconds and a test reads one module per entry it checks, so a
/// listing is kept for the rest of the test binary under the cubin's bytes (a cubin written again
/// at the same path is listed again).
pub fn nvdisasm(cubin: &Path) -> String {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Listing = Arc<OnceLock<String>>;
    static LISTED: Mutex<Option<HashMap<Vec<u8>, Listing>>> = Mutex::new(None);
    let bytes = std::fs::read(cubin).unwrap_or_else(|e| panic!("{}: {e}", cubin.display()));
    // One cell per cubin, filled outside the lock: tests listing other cubins go on meanwhile.
    let cell = LISTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .entry(bytes)
        .or_default()
        .clone();
    cell.get_or_init(|| listed(cubin)).clone()
}

fn listed(cubin: &Path) -> String {
    let nvdisasm = toolkit::NVDISASM
        .find(&toolkit::ProcessEnv, &Path::is_file)
        .expect("ptxas");
    let out = std::process::Command::new(&nvdisasm)
        .arg("-c")
        .arg(cubin)
        .output()
        .unwrap_or_else(|e| panic!("{} ($NVDISASM, else beside ptxas): {e}", nvdisasm.display()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The instructions of `entry`'s SASS in `sass` (nvdisasm's listing), in order, each as printed
/// without its `;`: "  /*0040*/  FFMA R6, R6, R2, R3 ;  /* 0x... */" gives the text between the
/// address comment and the encoding comment.
pub fn sass_instructions<'a>(sass: &'a str, entry: &str) -> Vec<&'a str> {
    sass_body(sass, entry)
        .lines()
        .filter_map(instruction_text)
        .collect()
}

/// The loops of `entry`'s SASS in `sass`: for each branch back to a label above it, the
/// instructions from the label to the branch, as [`sass_instructions`] gives them.
pub fn sass_loops<'a>(sass: &'a str, entry: &str) -> Vec<Vec<&'a str>> {
    let code = sass_instructions(sass, entry);
    sass_loop_spans(sass, entry)
        .into_iter()
        .map(|span| code[span].to_vec())
        .collect()
}

/// The loops of `entry`'s SASS in `sass` as ranges of [`sass_instructions`]' indices: for each
/// branch back to a label above it, from the label to the branch (both included).
pub fn sass_loop_spans(sass: &str, entry: &str) -> Vec<std::ops::Range<usize>> {
    let mut code = 0;
    let mut labels: std::collections::HashMap<&str, usize> = Default::default();
    let mut spans = Vec::new();
    for line in sass_body(sass, entry).lines() {
        if let Some(label) = line
            .trim()
            .strip_suffix(':')
            .filter(|l| l.starts_with(".L_x_"))
        {
            labels.insert(label, code);
            continue;
        }
        let Some(text) = instruction_text(line) else {
            continue;
        };
        code += 1;
        // "@!P0 BRA `(.L_x_1)": the target between the parentheses.
        if sass_mnemonic(text) == Some("BRA") {
            let target = text.split('(').nth(1).and_then(|r| r.split(')').next());
            if let Some(&head) = target.and_then(|t| labels.get(t)) {
                spans.push(head..code);
            }
        }
    }
    spans
}

/// The innermost of `entry`'s loops ([`sass_loop_spans`]) that hold an instruction of mnemonic
/// `op` (its prefix, e.g. "HGMMA"): those around no other such loop (a K loop around the spin of
/// a barrier wait is one).
pub fn sass_inner_loops<'a>(sass: &'a str, entry: &str, op: &str) -> Vec<Vec<&'a str>> {
    let code = sass_instructions(sass, entry);
    let spans: Vec<_> = sass_loop_spans(sass, entry)
        .into_iter()
        .filter(|s| code[s.clone()].iter().any(|c| is_sass_op(c, op)))
        .collect();
    spans
        .iter()
        .filter(|s| {
            !spans
                .iter()
                .any(|o| o != *s && s.start <= o.start && o.end <= s.end)
        })
        .map(|s| code[s.clone()].to_vec())
        .collect()
}

/// The mnemonic of a SASS instruction as [`sass_instructions`] gives it, its guard ("@!P0")
/// skipped.
pub fn sass_mnemonic(code: &str) -> Option<&str> {
    code.split_whitespace().find(|w| !w.starts_with('@'))
}

/// Whether the SASS instruction `code` ([`sass_instructions`]) has a mnemonic starting with `op`
/// ("HGMMA", "R2UR", "SHF.R").
pub fn is_sass_op(code: &str, op: &str) -> bool {
    sass_mnemonic(code).is_some_and(|m| m.starts_with(op))
}

/// `entry`'s part of nvdisasm's listing: from its `.text.` label to the next one.
fn sass_body<'a>(sass: &'a str, entry: &str) -> &'a str {
    let start = sass
        .find(&format!(".text.{entry}:"))
        .unwrap_or_else(|| panic!("{entry}: no SASS"));
    let body = &sass[start..];
    &body[..body[1..].find(".text.").map_or(body.len(), |e| e + 1)]
}

/// The instruction of a listing line, between its address comment and its `;`; `None` for a
/// label or directive.
fn instruction_text(line: &str) -> Option<&str> {
    let after = &line[line.find("*/")? + 2..];
    Some(after[..after.find(';').unwrap_or(after.len())].trim())
}

/// The FP32 instructions of `entry`'s SASS in `sass` (nvdisasm's listing), operands as printed
/// (`.reuse` flags dropped): `(mnemonic, operands)`.
pub fn fp32_instructions(sass: &str, entry: &str) -> Vec<(String, Vec<String>)> {
    sass_instructions(sass, entry)
        .into_iter()
        .filter_map(|code| {
            // A guarded (`@P0 FFMA`) or suffixed (`FMUL.FTZ`) form counts too, under its whole
            // mnemonic, so that no other form of the op slips past the callers' checks.
            let op = sass_mnemonic(code)?;
            let base = op.split('.').next()?;
            ["FFMA", "FADD", "FMUL"].contains(&base).then(|| {
                let rest = code.split_once(op).map_or("", |(_, r)| r);
                let operands = rest
                    .split(',')
                    .map(|o| o.trim().trim_end_matches(".reuse").to_owned())
                    .collect();
                (op.to_owned(), operands)
            })
        })
        .collect()
}

/// Whether a SASS operand is a general register.
pub fn is_register(o: &str) -> bool {
    o.strip_prefix('R')
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Whether one instruction is the form `op` is built to ([`FmaOp::sass`]).
pub fn is_op_form(op: FmaOp, (mnemonic, o): &(String, Vec<String>)) -> bool {
    let same_xs = o.len() == 4 && o[0] == o[1] && o[1] == o[3] && is_register(&o[0]);
    match op {
        FmaOp::Ffma => mnemonic == "FFMA" && o.len() == 4 && o.iter().all(|r| is_register(r)),
        FmaOp::Fadd => mnemonic == "FADD" && o.len() == 3 && o.iter().all(|r| is_register(r)),
        FmaOp::Fmul => mnemonic == "FMUL" && o.len() == 3 && o.iter().all(|r| is_register(r)),
        FmaOp::FfmaImm => mnemonic == "FFMA" && same_xs && o[2].parse::<f32>().is_ok(),
        FmaOp::FfmaConst => {
            mnemonic == "FFMA" && same_xs && (o[2].starts_with("UR") || o[2].starts_with("c["))
        }
    }
}
