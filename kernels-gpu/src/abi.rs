//! The kernel ABI as the host sees it: parameter kinds, launch arguments, and the trait that maps
//! a kernel-side parameter type (`*const f32`, `i32`, ...) to what the host pushes for it.
//!
//! Each family's parameter list is written once, in the `abi:` section of the variant table. From
//! it the table generates the nvptx entry signature of every line of the family and a params
//! struct for the host (`GemmParams`, `MemcpyParams`, ...) whose `args()` gives the arguments in
//! the entry's order. `xtask/tests/build.rs` checks [`Param`] lists against the `.param` lists of
//! the built PTX, so a declaration the compiler does not follow fails a test.

use core::ffi::c_void;

/// The kind of one entry parameter, as far as the launch is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// A device pointer (a 64-bit global address).
    Ptr,
    I32,
    U32,
    U64,
    F32,
}

impl ParamKind {
    /// The PTX `.param` type rustc's nvptx backend declares for this kind (`i32` and `u32` are
    /// both `.u32` there; pointers carry a `.ptr` attribute).
    pub const fn ptx_type(self) -> &'static str {
        match self {
            ParamKind::Ptr | ParamKind::U64 => ".u64",
            ParamKind::I32 | ParamKind::U32 => ".u32",
            ParamKind::F32 => ".f32",
        }
    }

    /// Whether the PTX parameter carries the `.ptr` attribute.
    pub const fn is_ptr(self) -> bool {
        matches!(self, ParamKind::Ptr)
    }

    /// Bytes of the argument.
    pub const fn size(self) -> usize {
        match self {
            ParamKind::Ptr | ParamKind::U64 => 8,
            ParamKind::I32 | ParamKind::U32 | ParamKind::F32 => 4,
        }
    }
}

/// One declared entry parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The name in the declaration (and in the kernel function's signature).
    pub name: &'static str,
    pub kind: ParamKind,
}

/// One launch argument, in the entry's parameter order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KernelArg {
    /// A device address.
    Ptr(u64),
    I32(i32),
    U32(u32),
    U64(u64),
    F32(f32),
}

impl KernelArg {
    /// The parameter kind this argument fills.
    pub const fn kind(&self) -> ParamKind {
        match self {
            KernelArg::Ptr(_) => ParamKind::Ptr,
            KernelArg::I32(_) => ParamKind::I32,
            KernelArg::U32(_) => ParamKind::U32,
            KernelArg::U64(_) => ParamKind::U64,
            KernelArg::F32(_) => ParamKind::F32,
        }
    }

    /// A pointer to the argument's value, as `cuLaunchKernel`'s `kernelParams` wants one per
    /// parameter. Valid while `self` is neither moved nor dropped.
    pub fn value_ptr(&mut self) -> *mut c_void {
        match self {
            KernelArg::Ptr(v) | KernelArg::U64(v) => (v as *mut u64).cast(),
            KernelArg::I32(v) => (v as *mut i32).cast(),
            KernelArg::U32(v) => (v as *mut u32).cast(),
            KernelArg::F32(v) => (v as *mut f32).cast(),
        }
    }
}

/// Receives a kernel's arguments in parameter order (e.g. a wrapper around cudarc's launch
/// builder, or a `kernelParams` array).
pub trait ArgSink {
    fn push(&mut self, arg: KernelArg);
}

/// A kernel-side parameter type and the host value that fills it.
pub trait AbiParam {
    /// What the launch passes.
    const KIND: ParamKind;
    /// The host's value for it: device pointers are 64-bit device addresses.
    type Host: Copy + core::fmt::Debug + PartialEq;
    /// The launch argument for a host value.
    fn arg(value: Self::Host) -> KernelArg;
}

impl<T> AbiParam for *const T {
    const KIND: ParamKind = ParamKind::Ptr;
    type Host = u64;
    fn arg(value: u64) -> KernelArg {
        KernelArg::Ptr(value)
    }
}

impl<T> AbiParam for *mut T {
    const KIND: ParamKind = ParamKind::Ptr;
    type Host = u64;
    fn arg(value: u64) -> KernelArg {
        KernelArg::Ptr(value)
    }
}

macro_rules! scalar_param {
    ($($t:ty => $kind:ident),* $(,)?) => {$(
        impl AbiParam for $t {
            const KIND: ParamKind = ParamKind::$kind;
            type Host = $t;
            fn arg(value: $t) -> KernelArg {
                KernelArg::$kind(value)
            }
        }
    )*};
}
scalar_param!(i32 => I32, u32 => U32, u64 => U64, f32 => F32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::{ChaseParams, FmaParams, GemmParams, MemcpyParams};

    #[test]
    fn gemm_keeps_the_peer_abi() {
        let kinds: [ParamKind; 8] = core::array::from_fn(|i| GemmParams::PARAMS[i].kind);
        use ParamKind::*;
        assert_eq!(kinds, [Ptr, Ptr, Ptr, I32, I32, I32, F32, F32]);
        let names: [&str; 8] = core::array::from_fn(|i| GemmParams::PARAMS[i].name);
        assert_eq!(names, ["a", "b", "c", "m", "n", "k", "alpha", "beta"]);
    }

    #[test]
    fn args_come_in_parameter_order_with_their_kinds() {
        let p = GemmParams {
            a: 0x1000,
            b: 0x2000,
            c: 0x3000,
            m: 64,
            n: 128,
            k: 32,
            alpha: 1.5,
            beta: -0.5,
        };
        let args = p.args();
        assert_eq!(
            args,
            [
                KernelArg::Ptr(0x1000),
                KernelArg::Ptr(0x2000),
                KernelArg::Ptr(0x3000),
                KernelArg::I32(64),
                KernelArg::I32(128),
                KernelArg::I32(32),
                KernelArg::F32(1.5),
                KernelArg::F32(-0.5),
            ]
        );
        for (arg, param) in args.iter().zip(GemmParams::PARAMS) {
            assert_eq!(arg.kind(), param.kind, "{}", param.name);
        }
        let m = MemcpyParams {
            src: 8,
            dst: 16,
            n: 1 << 33,
        };
        assert_eq!(
            m.args(),
            [
                KernelArg::Ptr(8),
                KernelArg::Ptr(16),
                KernelArg::U64(1 << 33)
            ]
        );
        let f = FmaParams {
            out: 4,
            a: 0.5,
            b: 2.0,
            iters: 64,
        };
        assert_eq!(f.args()[3], KernelArg::I32(64));
        let c = ChaseParams {
            next: 1,
            start: 2,
            steps: 3,
            out: 4,
        };
        assert_eq!(
            c.args(),
            [
                KernelArg::Ptr(1),
                KernelArg::U32(2),
                KernelArg::U32(3),
                KernelArg::Ptr(4)
            ]
        );
    }

    #[test]
    fn a_sink_receives_every_argument() {
        struct Collect([Option<KernelArg>; 8], usize);
        impl ArgSink for Collect {
            fn push(&mut self, arg: KernelArg) {
                self.0[self.1] = Some(arg);
                self.1 += 1;
            }
        }
        let mut sink = Collect([None; 8], 0);
        let f = FmaParams {
            out: 0xdead_0000,
            a: 1.0,
            b: 0.25,
            iters: 16,
        };
        f.push_args(&mut sink);
        assert_eq!(sink.1, 4);
        assert_eq!(sink.0[0], Some(KernelArg::Ptr(0xdead_0000)));
        assert_eq!(sink.0[2], Some(KernelArg::F32(0.25)));
    }

    #[test]
    fn value_pointers_point_at_the_payload() {
        let mut a = KernelArg::U64(0x0123_4567_89ab_cdef);
        // SAFETY: the pointer is to the u64 payload of `a`, alive here.
        let v = unsafe { *a.value_ptr().cast::<u64>() };
        assert_eq!(v, 0x0123_4567_89ab_cdef);
        let mut f = KernelArg::F32(2.5);
        // SAFETY: as above, an f32 payload.
        assert_eq!(unsafe { *f.value_ptr().cast::<f32>() }, 2.5);
        assert_eq!(ParamKind::Ptr.ptx_type(), ".u64");
        assert!(ParamKind::Ptr.is_ptr() && !ParamKind::U64.is_ptr());
    }
}
