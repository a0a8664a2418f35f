//! `nvcc/variants.h` and `nvcc/variants_sm90a.h`: the variant table as the CUDA C++ twin
//! (`nvcc/twin.cu`, `nvcc/twin_sm90a.cu`) reads it, one macro invocation per entry of
//! [`entries::entries`] (and of the sm_90a module, [`crate::hopper::hopper_entries`]), so that a
//! table line flows into the twin as it flows into the Rust modules.
//!
//! Each entry maps to the macro of its family (`LAB_GEMM_SEED`, `LAB_GEMM_TUNED`, `LAB_MEMCPY`,
//! `LAB_FMA_ILP`, `LAB_FMA_CONTROL`, `LAB_CHASE`, `LAB_GEMM_BF16`, `LAB_MMA_ILP`, `LAB_READ`,
//! `LAB_SMEM_COPY`, `LAB_PERSISTENT_COPY`, `LAB_PERSISTENT_COPY_SAMPLED`; for sm_90a `LAB_WGMMA_BF16`, `LAB_WGEMM`, `LAB_TMA_MMA`, `LAB_TMA_COPY`)
//! through exhaustive matches on the table's family enums: a new family does not compile here
//! until it is given a macro (and the twin a kernel for it) or is skipped as checking machinery
//! with [`Line::NotMeasured`]. Each header also refuses, with an `#error`, to be included by a
//! file that does not define every macro it uses.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kernels_gpu::entries::{self, EntryDecl, Family};
use kernels_gpu::variants::{
    FmaOp, GemmFamily, GemmVariant, MmaIlpVariant, RingMma, SmemPath, WgemmVariant, BF16_GEMM,
    CHASE, FMA, FMA_CONTROLS, GEMM, MEMCPY_GRID, MMA_ILP, PERSISTENT_COPY, READ, REGS, SMEM_COPY,
    WGEMM, WGMMA_BF16,
};

/// The header, relative to the workspace root.
pub const HEADER: &str = "nvcc/variants.h";
/// The twin's source, relative to the workspace root.
pub const SOURCE: &str = "nvcc/twin.cu";
/// The header of the twin's sm_90a module, relative to the workspace root.
pub const HOPPER_HEADER: &str = "nvcc/variants_sm90a.h";
/// The source of the twin's sm_90a module (built for sm_90a beside [`SOURCE`]).
pub const HOPPER_SOURCE: &str = "nvcc/twin_sm90a.cu";

#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    #[error("table entry `{entry}` ({family:?}) has no line in its family's table")]
    NoLine { entry: String, family: Family },
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What the twin does with one table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A macro invocation that defines the entry: `MACRO(NAME, ...)`.
    Entry {
        name: &'static str,
        invocation: String,
    },
    /// An entry of the lab's checking machinery (not a measured variant): the twin need not
    /// mirror it, and the header says so in a comment.
    NotMeasured {
        name: &'static str,
        why: &'static str,
    },
}

impl Line {
    pub fn name(&self) -> &'static str {
        match self {
            Line::Entry { name, .. } | Line::NotMeasured { name, .. } => name,
        }
    }

    /// The macro this line invokes, if it defines an entry.
    fn macro_name(&self) -> Option<&str> {
        match self {
            Line::Entry { invocation, .. } => invocation.split('(').next(),
            Line::NotMeasured { .. } => None,
        }
    }
}

/// The `TRACE` argument of a GEMM line's macro (`nvcc/twin_block_trace.cuh`): `LAB_TRACED` for a
/// traced twin, `LAB_TIMED` for the line's entry.
fn trace_argument(traced: bool) -> &'static str {
    if traced {
        "LAB_TRACED"
    } else {
        "LAB_TIMED"
    }
}

/// The twin's line for one table entry (a GEMM line's traced twin: the line's macro with the
/// twin's name and `LAB_TRACED`).
pub fn line(e: &EntryDecl) -> Result<Line, HeaderError> {
    let missing = || HeaderError::NoLine {
        entry: e.name.to_owned(),
        family: e.family,
    };
    // The table line is the timed entry's; the name and TRACE are this entry's.
    let timed = e.traces.unwrap_or(e.name);
    let trace = trace_argument(e.traces.is_some());
    let invocation = match e.family {
        Family::Gemm => {
            let v = GEMM.iter().find(|v| v.entry == timed).ok_or_else(missing)?;
            gemm_invocation(v, e.name, trace)
        }
        Family::Memcpy => {
            let p = MEMCPY_GRID
                .iter()
                .find(|p| p.entry == e.name)
                .ok_or_else(missing)?;
            format!(
                "LAB_MEMCPY({}, {}, {}, {})",
                p.entry, p.threads, p.loads, p.width
            )
        }
        Family::FmaIlp => {
            let v = FMA
                .iter()
                .chain(FMA_CONTROLS)
                .find(|v| v.entry == e.name)
                .ok_or_else(missing)?;
            match v.op {
                FmaOp::Ffma => format!("LAB_FMA_ILP({}, {})", v.entry, v.ilp),
                // The op's name is its function in twin_fma_ilp.cuh, as in fma_controls.rs.
                FmaOp::Fadd | FmaOp::Fmul | FmaOp::FfmaImm | FmaOp::FfmaConst => {
                    format!("LAB_FMA_CONTROL({}, {}, {})", v.entry, v.op.name(), v.ilp)
                }
            }
        }
        Family::Chase => format!("LAB_CHASE({})", CHASE.entry),
        Family::GemmRef | Family::GemmCheck | Family::GemmHash => {
            return Ok(Line::NotMeasured {
                name: e.name,
                why: "the GEMM check's own kernel: every timed module is checked by the Rust one",
            })
        }
        Family::Bf16Gemm => {
            let v = BF16_GEMM
                .iter()
                .find(|v| v.entry == timed)
                .ok_or_else(missing)?;
            let s = &v.shape;
            format!(
                "LAB_GEMM_BF16({}, {trace}, {}, {}, {}, {}, {}, {}, {}, {})",
                e.name,
                v.threads(),
                v.dynamic_shared_bytes(),
                s.bm,
                s.bn,
                s.bk,
                s.wm,
                s.wn,
                s.stages
            )
        }
        Family::MmaIlp => {
            let v = MMA_ILP
                .iter()
                .find(|v| v.entry == e.name)
                .ok_or_else(missing)?;
            format!(
                "LAB_MMA_ILP({}, {}, {})",
                v.entry,
                v.ilp,
                MmaIlpVariant::rounds_per_iteration(v.ilp)
            )
        }
        Family::Read => {
            let p = READ
                .iter()
                .find(|p| p.entry == e.name)
                .ok_or_else(missing)?;
            format!(
                "LAB_READ({}, {}, {}, {})",
                p.entry, p.threads, p.loads, p.width
            )
        }
        Family::SmemCopy => {
            let l = SMEM_COPY
                .iter()
                .find(|l| l.entry == e.name)
                .ok_or_else(missing)?;
            format!(
                "LAB_SMEM_COPY({}, {}, {}, {})",
                l.entry,
                l.threads,
                l.chunks_per_lane(),
                l.stages
            )
        }
        Family::PersistentCopy => {
            let l = PERSISTENT_COPY
                .iter()
                .find(|l| l.entry == e.name || l.sampled == e.name)
                .ok_or_else(missing)?;
            // The sampled build of a line (sections/copy_samples.rs) has its own macro.
            let sampled = if l.sampled == e.name { "_SAMPLED" } else { "" };
            format!(
                "LAB_PERSISTENT_COPY{sampled}({}, {}, {}, {})",
                e.name, l.threads, l.loads, l.width
            )
        }
    };
    Ok(Line::Entry {
        name: e.name,
        invocation,
    })
}

/// A GEMM line's invocation for its entry `name` (the line's, or its traced twin's) and `trace`:
/// the launch bound (threads, minimum blocks per SM, 0 for none) first, then the tiles.
fn gemm_invocation(v: &GemmVariant, name: &str, trace: &str) -> String {
    let min_blocks = v.min_blocks_per_sm().unwrap_or(0);
    match v.family {
        GemmFamily::Seed => format!(
            "LAB_GEMM_SEED({name}, {trace}, {}, {min_blocks}, {}, {})",
            v.threads(),
            v.tm,
            v.tn
        ),
        GemmFamily::Tuned => {
            let (wm, wn) = v.warp.expect("a tuned line has a warp tile");
            format!(
                "LAB_GEMM_TUNED({name}, {trace}, {}, {min_blocks}, {}, {}, {}, {}, {wm}, {wn}, {}, {}, {})",
                v.threads(),
                v.dynamic_shared_bytes(),
                v.bm,
                v.bn,
                v.bk,
                v.tm,
                v.tn,
                v.stages
            )
        }
    }
}

/// Every table entry's twin line, in table order, then the traced twins'.
pub fn lines() -> Result<Vec<Line>, HeaderError> {
    entries::all_entries().map(|e| line(&e)).collect()
}

/// The names of the entries the twin defines, in table order.
pub fn twin_entries() -> Result<Vec<&'static str>, HeaderError> {
    Ok(lines()?
        .into_iter()
        .filter_map(|l| match l {
            Line::Entry { name, .. } => Some(name),
            Line::NotMeasured { .. } => None,
        })
        .collect())
}

/// The twin's lines of the sm_90a module, in the order of its entries
/// ([`crate::hopper::hopper_entries`]): the wgmma microbenchmark's (`LAB_WGMMA_BF16`), the
/// `gemm_wgmma` section's (`LAB_WGEMM` for a wgmma line, `LAB_TMA_MMA` for an mma_sync one) and
/// the bulk copies' (`LAB_TMA_COPY`). Each entry of that module is measured: none is left out.
pub fn hopper_lines() -> Vec<Line> {
    let wgmma = WGMMA_BF16.iter().map(|v| Line::Entry {
        name: v.entry,
        invocation: format!("LAB_WGMMA_BF16({}, {}, {})", v.entry, v.n, v.groups),
    });
    let wgemm_line = |v: &'static WgemmVariant, traced: bool| {
        let name = if traced { v.traced_entry() } else { v.entry };
        let trace = trace_argument(traced);
        Line::Entry {
            name,
            invocation: wgemm_invocation(v, name, trace),
        }
    };
    let wgemm = WGEMM.iter().map(|v| wgemm_line(v, false));
    let bulk = SMEM_COPY
        .iter()
        .filter(|l| l.path == SmemPath::Bulk)
        .map(|l| Line::Entry {
            name: l.entry,
            invocation: format!(
                "LAB_TMA_COPY({}, {}, {}, {})",
                l.entry, l.threads, l.stage_bytes, l.stages
            ),
        });
    let traced = WGEMM.iter().map(|v| wgemm_line(v, true));
    wgmma.chain(wgemm).chain(bulk).chain(traced).collect()
}

/// A `gemm_wgmma` line's invocation for its entry `name` (the line's or its traced twin's) and
/// `trace`.
fn wgemm_invocation(v: &WgemmVariant, name: &str, trace: &str) -> String {
    match v.mma {
        RingMma::Wgmma => format!(
            "LAB_WGEMM({name}, {trace}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})",
            v.threads(),
            v.dynamic_shared_bytes(),
            v.bm,
            v.bn,
            v.stages,
            v.consumers,
            v.cluster,
            u8::from(v.turns),
            v.accumulators(),
            v.consumer_regs()
        ),
        RingMma::Sync => format!(
            "LAB_TMA_MMA({name}, {trace}, {}, {}, {}, {}, {}, {})",
            v.threads(),
            v.dynamic_shared_bytes(),
            v.bm,
            v.bn,
            v.stages,
            v.consumers
        ),
    }
}

/// The `#error` guards of a header: one per macro its lines invoke.
fn macro_guards(w: &mut String, lines: &[Line]) {
    let mut macros: Vec<&str> = lines.iter().filter_map(Line::macro_name).collect();
    macros.sort_unstable();
    macros.dedup();
    for m in &macros {
        let _ = writeln!(
            w,
            "#ifndef {m}\n#error \"the including file defines no {m}: it has no kernel for these table lines\"\n#endif"
        );
    }
}

/// The sm_90a header's text.
pub fn render_hopper() -> String {
    let lines = hopper_lines();
    let mut h = String::new();
    let w = &mut h;
    let _ = writeln!(
        w,
        "// Generated from the variant table (kernels-gpu/src/variants.rs) by `cargo xtask build --nvcc`;\n\
         // do not edit. One macro invocation per entry of the Rust sm_90a module, in its order;\n\
         // nvcc/twin_sm90a.cu defines the macros.\n\
         #pragma once\n"
    );
    macro_guards(w, &lines);
    let _ = writeln!(w);
    for l in &lines {
        if let Line::Entry { invocation, .. } = l {
            let _ = writeln!(w, "{invocation}");
        }
    }
    h
}

/// The header's text.
pub fn render() -> Result<String, HeaderError> {
    let lines = lines()?;
    // The capped modules' entries, as the Rust ones (`ptx::capped_entries`): the regs line's
    // entry and its traced twin.
    let regs = [REGS.gemm().entry, REGS.gemm().traced_entry()];
    let regs_lines = regs.map(|r| {
        lines
            .iter()
            .find(|l| l.name() == r)
            .expect("the regs experiment's entries are table entries")
    });

    let mut h = String::new();
    let w = &mut h;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "// Generated from the variant table (kernels-gpu/src/variants.rs) by `cargo xtask build --nvcc`;\n\
         // do not edit. One macro invocation per entry of the Rust module, in table order; nvcc/twin.cu\n\
         // defines the macros.\n\
         #pragma once\n"
    );
    macro_guards(w, &lines);
    let _ = writeln!(
        w,
        "\n// The register-cap experiment's caps (variants.rs `regs:`), for build scripts.\n\
         #define LAB_REGS_CAPS \"{}\"\n",
        REGS.caps
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let _ = writeln!(
        w,
        "// The tuned GEMM lines' labels, for check scripts.\n#define LAB_TUNED_LABELS \"{}\"\n",
        GEMM.iter()
            .filter(|v| v.family == GemmFamily::Tuned)
            .map(|v| v.label)
            .collect::<Vec<_>>()
            .join(",")
    );
    let _ = writeln!(w, "#ifndef LAB_REGS_ONLY");
    for l in &lines {
        match l {
            Line::Entry { invocation, .. } => {
                let _ = writeln!(w, "{invocation}");
            }
            Line::NotMeasured { name, why } => {
                let _ = writeln!(w, "// not in the twin: {name} ({why})");
            }
        }
    }
    let _ = writeln!(
        w,
        "#else\n// The capped modules hold only the register-cap experiment's GEMM entry and its traced twin, as\n\
         // the Rust ones do."
    );
    for regs_line in regs_lines {
        match regs_line {
            Line::Entry { invocation, .. } => {
                let _ = writeln!(w, "{invocation}");
            }
            Line::NotMeasured { name, .. } => {
                let _ = writeln!(w, "#error \"{name} is not in the twin\"");
            }
        }
    }
    let _ = writeln!(w, "#endif");
    Ok(h)
}

/// Writes both headers into the workspace where their text differs (so an unchanged header keeps
/// its timestamp); returns whether one was written.
pub fn write(workspace: &Path) -> Result<bool, HeaderError> {
    let main = write_if_changed(&workspace.join(HEADER), &render()?)?;
    let hopper = write_if_changed(&workspace.join(HOPPER_HEADER), &render_hopper())?;
    Ok(main || hopper)
}

fn write_if_changed(path: &Path, text: &str) -> Result<bool, HeaderError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    std::fs::write(path, text).map_err(|source| HeaderError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(true)
}

#[cfg(test)]
#[path = "twin_header_test.rs"]
mod tests;
