//! The BF16 tensor-core GEMM family, C = alpha*A*B + beta*C: A (M x K) and B (K x N) row-major
//! bf16, C row-major f32, f32 accumulation, any M, N, K >= 1.
//!
//! A block computes one BM x BN tile of C through a pipeline of `STAGES` K slices in dynamic
//! shared memory, filled with 16-byte asynchronous copies (`cp.async`, 8 bf16 each) while the
//! block computes on an earlier slice; chunks outside the matrices are zero-filled by the copy's
//! source size, so edge tiles and a K that BK does not divide need no other case. Each warp owns
//! a WM x WN part of the tile as (WM/16) x (WN/8) m16n8k16 accumulator tiles; at each k16 step
//! it loads its A fragments with `ldmatrix.x4` and its B fragments with `ldmatrix.x4.trans` (the
//! slice of B is row-major, the mma wants it column-major) and issues one `mma.sync` per tile.
//! Fragments are double-buffered: those of the next k16 step are loaded while the current
//! step's mma run. `mma_shape.rs` holds the index arithmetic, the swizzle that keeps shared
//! memory free of bank conflicts, and their CPU tests.
//!
//! A 16-byte copy needs its 8 bf16 16-byte aligned, which rows of K (A) or N (B) bf16 only give
//! when K and N are multiples of 8 (and A and B 16-byte aligned). Otherwise the kernel stages
//! each chunk element by element through registers: right at any size, and slower.
//!
//! Blocks whose tile lies wholly inside A and B (and K a whole number of slices), nearly every
//! block of a large GEMM, take an interior path: no bounds test, no zero-fill predicate, each
//! copy's global address one of a few loop-carried pointers plus a constant and its shared
//! address a base plus a constant, and the tile stored with no bounds tests. Per-copy bounds
//! tests and index arithmetic were nearly a third of the main loop's instructions, and under
//! the power cap every instruction issued beside the mma costs clock.

use crate::gpu;
use crate::kernels::gemm_epilogue::Output;
use crate::kernels::gemm_pipeline::next_stage;
use crate::kernels::over_shape::over_shape;
use crate::shapes::block_order::block_tile;
use crate::shapes::mma_layout::LANES;
use crate::shapes::mma_shape::{
    chunks_aligned, MmaShape, CARRIED_A_POINTERS, CHUNK_BYTES, CHUNK_ELEMS, MAX_BASES,
};
use crate::shapes::tuned_shape::inside;
use crate::variants::Bf16GemmArgs;

/// One block's problem: the kernel's arguments (sizes as u32) and the block's output tile
/// origin (row, column) in C.
#[derive(Clone, Copy)]
struct Problem {
    a: *const u16,
    b: *const u16,
    c: *mut f32,
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    beta: f32,
    tile: (u32, u32),
}

over_shape! { [BM, BN, BK, MI, NI, STAGES]
    /// The kernel of a table line with block tile BM x BN x BK, warps of MI x NI m16n8 tiles (a
    /// warp tile of 16*MI x 8*NI) and STAGES pipeline stages.
    ///
    /// # Safety
    /// Launched with `MmaShape::threads()` threads per block, grid (ceil(N/BN), ceil(M/BM)) and
    /// `MmaShape::shared_bytes()` bytes of dynamic shared memory; `a`, `b` hold M*K and K*N bf16
    /// (2-byte aligned) and are not written during the kernel; `c` holds M*N floats (4-byte
    /// aligned); M*K, K*N and M*N are below 2^32.
    #[inline(always)]
    pub unsafe fn gemm_mma(args: Bf16GemmArgs) {
        let (m, n, k) = (args.m as u32, args.n as u32, args.k as u32);
        let (tile_row, tile_col) = block_tile(
            gpu::block_idx_x(),
            gpu::block_idx_y(),
            gpu::grid_dim_x(),
            gpu::grid_dim_y(),
        );
        let tile = (tile_row * BM as u32, tile_col * BN as u32);
        // Three copies of the kernel, one per way of staging, chosen once per block (uniform):
        // chosen per copy inside the K loop, every way's instructions would be issued every slice,
        // the others predicated off (as in gemm_tuned.rs). A block whose tile lies wholly inside A
        // and B (every row of A and column of B it reads exists, and K is whole slices) copies with
        // no bounds tests and no zero-fill, each copy's addresses a base plus a constant
        // (the `INTERIOR` body, where `MmaShape::copies_split_exactly`); blocks at the edges keep
        // the tests.
        let chunked = chunks_aligned(k, args.a as usize) && chunks_aligned(n, args.b as usize);
        let interior = chunked
            && MmaShape::of(BM, BN, BK, MI, NI, STAGES).copies_split_exactly()
            && tile.0 + BM as u32 <= m
            && tile.1 + BN as u32 <= n
            && k.is_multiple_of(BK as u32);
        let p = Problem {
            a: args.a,
            b: args.b,
            c: args.c,
            m,
            n,
            k,
            alpha: args.alpha,
            beta: args.beta,
            tile,
        };
        if interior {
            // SAFETY: the caller's contract; A's and B's rows allow 16-byte copies, and every chunk
            // of the block's slices lies inside A and B.
            unsafe { body::<BM, BN, BK, MI, NI, STAGES, true, true>(p) }
        } else if chunked {
            // SAFETY: the caller's contract; A's and B's rows allow 16-byte copies.
            unsafe { body::<BM, BN, BK, MI, NI, STAGES, true, false>(p) }
        } else {
            // SAFETY: the caller's contract.
            unsafe { body::<BM, BN, BK, MI, NI, STAGES, false, false>(p) }
        }
    }

    /// The kernel, staging 16-byte chunks by `cp.async` (`CHUNKED`) or element by element; with
    /// `INTERIOR`, every chunk is inside A and B and copied with no test.
    ///
    /// # Safety
    /// As [`gemm_mma`]; with `CHUNKED`, `chunks_aligned` holds for A (K columns) and B (N columns);
    /// with `INTERIOR` (only with `CHUNKED`), the tile's BM rows of A and BN columns of B lie
    /// inside the matrices, BK divides K, and the shape's copies step by whole swizzle phases.
    #[inline(always)]
    unsafe fn body<const CHUNKED: bool, const INTERIOR: bool>(
        p: Problem,
    ) {
        let Problem {
            a,
            b,
            c,
            m,
            n,
            k,
            alpha,
            beta,
            tile: (row0, col0),
        } = p;
        let s = MmaShape::of(BM, BN, BK, MI, NI, STAGES);
        let t = gpu::thread_idx_x();
        let (warp, lane) = (t / LANES, t % LANES);
        let smem = gpu::dynamic_shared_base();
        let slices = k.div_ceil(s.bk);

        // The interior path's sources: a thread's copy e of a slice is its copy 0 moved by a
        // constant number of rows and chunks, landing a constant number of bytes after it
        // (`mma_shape.rs`, `copies_split_exactly`). Each distinct row of a thread's copies keeps a
        // pointer to its chunk in the next slice to be staged (A: one per copy; B, walked by lines
        // with `b_copy_by_lines`: one per row step, its copies a constant number of lines further),
        // advanced a slice after that slice's last copy. Loop-carried pointers cost two adds a
        // slice each, with no long dependency chains and no temporaries: address arithmetic per
        // copy stalled the warp on its results, and its temporaries, given registers of the next
        // fragments, made those fragments' loads wait for the copies to read them. Shared: copy 0's
        // place in a stage. Unused (and dropped) on the other paths.
        let (ra, ca) = s.a_copy(t, 0);
        let (rb, cb) = s.b_copy_by_lines(t, 0);
        let (a_place, b_place) = (s.a_chunk_offset(ra, ca), s.b_chunk_offset(rb, cb));
        // Built and advanced as whole arrays (by value, every index a constant), which LLVM keeps
        // in registers; filled in place through a loop, they were kept in local memory.
        let mut a_src: [*const u16; MAX_BASES] = core::array::from_fn(|e| {
            let row = row0 + ra + e as u32 * s.a_copy_rows();
            if INTERIOR && e < s.a_copies() as usize {
                a.wrapping_add((row * k + CHUNK_ELEMS * ca) as usize)
            } else {
                a
            }
        });
        let mut b_src: [*const u16; MAX_BASES] = core::array::from_fn(|h| {
            let row = rb + h as u32 * s.b_round_rows();
            if INTERIOR && h < s.b_row_steps() as usize {
                b.wrapping_add((row * n + col0 + CHUNK_ELEMS * cb) as usize)
            } else {
                b
            }
        });
        // Elements between a slice of A and the next (along a row), and of B (down the columns).
        let (a_slice_elems, b_slice_elems) = (s.bk as usize, s.bk as usize * n as usize);
        // With more copies of A than CARRIED_A_POINTERS, advancing a pointer per copy costs more
        // than it saves (two adds a slice each, and their registers): A's pointers then stay at
        // slice 0 and each copy adds the slice's offset itself.
        let a_carried = s.a_copies() <= CARRIED_A_POINTERS;
        let advance = |a_src: [*const u16; MAX_BASES], b_src: [*const u16; MAX_BASES]| {
            (
                if a_carried {
                    a_src.map(|p| p.wrapping_add(a_slice_elems))
                } else {
                    a_src
                },
                b_src.map(|p| p.wrapping_add(b_slice_elems)),
            )
        };

        // Copy `j` of this thread's share of K slice `kt` into stage `stage`: copies below
        // `a_copies()` are chunks of A, the rest chunks of B. The interior path reads its sources
        // (which point at slice `kt`) instead of `kt`.
        let copy = |stage: u32,
                    kt: u32,
                    j: u32,
                    a_src: [*const u16; MAX_BASES],
                    b_src: [*const u16; MAX_BASES]| {
            let base = smem + stage * s.stage_bytes();
            if INTERIOR {
                if j < s.a_copies() {
                    let dst = base + a_place + s.a_copy_offset(j);
                    let src = if a_carried {
                        a_src[j as usize]
                    } else {
                        a_src[j as usize].wrapping_add((kt * s.bk) as usize)
                    };
                    // SAFETY: INTERIOR: the chunk (row0 + ra + j*a_copy_rows, kt*BK + 8*ca) of A is
                    // inside A and 16-byte aligned; dst is its place in this stage.
                    unsafe { gpu::cp_async_bf16x8_at(dst, src, 0) };
                } else {
                    let e = j - s.a_copies();
                    let (rows, chunks) = s.b_copy_delta(e);
                    let dst = base + b_place + s.b_copy_offset(e);
                    let src = b_src[(rows / s.b_round_rows()) as usize];
                    // SAFETY: INTERIOR: the chunk (kt*BK + rb + rows, col0 + 8*(cb + chunks)) of B
                    // is inside B and 16-byte aligned; dst is its place in this stage.
                    unsafe { gpu::cp_async_bf16x8_at(dst, src, chunks * CHUNK_BYTES) };
                }
                return;
            }
            let k0 = kt * s.bk;
            let (dst, src, (row, col), (rows, cols)) = if j < s.a_copies() {
                let (r, ch) = s.a_copy(t, j);
                let at = (row0 + r, k0 + CHUNK_ELEMS * ch);
                (base + s.a_chunk_offset(r, ch), a, at, (m, k))
            } else {
                let (r, ch) = s.b_copy(t, j - s.a_copies());
                let at = (k0 + r, col0 + CHUNK_ELEMS * ch);
                (base + s.b_chunk_offset(r, ch), b, at, (k, n))
            };
            if CHUNKED {
                // SAFETY: read only when inside the matrix; chunks_aligned: the chunk is 16-byte
                // aligned and wholly inside or wholly outside; dst is in this stage.
                unsafe {
                    gpu::cp_async_bf16x8(dst, src, row * cols + col, inside(row, col, rows, cols))
                };
            } else {
                let elem = |i: u32| {
                    if inside(row, col + i, rows, cols) {
                        // SAFETY: inside the matrix.
                        unsafe { gpu::load_bf16(src, row * cols + col + i) }
                    } else {
                        0
                    }
                };
                let words = core::array::from_fn(|w| {
                    gpu::pack_bf16x2(elem(2 * w as u32), elem(2 * w as u32 + 1))
                });
                // SAFETY: dst is a 16-byte aligned chunk of this stage, which no thread reads until
                // the barrier before its slice.
                unsafe { gpu::shared_store4(dst, words) };
            }
        };

        // The pipeline's first STAGES-1 slices; a group is committed even when empty so that the
        // wait below always counts the same number of groups.
        for kt in 0..s.stages - 1 {
            if kt < slices {
                for j in 0..s.copies_per_slice() {
                    copy(kt, kt, j, a_src, b_src);
                }
            }
            if INTERIOR {
                (a_src, b_src) = advance(a_src, b_src);
            }
            gpu::cp_async_commit();
        }

        // The warp's A fragments (one ldmatrix.x4 per m-tile) and B fragments (one
        // ldmatrix.x4.trans per pair of n-tiles) at k16 step `kk` of the slice in `stage`. The
        // lane's part of each address is the same every slice (LLVM keeps it in a register per
        // k-step or n-pair); the m-tile and k-step parts are constants (`mma_shape.rs`).
        let fragments = |stage: u32, kk: u32| {
            let at = smem + stage * s.stage_bytes();
            let a_at = at + s.a_lane_offset(warp, lane, kk);
            // SAFETY: the whole warp loads (uniform control flow); addresses inside the stage.
            let a_frag: [[u32; 4]; MI] = core::array::from_fn(|mi| unsafe {
                gpu::ldmatrix_x4(a_at + s.a_tile_step(mi as u32))
            });
            let mut b_frag = [[0u32; 2]; NI];
            for nj in 0..NI / 2 {
                let b_at = at + s.b_lane_offset(warp, lane, nj as u32) + s.b_step(kk);
                // SAFETY: as above.
                let v = unsafe { gpu::ldmatrix_x4_trans(b_at) };
                b_frag[2 * nj] = [v[0], v[1]];
                b_frag[2 * nj + 1] = [v[2], v[3]];
            }
            (a_frag, b_frag)
        };

        // Slice 0 has landed (this thread's copies; after the barrier, every thread's).
        gpu::cp_async_wait(s.stages - 2);
        gpu::sync_threads();
        let mut acc = [[[0.0f32; 4]; NI]; MI];
        let mut stage = 0;
        // As in gemm_tuned.rs: the barrier that hands the block the next slice sits before the last
        // k-step's mma, whose fragments are already in registers, so the next slice's first
        // fragment loads overlap them instead of following an idle barrier. The refill of the
        // stage slice kt-1 used is spread over the slice's k-steps on the edge paths, whose copies
        // each cost a dozen instructions; the interior path issues its copies (an instruction each)
        // all at the slice's first k-step, which leaves one group of them in the loop, not one per
        // k-step (ptxas pads each group with never-issued loads), and measured 1.02-1.03x faster
        // for M7 and M9 (results/2026-12-01-h200/logs/bf16s4/call-2).
        let copy_step = |j: u32| if INTERIOR { 0 } else { s.copy_step(j) };
        let mut current = fragments(stage, 0);
        for kt in 0..slices {
            let refill = kt + s.stages - 1;
            let refill_stage = if stage == 0 { s.stages - 1 } else { stage - 1 };
            for kk in 0..s.k_steps() {
                if refill < slices {
                    for j in 0..s.copies_per_slice() {
                        if copy_step(j) == kk {
                            copy(refill_stage, refill, j, a_src, b_src);
                        }
                    }
                }
                if INTERIOR && kk == copy_step(s.copies_per_slice() - 1) {
                    (a_src, b_src) = advance(a_src, b_src);
                }
                if kk + 1 == s.k_steps() {
                    gpu::cp_async_commit();
                }
                let next = if kk + 1 < s.k_steps() {
                    fragments(stage, kk + 1)
                } else {
                    stage = next_stage(stage, s.stages);
                    fragments(stage, 0)
                };
                let (a_frag, b_frag) = current;
                for (acc_row, a_tile) in acc.iter_mut().zip(&a_frag) {
                    for (acc_tile, b_tile) in acc_row.iter_mut().zip(&b_frag) {
                        // SAFETY: the whole warp runs every k-step (uniform control flow).
                        *acc_tile = unsafe { gpu::mma_bf16_m16n8k16(*acc_tile, *a_tile, *b_tile) };
                    }
                }
                current = next;
            }
        }
        gpu::cp_async_wait(0);

        // Epilogue: each accumulator register pair is two neighbouring columns of one row, stored
        // as one 8-byte access where C's rows allow (N even, C 8-byte aligned: the pair, starting
        // at an even column, is then wholly inside or outside), else one float at a time.
        let out = Output {
            c,
            m,
            n,
            alpha,
            beta,
            vector: n.is_multiple_of(2) && (c as usize).is_multiple_of(8),
        };
        for (mi, acc_row) in acc.iter().enumerate() {
            for (ni, acc_tile) in acc_row.iter().enumerate() {
                for half in 0..2 {
                    let (r, cc) = s.accumulator(warp, lane, mi as u32, ni as u32, 2 * half);
                    let vals = [acc_tile[2 * half as usize], acc_tile[2 * half as usize + 1]];
                    if INTERIOR && out.vector {
                        // SAFETY: INTERIOR: the tile is inside C; with `vector` the pair, at an
                        // even column, is 8-byte aligned.
                        unsafe { out.store_inside::<2>(row0 + r, col0 + cc, vals) };
                    } else {
                        // SAFETY: C holds M*N floats (the caller's contract); the pair starts at an
                        // even column, so with `vector` it is 8-byte aligned and wholly inside or
                        // outside C.
                        unsafe { out.store::<2>(row0 + r, col0 + cc, vals) };
                    }
                }
            }
        }
    }
}
