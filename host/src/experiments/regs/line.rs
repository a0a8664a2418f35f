//! The GEMM line the `regs` experiment caps (`host regs --variant LABEL`): any line of the FP32
//! table or of the BF16 tensor-core table, the table's `REGS.variant` by default. The built-in
//! capped modules of the default line are the build's (`kernels_cap{N}.ptx`, ptxas-checked by
//! xtask); another line's are made on demand from the build's PTX of that family, the same way (the
//! entry alone, `.maxnreg N`, no other performance directive), so no cap of any line costs build
//! time.

use kernels_gpu::abi::Param;
use kernels_gpu::variants::{
    Bf16GemmParams, Bf16GemmVariant, GemmParams, GemmVariant, BF16_GEMM, GEMM, REGS,
};
use ptxas_report::ptx_entries::{capped_entry, EntryError};

use crate::flags::CliError;
use crate::kernel_source::builtin;
use crate::results::RunMeta;

/// A line of either GEMM table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CappedLine {
    Fp32(&'static GemmVariant),
    Bf16(&'static Bf16GemmVariant),
}

impl CappedLine {
    /// The line labelled `label` in either table; `None`: the table's default line.
    pub fn find(label: Option<&str>) -> Result<CappedLine, CliError> {
        let label = label.map_or(REGS.variant, str::trim);
        let fp32 = GEMM.iter().find(|v| v.label == label).map(CappedLine::Fp32);
        let bf16 = || {
            BF16_GEMM
                .iter()
                .find(|v| v.label == label)
                .map(CappedLine::Bf16)
        };
        fp32.or_else(bf16).ok_or_else(|| CliError::UnknownLine {
            label: label.to_owned(),
            valid: Self::labels().join(", "),
        })
    }

    /// Every label `--variant` takes: the FP32 lines, then the BF16 ones.
    pub fn labels() -> Vec<&'static str> {
        let fp32 = GEMM.iter().map(|v| v.label);
        fp32.chain(BF16_GEMM.iter().map(|v| v.label)).collect()
    }

    pub fn label(&self) -> &'static str {
        match self {
            CappedLine::Fp32(v) => v.label,
            CappedLine::Bf16(v) => v.label,
        }
    }

    pub fn entry(&self) -> &'static str {
        match self {
            CappedLine::Fp32(v) => v.entry,
            CappedLine::Bf16(v) => v.entry,
        }
    }

    /// The line's block tile (BM, BN): what its grid of output tiles is cut into.
    pub fn tile(&self) -> (u32, u32) {
        match self {
            CappedLine::Fp32(v) => (v.bm, v.bn),
            CappedLine::Bf16(v) => (v.shape.bm, v.shape.bn),
        }
    }

    /// The parameter list a module's entry must declare to be launched as this line.
    pub fn signature(&self) -> &'static [Param] {
        match self {
            CappedLine::Fp32(_) => GemmParams::PARAMS,
            CappedLine::Bf16(_) => Bf16GemmParams::PARAMS,
        }
    }

    /// The line a run capped: its recorded `--variant`, else the table's (as in runs before the
    /// flag). A label no longer in the table reads as the table's line.
    pub fn of_run(meta: &RunMeta) -> CappedLine {
        let recorded = meta.regs_variant.as_deref();
        Self::find(recorded)
            .or_else(|_| Self::find(None))
            .expect("REGS names a GEMM line")
    }

    /// The kind of GEMM in titles: "SGEMM" or "BF16 GEMM".
    pub fn gemm_name(&self) -> &'static str {
        match self {
            CappedLine::Fp32(_) => "SGEMM",
            CappedLine::Bf16(_) => "BF16 GEMM",
        }
    }

    /// Whether the built-in kernels can give this line at `cap`: the build's caps for the
    /// table's line, any cap for another (made on demand).
    pub fn has_builtin(&self, cap: u32) -> bool {
        !self.is_default() || builtin::capped(cap).is_some()
    }

    /// Whether this is the table's default line (whose capped modules the build writes).
    pub fn is_default(&self) -> bool {
        self.label() == REGS.variant
    }

    /// The built-in PTX of this line capped at `cap`: the build's module for the default line
    /// (`None` where the build has no such cap), else made from the family's built-in PTX (the
    /// FP32 lines' module without directives, the tensor-core module).
    pub fn builtin_capped(&self, cap: u32) -> Result<Option<String>, EntryError> {
        let source = match self {
            _ if self.is_default() => return Ok(builtin::capped(cap).map(str::to_owned)),
            CappedLine::Fp32(_) => builtin::UNBOUNDED,
            CappedLine::Bf16(_) => builtin::TENSOR,
        };
        capped_entry(source, self.entry(), cap).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gemm_line_of_both_tables_is_found_and_the_default_is_the_tables() {
        assert_eq!(CappedLine::find(None).unwrap().label(), REGS.variant);
        assert!(CappedLine::find(None).unwrap().is_default());
        for label in CappedLine::labels() {
            let line = CappedLine::find(Some(label)).unwrap();
            assert_eq!(line.label(), label);
        }
        let m1 = CappedLine::find(Some(BF16_GEMM[0].label)).unwrap();
        assert!(matches!(m1, CappedLine::Bf16(_)));
        assert_eq!(m1.signature(), Bf16GemmParams::PARAMS);
        assert_eq!(CappedLine::labels().len(), GEMM.len() + BF16_GEMM.len());
    }

    #[test]
    fn a_bf16_lines_caps_are_made_from_the_tensor_module() {
        let m1 = CappedLine::find(Some(BF16_GEMM[0].label)).unwrap();
        let ptx = m1.builtin_capped(64).unwrap().unwrap();
        assert!(ptx.contains(&format!(".entry {}(", m1.entry())), "{ptx}");
        assert!(ptx.contains(".maxnreg 64\n{"));
        assert!(!ptx.contains(".maxntid") && !ptx.contains(".minnctapersm"));
        assert_eq!(ptx.matches(".entry ").count(), 1);
        // An FP32 line other than the default is made from the undirected module the same way.
        let r4 = CappedLine::find(Some("R4")).unwrap();
        let ptx = r4.builtin_capped(128).unwrap().unwrap();
        assert!(ptx.contains(".maxnreg 128\n{") && ptx.matches(".entry ").count() == 1);
        // The default line's caps are the build's modules.
        let default = CappedLine::find(None).unwrap();
        assert_eq!(
            default.builtin_capped(REGS.caps[0]).unwrap().as_deref(),
            builtin::capped(REGS.caps[0])
        );
    }

    #[test]
    fn an_unknown_label_names_every_valid_one() {
        let e = CappedLine::find(Some("Z9")).unwrap_err().to_string();
        assert!(e.contains("`Z9`"), "{e}");
        for label in CappedLine::labels() {
            assert!(e.contains(label), "{e} lacks {label}");
        }
    }
}
