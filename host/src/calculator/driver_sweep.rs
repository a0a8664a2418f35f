//! Asking the driver for occupancy over many configurations of real kernels (needs a GPU).

use std::time::Instant;

use kernels_gpu::entries::{self, Family};
use kernels_gpu::variants::MEMCPY;

use crate::cuda::{CudaError, Gpu, JitOptions, Kernel, Module};
use crate::occupancy::arch::Limits;
use crate::occupancy::golden::GoldenRow;

/// Register caps the module is JIT-compiled under by default (0: no cap).
pub const REG_CAPS: [u32; 10] = [0, 24, 32, 40, 48, 64, 80, 96, 128, 168];

/// JIT-compiles `ptx` on `gpu`, under a cap of `reg_cap` registers per thread (0: no cap).
fn jit(gpu: &Gpu, name: &str, ptx: &str, reg_cap: u32) -> Result<Module, CudaError> {
    let jit = JitOptions {
        max_registers: (reg_cap > 0).then_some(reg_cap),
    };
    Module::load_with(gpu, name, ptx.as_bytes(), jit)
}

/// Dynamic shared memory sizes tried at every block size (bytes; sizes over the opt-in are
/// dropped). 30000 is not a multiple of the allocation unit; 110000 needs the opt-in.
const GRID_DYN_SMEM: [u32; 3] = [0, 30_000, 110_000];

/// Block sizes of the dense shared memory sweep.
const DENSE_THREADS: [u32; 3] = [32, 256, 1024];

/// The `.entry` names in a PTX module, in order, each once.
pub fn ptx_entries(ptx: &str) -> Vec<String> {
    let mut names = crate::kernel_source::image::ptx_entries(ptx);
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// Whether the driver is asked about `entry` without `--all-entries`: the seed families' entries
/// (every GEMM line and the `bandwidth` experiment's labelled copies) and any entry the variant
/// table does not generate (a foreign `--ptx`). The table's memcpy grid, FMA, chase and tensor-core
/// entries add hundreds of kernels of the same kinds of resources, and a sweep several times as
/// long; the GEMM check's kernels are not the lab's subject, nor the GEMM lines' traced twins
/// (the same resources as their lines).
pub fn seed_entry(entry: &str) -> bool {
    let decl = entries::entry(entry);
    if decl.is_some_and(|e| e.traces.is_some()) {
        return false;
    }
    match decl.map(|e| e.family) {
        None | Some(Family::Gemm) => true,
        Some(Family::Memcpy) => MEMCPY.iter().any(|v| v.entry == entry),
        Some(
            Family::FmaIlp
            | Family::Chase
            | Family::GemmRef
            | Family::GemmCheck
            | Family::GemmHash
            | Family::Bf16Gemm
            | Family::MmaIlp
            | Family::Read
            | Family::SmemCopy
            | Family::PersistentCopy,
        ) => false,
    }
}

/// Dynamic shared memory sizes at and around each point where the number of resident blocks
/// changes, plus an even 4 KB grid, all within the opt-in limit.
pub fn dense_dyn_smem(limits: &Limits, static_smem: u32) -> Vec<u32> {
    let max = limits.smem_per_block_optin.saturating_sub(static_smem);
    let fixed = static_smem + limits.reserved_smem_per_block;
    let mut sizes: Vec<u32> = (0..=max).step_by(4096).collect();
    for k in 1..=limits.max_blocks_per_sm {
        let per_block = limits.smem_per_sm / k / limits.smem_alloc_unit * limits.smem_alloc_unit;
        if let Some(edge) = per_block.checked_sub(fixed) {
            sizes.extend([edge.saturating_sub(1), edge, edge + 1]);
        }
    }
    sizes.retain(|&s| s <= max);
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The (threads, dynamic shared memory) launches every kernel is asked about: every block size
/// 32..=1024 (whole warps) at each of [`GRID_DYN_SMEM`] that fits the opt-in limit.
fn grid_configs(limits: &Limits, static_smem: u32) -> Vec<(u32, u32)> {
    (1..=limits.max_threads_per_block / limits.warp_size)
        .flat_map(|w| GRID_DYN_SMEM.map(|dyn_smem| (w * limits.warp_size, dyn_smem)))
        .filter(|&(_, dyn_smem)| static_smem + dyn_smem <= limits.smem_per_block_optin)
        .collect()
}

/// The dense shared memory sweep's launches: [`dense_dyn_smem`] at each of [`DENSE_THREADS`].
fn dense_configs(limits: &Limits, static_smem: u32) -> Vec<(u32, u32)> {
    let sizes = dense_dyn_smem(limits, static_smem);
    DENSE_THREADS
        .iter()
        .flat_map(|&threads| sizes.iter().map(move |&dyn_smem| (threads, dyn_smem)))
        .collect()
}

/// Sets the kernel's dynamic shared memory limit for a launch with `dyn_smem` bytes: opts in only
/// where the launch needs it, as a program would; otherwise restores the default.
fn set_opt_in(
    k: &Kernel<'_>,
    limits: &Limits,
    static_smem: u32,
    dyn_smem: u32,
) -> Result<(), CudaError> {
    let opt_in = if static_smem + dyn_smem > limits.smem_per_block {
        limits.smem_per_block_optin
    } else {
        limits.smem_per_block
    };
    k.set_max_dynamic_smem(opt_in.saturating_sub(static_smem))
}

/// Every distinct (registers, static shared memory) kernel the module yields under `reg_caps` (see
/// [`REG_CAPS`]), at every block size 32..=1024 and a few dynamic shared memory sizes, plus a dense
/// shared memory sweep for the kernels with the fewest and the most registers. Only the entries
/// `keep` accepts are asked about (see [`seed_entry`]). `log` receives one progress line per JIT.
pub fn sweep(
    gpu: &Gpu,
    ptx: &str,
    limits: &Limits,
    reg_caps: &[u32],
    keep: &dyn Fn(&str) -> bool,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<GoldenRow>, CudaError> {
    let mut entries = ptx_entries(ptx);
    entries.retain(|e| keep(e));
    let mut seen: Vec<(u32, u32)> = Vec::new();
    let mut rows = Vec::new();
    let mut dense: Vec<(u32, u32)> = Vec::new();
    // Configurations the driver refused to answer for, recorded as 0 blocks (the calculator's
    // answer for a kernel that cannot launch), and the first of them.
    let (mut refused, mut first_refusal) = (0, None);
    let start = Instant::now();
    for &cap in reg_caps {
        let t = Instant::now();
        let module = jit(gpu, &format!("occupancy PTX (reg cap {cap})"), ptx, cap)?;
        let jit_ms = t.elapsed().as_millis();
        let mut new = 0;
        for name in &entries {
            let f = module.kernel(name)?;
            let (regs, static_smem) = (f.num_regs()?, f.static_smem_bytes()?);
            if seen.contains(&(regs, static_smem)) {
                continue;
            }
            seen.push((regs, static_smem));
            new += 1;
            let lowest = seen.iter().map(|s| s.0).min() == Some(regs);
            let highest = seen.iter().map(|s| s.0).max() == Some(regs);
            let mut configs = grid_configs(limits, static_smem);
            if (lowest || highest) && !dense.contains(&(regs, static_smem)) {
                dense.push((regs, static_smem));
                configs.extend(dense_configs(limits, static_smem));
            }
            for (threads, dyn_smem) in configs {
                set_opt_in(&f, limits, static_smem, dyn_smem)?;
                // Only a refused occupancy query is recorded as 0; any other failure ends the
                // sweep.
                let driver_blocks = match f.max_active_blocks(threads, dyn_smem) {
                    Ok(n) => n,
                    Err(e @ CudaError::Driver { .. }) => {
                        refused += 1;
                        first_refusal.get_or_insert_with(|| {
                            format!(
                                "{name}: {threads} threads, {regs} regs, {dyn_smem} B dynamic: {e}"
                            )
                        });
                        0
                    }
                    Err(e) => return Err(e),
                };
                rows.push(GoldenRow {
                    entry: name.to_string(),
                    reg_cap: cap,
                    threads,
                    regs,
                    static_smem,
                    dyn_smem,
                    driver_blocks,
                });
            }
        }
        log(&format!(
            "reg cap {cap:>3}: JIT {jit_ms} ms, {new} new kernels, {} rows, {:.1} s total",
            rows.len(),
            start.elapsed().as_secs_f64()
        ));
    }
    if let Some(first) = first_refusal {
        log(&format!(
            "the driver returned an error for {} configurations, recorded as 0 blocks; first: {first}",
            refused
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::Arch;

    /// The launches in the order the sweep's nested loops asked for them before they became lists.
    fn nested_loops(limits: &Limits, static_smem: u32, dense: bool) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for w in 1..=limits.max_threads_per_block / limits.warp_size {
            let threads = w * limits.warp_size;
            for dyn_smem in GRID_DYN_SMEM {
                if static_smem + dyn_smem > limits.smem_per_block_optin {
                    continue;
                }
                out.push((threads, dyn_smem));
            }
        }
        if dense {
            for threads in DENSE_THREADS {
                for dyn_smem in dense_dyn_smem(limits, static_smem) {
                    out.push((threads, dyn_smem));
                }
            }
        }
        out
    }

    #[test]
    fn the_default_sweep_takes_the_seed_families() {
        use kernels_gpu::variants;
        let kept: Vec<&str> = entries::all_entries()
            .map(|e| e.name)
            .filter(|e| seed_entry(e))
            .collect();
        assert_eq!(kept.len(), variants::GEMM.len() + MEMCPY.len());
        assert!(kept.contains(&"gemm_tm8_tn8") && kept.contains(&"memcpy_t32_l14_w4"));
        assert!(!seed_entry("memcpy_t256_l4_w4"), "an unlabelled grid point");
        assert!(!seed_entry("fma_ilp4") && !seed_entry(variants::CHASE.entry));
        assert!(!seed_entry("gemm_tm8_tn8_traced"), "a traced twin");
        assert!(
            seed_entry("my_kernel"),
            "entries of a foreign module are kept"
        );
    }

    #[test]
    fn config_lists_keep_the_nested_loops_order() {
        for arch in [Arch::Sm75, Arch::Sm86, Arch::Sm90] {
            let limits = arch.limits();
            for static_smem in [0, 4096, 40_000, 64 * 1024] {
                let grid = grid_configs(&limits, static_smem);
                assert_eq!(grid, nested_loops(&limits, static_smem, false));
                let mut both = grid.clone();
                both.extend(dense_configs(&limits, static_smem));
                assert_eq!(both, nested_loops(&limits, static_smem, true));
            }
        }
        // sm_90, no static shared memory: 32 block sizes x 3 dynamic sizes, all within the opt-in.
        assert_eq!(grid_configs(&Arch::Sm90.limits(), 0).len(), 96);
    }
}
