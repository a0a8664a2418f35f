//! Tensor-core plumbing: `ldmatrix`, `mma.sync`, 16-byte `cp.async` of bf16 with zero-fill, and
//! the element-wise staging the BF16 GEMM falls back to. Inline PTX for the same reasons as the
//! rest of `gpu.rs`: shared memory by 32-bit addresses, and instructions LLVM has no intrinsic
//! for on this target.

use core::arch::asm;

/// `ldmatrix.sync.aligned.m8n8.x4` (with `$trans` `.trans` or nothing) from shared address
/// `$addr`: this lane's four words.
macro_rules! ldmatrix_x4 {
    ($trans:literal, $addr:expr) => {{
        let (a, b, c, d): (u32, u32, u32, u32);
        asm!(
            concat!("ldmatrix.sync.aligned.m8n8.x4", $trans, ".shared.b16 {{{a}, {b}, {c}, {d}}}, [{addr}];"),
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            addr = in(reg32) $addr,
            options(pure, readonly, nostack, preserves_flags),
        );
        [a, b, c, d]
    }};
}

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: four 8 x 8 matrices of b16, lane `8j + i`
/// giving the shared address of row i of matrix j; register j of each lane receives two
/// elements of matrix j (`mma_layout::ldmatrix_element`).
///
/// # Safety
/// Every lane of the warp executes it together (no divergence), each with the 16-byte aligned
/// address of a 16-byte row inside the block's shared memory.
#[inline(always)]
pub unsafe fn ldmatrix_x4(addr: u32) -> [u32; 4] {
    // SAFETY: the caller's contract. `readonly`, not `nomem`: it must stay after the barrier and
    // the cp.async wait that make the rows it reads visible.
    unsafe { ldmatrix_x4!("", addr) }
}

/// [`ldmatrix_x4`] with `.trans`: each matrix is handed out transposed
/// (`mma_layout::ldmatrix_trans_element`), which turns rows of a row-major K x N slice of B into
/// the mma's column-major B fragments.
///
/// # Safety
/// As [`ldmatrix_x4`].
#[inline(always)]
pub unsafe fn ldmatrix_x4_trans(addr: u32) -> [u32; 4] {
    // SAFETY: as ldmatrix_x4.
    unsafe { ldmatrix_x4!(".trans", addr) }
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: D = A*B + C over the warp, this lane's
/// four accumulators in and out, its A (4 words) and B (2 words) fragments in (layouts in
/// `mma_layout.rs`).
///
/// Not `pure`: like the peer's `asm volatile`, every call is issued. The microbenchmark's ILP
/// accumulators start equal and see the same fragments, so a pure asm would let LLVM compute
/// one chain and copy it ILP times.
///
/// # Safety
/// Every lane of the warp executes it together (no divergence).
#[inline(always)]
pub unsafe fn mma_bf16_m16n8k16(d: [f32; 4], a: [u32; 4], b: [u32; 2]) -> [f32; 4] {
    let [mut d0, mut d1, mut d2, mut d3] = d;
    // SAFETY: the caller's contract; registers only.
    unsafe {
        asm!(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{{d0}, {d1}, {d2}, {d3}}}, \
             {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
            d0 = inout(reg32) d0, d1 = inout(reg32) d1, d2 = inout(reg32) d2,
            d3 = inout(reg32) d3,
            a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
            b0 = in(reg32) b[0], b1 = in(reg32) b[1],
            options(nomem, nostack, preserves_flags),
        );
    }
    [d0, d1, d2, d3]
}

/// Asynchronous copy of eight bf16, `src[index..index + 8]` (global, 16-byte aligned) to shared
/// address `dst` (16-byte aligned), bypassing L1 (`.cg`), or 16 zero bytes when `inside` is
/// false (source size 0: nothing is read, and the index is clamped to 0 so that no address
/// outside the matrix is even formed).
///
/// # Safety
/// When `inside`, the eight bf16 must be valid global memory not written during the kernel;
/// `dst` must lie in the block's shared memory.
#[inline(always)]
pub unsafe fn cp_async_bf16x8(dst: u32, src: *const u16, index: u32, inside: bool) {
    // SAFETY: the caller's contract; a false predicate turns the index and the size to 0.
    unsafe { cp_async_or_zeros!("cg", "16", "2"; dst, src, index, inside) }
}

/// Asynchronous copy of the eight bf16 at byte address `p + offset` (global, 16-byte aligned)
/// to shared address `dst` (16-byte aligned), bypassing L1 (`.cg`), with no predicate and no
/// zero-fill: the copy of a chunk known to lie inside its matrix. With `offset` a constant,
/// ptxas folds it into the copy's immediate.
///
/// # Safety
/// The eight bf16 at that address must be valid global memory, 16-byte aligned and not written
/// during the kernel; `dst` must lie in the block's shared memory.
#[inline(always)]
pub unsafe fn cp_async_bf16x8_at(dst: u32, p: *const u16, offset: u32) {
    // SAFETY: the caller's contract. Not `nomem`: the copy writes shared memory, so no shared
    // access may move across it.
    unsafe {
        asm!(
            "{{ .reg .u64 g, o; cvt.u64.u32 o, {offset}; add.s64 g, {p}, o;",
            "cvta.to.global.u64 g, g; cp.async.cg.shared.global [{dst}], [g], 16; }}",
            dst = in(reg32) dst, p = in(reg64) p, offset = in(reg32) offset,
            options(nostack, preserves_flags),
        );
    }
}

/// Reads the bf16 `p[index]` from global memory.
///
/// # Safety
/// `p[index]` must be a valid global bf16.
#[inline(always)]
pub unsafe fn load_bf16(p: *const u16, index: u32) -> u16 {
    // SAFETY: the caller's contract.
    unsafe { p.add(index as usize).read() }
}

/// Two bf16 in one 32-bit word, `lo` in the low half: the order of a fragment register and of
/// memory (little-endian).
#[inline(always)]
pub fn pack_bf16x2(lo: u16, hi: u16) -> u32 {
    u32::from(lo) | (u32::from(hi) << 16)
}

/// Writes four words to shared address `addr` (16-byte aligned) with one 128-bit store.
///
/// # Safety
/// `addr` must lie in the block's shared memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn shared_store4(addr: u32, v: [u32; 4]) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "st.shared.v4.b32 [{addr}], {{{x}, {y}, {z}, {w}}};",
            addr = in(reg32) addr,
            x = in(reg32) v[0], y = in(reg32) v[1], z = in(reg32) v[2], w = in(reg32) v[3],
            options(nostack, preserves_flags),
        );
    }
}

/// Writes two floats to shared address `addr` (8-byte aligned) with one 64-bit store.
///
/// # Safety
/// `addr` must lie in the block's shared memory, 8-byte aligned. Only an sm_90a kernel (W8's
/// staging of C) stores pairs so.
#[cfg(lab_sm90a)]
#[inline(always)]
pub unsafe fn shared_store2(addr: u32, v: [f32; 2]) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "st.shared.v2.f32 [{addr}], {{{x}, {y}}};",
            addr = in(reg32) addr, x = in(reg32) v[0], y = in(reg32) v[1],
            options(nostack, preserves_flags),
        );
    }
}

/// Writes two floats to `p[index..index + 2]` in global memory with one 64-bit store.
///
/// # Safety
/// The floats must be valid and 8-byte aligned.
#[inline(always)]
pub unsafe fn store_global2(p: *mut f32, index: u32, v: [f32; 2]) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.u32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "st.global.v2.f32 [g], {{{x}, {y}}}; }}",
            p = in(reg64) p, i = in(reg32) index, x = in(reg32) v[0], y = in(reg32) v[1],
            options(nostack, preserves_flags),
        );
    }
}

/// Reads two floats `p[index..index + 2]` from global memory (coherent path, one 64-bit load).
///
/// # Safety
/// The floats must be valid and 8-byte aligned.
#[inline(always)]
pub unsafe fn load_global2(p: *const f32, index: u32) -> [f32; 2] {
    let (x, y): (f32, f32);
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "{{ .reg .u64 g; mul.wide.u32 g, {i}, 4; add.s64 g, g, {p}; cvta.to.global.u64 g, g;",
            "ld.global.v2.f32 {{{x}, {y}}}, [g]; }}",
            x = out(reg32) x, y = out(reg32) y, p = in(reg64) p, i = in(reg32) index,
            options(readonly, nostack, preserves_flags),
        );
    }
    [x, y]
}
