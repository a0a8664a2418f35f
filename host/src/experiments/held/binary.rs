//! The fixed binaries `held` holds at each residency: GEMM lines C, D and R4 of the
//! built-in module and the cap-128 build of the register experiment's line, each one compiled
//! program whose blocks per SM only the dynamic shared memory of its launch changes.

use kernels_gpu::variants::{find_gemm, GemmVariant, REGS};

/// A compiled program: a line of the GEMM table, from the built-in module or from the register
/// experiment's build at a cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binary {
    pub label: &'static str,
    pub line: &'static GemmVariant,
    /// The register cap of the build (`kernels_cap{N}.ptx`), or `None` for the built-in module.
    pub cap: Option<u32>,
}

/// The binaries, in the order of the table and plot.
pub const BINARIES: [(&str, &str, Option<u32>); 4] = [
    ("C", "C", None),
    ("D", "D", None),
    ("R4", "R4", None),
    ("C@128", REGS.variant, Some(128)),
];

impl Binary {
    /// Every binary of [`BINARIES`].
    pub fn all() -> Vec<Binary> {
        BINARIES
            .iter()
            .map(|&(label, line, cap)| Binary {
                label,
                line: find_gemm(kernels_gpu::variants::GEMM, line).expect("a line of the table"),
                cap,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::{dyn_smem_for_blocks, occupancy, Arch, KernelResources};

    #[test]
    fn the_binaries_are_c_d_r4_and_c_at_cap_128() {
        let all = Binary::all();
        let labels: Vec<&str> = all.iter().map(|b| b.label).collect();
        assert_eq!(labels, ["C", "D", "R4", "C@128"]);
        assert_eq!(all[3].line.label, REGS.variant);
        assert!(REGS.caps.contains(&128), "the cap-128 build exists");
    }

    /// Every residency from one block to what the calculator allows is reached by the shared
    /// memory the run starts from (the calculator's, never below what the line itself uses),
    /// for a seed-like kernel and for one with its own dynamic memory.
    #[test]
    fn each_blocks_per_sm_is_held_by_the_shared_memory_the_calculator_gives() {
        let limits = Arch::Sm90.limits();
        for (threads, regs, static_smem, own_dyn) in [(64, 64, 4096, 0), (256, 128, 0, 36_864)] {
            let blocks_at = |dyn_smem| {
                let resources = KernelResources {
                    threads,
                    regs_per_thread: regs,
                    static_smem,
                    dyn_smem,
                };
                occupancy(&limits, &resources).unwrap().blocks_per_sm
            };
            let most = blocks_at(own_dyn);
            assert!(most >= 2, "{most}");
            for blocks in 1..=most {
                let dyn_smem = dyn_smem_for_blocks(&limits, static_smem, blocks)
                    .unwrap()
                    .max(own_dyn);
                assert!(dyn_smem >= own_dyn);
                assert_eq!(
                    blocks_at(dyn_smem),
                    blocks,
                    "{threads} threads, {dyn_smem} B"
                );
            }
        }
    }
}
