//! The wgmma microbenchmark kernel (sm_90a): one warpgroup per block writes its operands into
//! shared memory, runs `iters` rounds of GROUPS commit groups of one m64nNk16 BF16 wgmma each
//! on the same accumulators, and writes the 64 x N accumulator tile. The contract, the operand
//! layout and the values are in `sections/wgmma.rs`, which the CPU model shares.

use crate::gpu;
use crate::sections::wgmma::{
    a_value, accumulator_position, b_offset, b_value, k_major_offset, small_bf16, LEADING_BYTES,
    STRIDE_BYTES, WARPGROUP_THREADS, WGMMA_K, WGMMA_M,
};
use crate::variants::WgmmaArgs;

/// # Safety
/// Launched with blocks of 128 threads and at least the line's operand bytes of dynamic shared
/// memory; `out` holds 64 * N floats per block.
#[inline(always)]
pub unsafe fn wgmma_bf16<const ACC: usize, const GROUPS: usize>(args: WgmmaArgs) {
    let WgmmaArgs { out, iters } = args;
    let n = 2 * ACC as u32;
    let t = gpu::thread_idx_x();
    let base = gpu::dynamic_shared_base();
    let b_base = base + b_offset();
    let mut i = t;
    while i < WGMMA_M * WGMMA_K {
        let (m, k) = (i / WGMMA_K, i % WGMMA_K);
        // SAFETY: inside A's 64 x 16 bf16 at the start of the block's shared memory.
        unsafe { gpu::store_shared_u16(base + k_major_offset(m, k), small_bf16(a_value(m, k))) };
        i += WARPGROUP_THREADS;
    }
    let mut i = t;
    while i < n * WGMMA_K {
        let (col, k) = (i / WGMMA_K, i % WGMMA_K);
        // SAFETY: inside B's N x 16 bf16, after A (the launch gives the line's operand bytes).
        unsafe {
            gpu::store_shared_u16(b_base + k_major_offset(col, k), small_bf16(b_value(k, col)))
        };
        i += WARPGROUP_THREADS;
    }
    gpu::fence_proxy_async_shared();
    gpu::sync_threads();
    let da = gpu::wgmma_descriptor(base, LEADING_BYTES, STRIDE_BYTES);
    let db = gpu::wgmma_descriptor(b_base, LEADING_BYTES, STRIDE_BYTES);
    let mut d = [0.0f32; ACC];
    let mut r = 0i32;
    while r < iters {
        // SAFETY: the whole warpgroup runs the same rounds (iters is uniform); the operands were
        // written and fenced above; the accumulators are untouched until wait_group retires
        // every group.
        unsafe {
            gpu::wgmma_fence();
            for _ in 0..GROUPS {
                gpu::wgmma_m64k16_bf16(&mut d, da, db);
                gpu::wgmma_commit_group();
            }
            gpu::wgmma_wait_group::<0>();
        }
        // Opaque, as in fma.rs: LLVM must not count the trips and unroll the rounds.
        r = gpu::opaque(r.wrapping_add(1) as u32) as i32;
    }
    let tile = gpu::block_idx_x() as isize * (WGMMA_M * n) as isize;
    for (reg, &x) in d.iter().enumerate() {
        let (row, col) = accumulator_position(t, reg as u32);
        // SAFETY: out holds 64 * N floats for every block (the contract above).
        unsafe { gpu::store_global(out, tile + (row * n + col) as isize, x) };
    }
}
