//! A consumer thread's own stores of its accumulators where its part of a tile lies inside C and
//! beta is 0: the epilogue of the wgmma GEMM (`gemm_wgmma.rs`, `write_inside`) and the part of
//! each tile a consumer warp keeps on lines that stage C (`c_handoff.rs`, `write_staged`).

use crate::gpu;
use crate::kernels::gemm_epilogue::Output;
use crate::sections::wgmma::accumulator_position;

/// Thread `tid`'s two rows of a consumer's part of a tile at (`row0`, `col0`) of C, at the
/// thread's first column: a register's row is the thread's first or 8 below it.
#[inline(always)]
pub(crate) fn thread_rows(out: &Output, (row0, col0): (u32, u32), tid: u32) -> [*mut f32; 2] {
    let n = out.n as usize;
    let (row, col) = accumulator_position(tid, 0);
    let top = out
        .c
        .wrapping_add((row0 + row) as usize * n + (col0 + col) as usize);
    [top, top.wrapping_add(8 * n)]
}

/// Stores registers `from..ACC` of `d`, times `alpha`, pair by pair, each by this thread's own
/// 8-byte store at its place from `rows` ([`thread_rows`]): beta = 0's epilogue.
///
/// # Safety
/// Every pair's place lies inside C, 8-byte aligned (N even, C 8-byte aligned), and belongs to
/// this thread alone.
#[inline(always)]
pub(crate) unsafe fn store_pairs<const ACC: usize>(
    rows: [*mut f32; 2],
    alpha: f32,
    d: &[f32; ACC],
    from: usize,
) {
    let mut r = from;
    while r < ACC {
        let (down, across) = accumulator_position(0, r as u32);
        // SAFETY: inside C, 8-byte aligned (the caller's contract); this thread's alone.
        unsafe {
            gpu::store_global2(
                rows[(down / 8) as usize],
                across,
                [alpha * d[r], alpha * d[r + 1]],
            )
        };
        r += 2;
    }
}
