//! The tuned SGEMM family, C = alpha*A*B + beta*C (row-major f32), any M, N, K >= 1.
//!
//! A block computes one BM x BN tile of C through a pipeline of `STAGES` K slices in dynamic
//! shared memory, filled with asynchronous copies (`cp.async`) while the block computes on an
//! earlier slice: A is copied one float at a time into a transposed slice (k-major), B four
//! floats at a time where its rows allow (else one at a time). Copies outside the matrices are
//! zero-filled, so edge tiles and a K that BK does not divide need no other case. Each warp owns
//! a WM x WN part of the tile, each lane TM x TN accumulators in 4 x 4 blocks, read as 128-bit
//! fragments (`tuned_shape.rs` holds the index arithmetic and the layout's reasons).

use crate::gpu;
use crate::kernels::gemm_epilogue::Output;
use crate::kernels::gemm_pipeline::next_stage;
use crate::kernels::over_shape::over_shape;
use crate::shapes::tuned_shape::{inside, rows_vectorizable, TunedShape, VEC};
use crate::variants::GemmArgs;

over_shape! { [BM, BN, BK, WM, WN, TM, TN, STAGES]
    /// # Safety
    /// Launched with `TunedShape::threads()` threads per block, grid (ceil(N/BN), ceil(M/BM)) and
    /// `TunedShape::shared_bytes()` bytes of dynamic shared memory; `a`, `b`, `c` hold M*K, K*N and
    /// M*N floats (4-byte aligned); `a` and `b` are not written during the kernel; M*K, K*N and
    /// M*N are below 2^32.
    #[inline(always)]
    pub unsafe fn gemm_tuned(args: GemmArgs) {
        let GemmArgs {
            a,
            b,
            c,
            m,
            n,
            k,
            alpha,
            beta,
        } = args;
        // Two copies of the kernel, one per way of staging B, chosen once: with the choice made
        // inside the K loop, ptxas if-converts the uniform branch and issues both ways' copies and
        // address arithmetic every slice, the unused way predicated off (SASS: `@P0`/`@!P0` pairs
        // of LDGSTS), some 30 issue slots a slice for nothing.
        // A third copy for blocks whose every copy lies inside A and B (the tile inside C, K a
        // multiple of BK): no bounds test or zero-fill size on any copy. In the general copy each
        // of A's one-float copies is ~10 SASS instructions a slice (the bound reloaded from the
        // constant bank, compared, the size selected, the address widened); the slice's 2048
        // FFMAs (R4) then take 87% of its issue slots.
        let interior = (gpu::block_idx_y() + 1) * BM as u32 <= m as u32
            && (gpu::block_idx_x() + 1) * BN as u32 <= n as u32
            && (k as u32).is_multiple_of(BK as u32);
        if rows_vectorizable(n as u32, b as usize) {
            if interior {
                // SAFETY: the caller's contract; B's rows allow 16-byte copies; every copy of
                // every slice of this block lies inside A and B.
                unsafe {
                    body::<BM, BN, BK, WM, WN, TM, TN, STAGES, true, true>(
                        a, b, c, m, n, k, alpha, beta,
                    )
                }
            } else {
                // SAFETY: the caller's contract; B's rows allow 16-byte copies.
                unsafe {
                    body::<BM, BN, BK, WM, WN, TM, TN, STAGES, true, false>(
                        a, b, c, m, n, k, alpha, beta,
                    )
                }
            }
        } else {
            // SAFETY: the caller's contract.
            unsafe {
                body::<BM, BN, BK, WM, WN, TM, TN, STAGES, false, false>(
                    a, b, c, m, n, k, alpha, beta,
                )
            }
        }
    }

    /// The kernel, with B staged 4 floats per copy (`B_VECTOR`) or one, and every copy known
    /// to lie inside A and B (`INTERIOR`) or tested.
    ///
    /// # Safety
    /// As [`gemm_tuned`]; with `B_VECTOR`, `rows_vectorizable(n, b)` holds; with `INTERIOR`, the
    /// block's tile lies inside C and BK divides K.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn body<const B_VECTOR: bool, const INTERIOR: bool>(
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        beta: f32,
    ) {
        let s = TunedShape {
            bm: BM as u32,
            bn: BN as u32,
            bk: BK as u32,
            wm: WM as u32,
            wn: WN as u32,
            tm: TM as u32,
            tn: TN as u32,
            stages: STAGES as u32,
        };
        let (m, n, k) = (m as u32, n as u32, k as u32);
        let t = gpu::thread_idx_x();
        let (row0, col0) = (gpu::block_idx_y() * s.bm, gpu::block_idx_x() * s.bn);
        let smem = gpu::dynamic_shared_base();
        let stage_bytes = 4 * s.stage_floats();
        let slices = k.div_ceil(s.bk);

        // An interior block's copies: this thread's first element of A and of B at slice 0, and
        // each further copy whole rows below it (`a_row_step`, `b_row_step`), so that a copy's
        // address is the slice's pointer plus a multiple of one stride.
        let (a_r, a_k) = s.a_load(t, 0);
        let a_thread = a.wrapping_add(((row0 + a_r) * k + a_k) as usize);
        let (b_r, b_c) = s.b_load(t, 0);
        let b_thread = b.wrapping_add((b_r * n + col0 + b_c) as usize);

        // Copy `j` of this thread's share of K slice `kt` into stage `stage`: copies below
        // `a_loads()` are floats of A, the rest 4-float groups of B.
        let copy = |stage: u32, kt: u32, j: u32| {
            let k0 = kt * s.bk;
            let a_dst = smem + stage * stage_bytes;
            if INTERIOR {
                if j < s.a_loads() {
                    let (r, kc) = s.a_load(t, j);
                    let at = a_thread.wrapping_add(k0 as usize);
                    // SAFETY: an interior block's copies lie inside A (the caller's contract).
                    unsafe {
                        gpu::cp_async_f32(
                            a_dst + 4 * (kc * s.a_pitch() + r),
                            at,
                            j * s.a_row_step() * k,
                            true,
                        )
                    };
                } else {
                    let e = j - s.a_loads();
                    let (kr, cc) = s.b_load(t, e);
                    let at = b_thread.wrapping_add((k0 * n) as usize);
                    let dst = a_dst + 4 * (s.b_offset() + kr * s.bn + cc);
                    // SAFETY: as above, inside B, whose rows allow 16-byte copies.
                    unsafe { gpu::cp_async_f32x4(dst, at, e * s.b_row_step() * n, true) };
                }
                return;
            }
            if j < s.a_loads() {
                let (r, kc) = s.a_load(t, j);
                let (row, col) = (row0 + r, k0 + kc);
                // SAFETY: read only when inside A; the destination is in this stage's A slice.
                unsafe {
                    gpu::cp_async_f32(
                        a_dst + 4 * (kc * s.a_pitch() + r),
                        a,
                        row * k + col,
                        inside(row, col, m, k),
                    )
                };
                return;
            }
            let (kr, cc) = s.b_load(t, j - s.a_loads());
            let (row, col) = (k0 + kr, col0 + cc);
            let dst = a_dst + 4 * (s.b_offset() + kr * s.bn + cc);
            if B_VECTOR {
                // SAFETY: rows_vectorizable: the group is 16-byte aligned and wholly inside B or
                // wholly outside (then zero-filled).
                unsafe { gpu::cp_async_f32x4(dst, b, row * n + col, inside(row, col, k, n)) };
            } else {
                for i in 0..VEC {
                    // SAFETY: read only when inside B.
                    unsafe {
                        gpu::cp_async_f32(
                            dst + 4 * i,
                            b,
                            row * n + col + i,
                            inside(row, col + i, k, n),
                        )
                    };
                }
            }
        };
        let stage_slice = |stage: u32, kt: u32| {
            for j in 0..s.copies_per_slice() {
                copy(stage, kt, j);
            }
        };

        // The pipeline's first STAGES-1 slices; a group is committed even when empty so that the
        // wait below always counts the same number of groups.
        for kt in 0..s.stages - 1 {
            if kt < slices {
                stage_slice(kt, kt);
            }
            gpu::cp_async_commit();
        }

        // A thread's TM rows of A and TN columns of B at depth kq of the slice in `stage`.
        let (tr, tc) = s.thread_origin(t);
        let fragments = |stage: u32, kq: u32| {
            let a_frags = smem + stage * stage_bytes + 4 * tr;
            let b_frags = smem + stage * stage_bytes + 4 * (s.b_offset() + tc);
            let mut a_frag = [0.0f32; TM];
            let mut b_frag = [0.0f32; TN];
            for i in 0..TM / 4 {
                let (dr, _) = s.accumulator_offset(4 * i as u32, 0);
                let v = gpu::shared_load4(a_frags, 4 * (kq * s.a_pitch() + dr));
                a_frag[4 * i..4 * i + 4].copy_from_slice(&v);
            }
            for j in 0..TN / 4 {
                let (_, dc) = s.accumulator_offset(0, 4 * j as u32);
                let v = gpu::shared_load4(b_frags, 4 * (kq * s.bn + dc));
                b_frag[4 * j..4 * j + 4].copy_from_slice(&v);
            }
            (a_frag, b_frag)
        };

        // Slice 0 has landed (this thread's copies; after the barrier, every thread's).
        gpu::cp_async_wait(s.stages - 2);
        gpu::sync_threads();
        let mut acc = [[0.0f32; TN]; TM];
        let mut stage = 0;
        // Register fragments are double-buffered: those of depth kq+1 are read while the products
        // of depth kq are summed, and across slices too. The barrier that hands the block the next
        // slice sits before the last depth's products, whose fragments are already in registers, so
        // the first reads of the next slice overlap them rather than following an idle barrier.
        let mut current = fragments(stage, 0);
        for kt in 0..slices {
            // Refill the stage that slice kt-1 used (every thread finished reading it before the
            // barrier at the end of slice kt-1) with slice kt+STAGES-1, its copies spread over the
            // depths of this slice (`copy_step`). The first version issued them all right after the
            // barrier, where every warp's copies queue at once and hold back the products behind
            // them in each warp's in-order stream; with that and no fragment prefetch across the
            // barrier, the 128x256x8 tile lost about 1000 cycles a slice to stalls on the H200 and
            // ran at 0.78 of cuBLAS; with both changes, 0.93 (results/h200/k2_bench.txt).
            let refill = kt + s.stages - 1;
            let refill_stage = if stage == 0 { s.stages - 1 } else { stage - 1 };
            for kq in 0..s.bk {
                if refill < slices {
                    for j in 0..s.copies_per_slice() {
                        if s.copy_step(j) == kq {
                            copy(refill_stage, refill, j);
                        }
                    }
                }
                if kq + 1 == s.bk {
                    gpu::cp_async_commit();
                }
                let next = if kq + 1 < s.bk {
                    fragments(stage, kq + 1)
                } else {
                    stage = next_stage(stage, s.stages);
                    fragments(stage, 0)
                };
                let (a_frag, b_frag) = current;
                for (acc_row, &a_val) in acc.iter_mut().zip(&a_frag) {
                    for (acc_val, &b_val) in acc_row.iter_mut().zip(&b_frag) {
                        *acc_val = gpu::fma(a_val, b_val, *acc_val);
                    }
                }
                current = next;
            }
        }
        gpu::cp_async_wait(0);

        // Epilogue: 4-float groups where C's rows allow, else one float at a time.
        let out = Output {
            c,
            m,
            n,
            alpha,
            beta,
            vector: rows_vectorizable(n, c as usize),
        };
        for (r, acc_row) in acc.iter().enumerate() {
            for jg in 0..TN / 4 {
                let (dr, dc) = s.accumulator_offset(r as u32, 4 * jg as u32);
                let vals = core::array::from_fn(|j| acc_row[4 * jg + j]);
                // SAFETY: C holds M*N floats (the caller's contract); rows_vectorizable: every
                // group at a column multiple of 4 is 16-byte aligned and wholly inside or outside
                // C.
                unsafe { out.store::<4>(row0 + tr + dr, col0 + tc + dc, vals) };
            }
        }
    }
}
