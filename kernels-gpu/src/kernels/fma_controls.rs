//! The controls of the FMA ILP sweep: the same chains, rounds and result as `fma_ilp` (fma.rs),
//! each round one FP32 instruction whose operands differ from the three-register FFMA's, so
//! that what caps ILP 1 can be told apart (`FmaOp` in sections/probes.rs names each one's SASS;
//! `cargo test -p xtask --test build` checks the SASS ptxas makes of them). A value that must
//! be a register source goes through `gpu::in_register`: read straight from its parameter, ptxas
//! would take it from the constant bank or a uniform register instead.

use crate::gpu;
use crate::kernels::fma::chains;
use crate::variants::{FmaArgs, FFMA_IMM};

/// `x = x + a`: `FADD R, R, R`.
///
/// # Safety
/// As `fma::chains`, and every lane of each warp runs (whole warps, as the host launches).
#[inline(always)]
pub unsafe fn fadd<const ILP: usize>(args: FmaArgs) {
    let a = gpu::in_register(args.a);
    // SAFETY: the caller's contract is `chains`'.
    unsafe { chains::<ILP>(args, |x| x + a) }
}

/// `x = x * a`: `FMUL R, R, R`.
///
/// # Safety
/// As [`fadd`].
#[inline(always)]
pub unsafe fn fmul<const ILP: usize>(args: FmaArgs) {
    let a = gpu::in_register(args.a);
    // SAFETY: the caller's contract is `chains`'.
    unsafe { chains::<ILP>(args, |x| x * a) }
}

/// `x = fma(x, FFMA_IMM, x)`: `FFMA Rx, Rx, imm, Rx`.
///
/// # Safety
/// As `fma::chains`.
#[inline(always)]
pub unsafe fn ffma_imm<const ILP: usize>(args: FmaArgs) {
    // SAFETY: the caller's contract is `chains`'.
    unsafe { chains::<ILP>(args, |x| gpu::fma(x, FFMA_IMM, x)) }
}

/// `x = fma(x, a, x)`, `a` straight from its parameter: `FFMA Rx, Rx, UR, Rx` on sm_90 (the
/// constant through a uniform register).
///
/// # Safety
/// As `fma::chains`.
#[inline(always)]
pub unsafe fn ffma_const<const ILP: usize>(args: FmaArgs) {
    let a = args.a;
    // SAFETY: the caller's contract is `chains`'.
    unsafe { chains::<ILP>(args, |x| gpu::fma(x, a, x)) }
}
