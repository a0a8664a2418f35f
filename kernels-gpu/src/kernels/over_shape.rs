//! `over_shape!`: a register-tiled GEMM family's functions, all generic over one list of shape
//! constants written once.
//!
//! Such a family has a table entry generic over the line's shape (`gemm_tuned`: BM .. STAGES)
//! that picks, once per block, one of several copies of its body, each the body generic over the
//! same shape plus the flags of its way of staging. The body must stay a generic function over
//! those constants (taking the shape as a value instead lets LLVM order the code differently, and
//! the PTX changes), so the list is the signature of both; the macro writes it into each.
//!
//! ```ignore
//! over_shape! { [BM, BN, STAGES]
//!     pub unsafe fn entry(args: Args) { unsafe { body::<BM, BN, STAGES, true>(args) } }
//!     unsafe fn body<const FLAG: bool>(args: Args) { /* BM, BN, STAGES, FLAG */ }
//! }
//! ```
//! declares `entry<const BM: usize, const BN: usize, const STAGES: usize>` and
//! `body<const BM: usize, const BN: usize, const STAGES: usize, const FLAG: bool>`; attributes
//! and doc comments stay on their function.

macro_rules! over_shape {
    ($shape:tt $($(#[$attr:meta])* $vis:vis unsafe fn $name:ident
        $(<$(const $flag:ident: $flag_ty:ty),+>)? ($($arg:tt)*) $body:block)+) => {
        $($crate::kernels::over_shape::over_shape!(@one $shape $(#[$attr])* $vis unsafe fn $name
            [$($(const $flag: $flag_ty),+)?] ($($arg)*) $body);)+
    };
    (@one [$($c:ident),+] $(#[$attr:meta])* $vis:vis unsafe fn $name:ident
        [$($flags:tt)*] ($($args:tt)*) $body:block) => {
        $(#[$attr])*
        $vis unsafe fn $name<$(const $c: usize,)+ $($flags)*>($($args)*) $body
    };
}

pub(crate) use over_shape;
