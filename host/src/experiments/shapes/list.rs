//! The sweep's shapes, fixed before any tuning (issue 32; `docs/design.md` lists them too):
//! squares, transformer layers, decode steps and odd sizes, M x N x K.

use crate::results::GemmDims;

/// What a shape stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Square,
    Transformer,
    Decode,
    Odd,
}

/// One shape of the sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepShape {
    pub dims: GemmDims,
    pub group: Group,
    /// Run for BF16 only (16384³: FP32's f64 reference and SGEMM there take minutes).
    pub bf16_only: bool,
    /// Also timed where the epilogue reads C (alpha=1.5, beta=0.5: issue 32's bar on beta).
    pub reads_c: bool,
}

const fn shape(m: u32, n: u32, k: u32, group: Group) -> SweepShape {
    SweepShape {
        dims: GemmDims { m, n, k },
        group,
        bf16_only: false,
        reads_c: false,
    }
}

const fn square(s: u32) -> SweepShape {
    shape(s, s, s, Group::Square)
}

use Group::{Decode, Odd, Transformer};

/// The sweep, in order.
pub const SHAPES: &[SweepShape] = &[
    square(512),
    square(1024),
    square(2048),
    square(4096),
    SweepShape {
        reads_c: true,
        ..square(8192)
    },
    SweepShape {
        bf16_only: true,
        ..square(16384)
    },
    shape(4096, 14336, 4096, Transformer),
    shape(4096, 4096, 14336, Transformer),
    shape(8192, 1024, 8192, Transformer),
    shape(2048, 8192, 1024, Transformer),
    shape(16384, 4096, 4096, Transformer),
    shape(1, 4096, 4096, Decode),
    shape(16, 4096, 4096, Decode),
    shape(64, 4096, 4096, Decode),
    shape(128, 4096, 4096, Decode),
    shape(128, 8192, 8192, Decode),
    shape(1000, 776, 1000, Odd),
    shape(4095, 4097, 1023, Odd),
    shape(7, 9000, 13, Odd),
];

/// "4096x14336x4096": a shape's name, as `--shapes` takes it.
pub fn name(d: GemmDims) -> String {
    format!("{}x{}x{}", d.m, d.n, d.k)
}

/// The shapes `--shapes` names (each as N for N³ or MxNxK), in the sweep's order; all when
/// empty. An unknown name is refused with the list.
pub fn select(names: &[String]) -> Result<Vec<&'static SweepShape>, String> {
    if names.is_empty() {
        return Ok(SHAPES.iter().collect());
    }
    let mut wanted = Vec::new();
    for n in names {
        let n = n.trim();
        let dims = crate::flags::parse_gemm_dims(n).ok();
        let Some(s) = SHAPES.iter().find(|s| Some(s.dims) == dims) else {
            let all: Vec<String> = SHAPES.iter().map(|s| name(s.dims)).collect();
            return Err(format!(
                "--shapes: `{n}` is not a shape of the sweep; its shapes: {}",
                all.join(", ")
            ));
        };
        wanted.push(s.dims);
    }
    Ok(SHAPES.iter().filter(|s| wanted.contains(&s.dims)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_issue_32s() {
        let names: Vec<String> = SHAPES.iter().map(|s| name(s.dims)).collect();
        assert_eq!(names.len(), 19);
        for n in [
            "512x512x512",
            "16384x16384x16384",
            "4096x4096x14336",
            "1x4096x4096",
            "7x9000x13",
        ] {
            assert!(names.iter().any(|x| x == n), "{n}");
        }
        let bf16_only: Vec<String> = (SHAPES.iter())
            .filter(|s| s.bf16_only)
            .map(|s| name(s.dims))
            .collect();
        assert_eq!(bf16_only, ["16384x16384x16384"]);
        let reads_c: Vec<String> = (SHAPES.iter())
            .filter(|s| s.reads_c)
            .map(|s| name(s.dims))
            .collect();
        assert_eq!(reads_c, ["8192x8192x8192"]);
        assert_eq!(SHAPES.iter().filter(|s| s.group == Decode).count(), 5);
    }

    #[test]
    fn shapes_are_picked_by_name_in_sweep_order() {
        let got = select(&["7x9000x13".into(), "1024".into()]).unwrap();
        let names: Vec<String> = got.iter().map(|s| name(s.dims)).collect();
        assert_eq!(names, ["1024x1024x1024", "7x9000x13"]);
        let e = select(&["3x3x3".into()]).unwrap_err();
        assert!(e.contains("3x3x3") && e.contains("512x512x512"), "{e}");
        assert_eq!(select(&[]).unwrap().len(), SHAPES.len());
    }
}
