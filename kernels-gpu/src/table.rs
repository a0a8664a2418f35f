//! The `variant_table!` macro: turns the table in `variants.rs` into host-visible constants,
//! compile-time checks that name the offending line, and (on nvptx64) one kernel entry per line.

/// Expands the variant table. See `variants.rs` for the one invocation.
macro_rules! variant_table {
    (
        gemm: [ $( ($gl:literal, $tm:literal, $tn:literal) ),* $(,)? ],
        memcpy: [ $( ($ml:literal, $th:literal, $ld:literal, $wd:literal) ),* $(,)? ],
        regs: ($rl:literal, [ $( $cap:literal ),* $(,)? ]) $(,)?
    ) => {
        /// GEMM variants, in table order.
        pub const GEMM: &[GemmVariant] = &[
            $( GemmVariant { label: $gl, tm: $tm, tn: $tn, entry: concat!("gemm_tm", $tm, "_tn", $tn) }, )*
        ];
        /// memcpy variants, in table order.
        pub const MEMCPY: &[MemcpyVariant] = &[
            $( MemcpyVariant {
                label: $ml, threads: $th, loads: $ld, width: $wd,
                entry: concat!("memcpy_t", $th, "_l", $ld, "_w", $wd),
            }, )*
        ];
        /// The register-cap experiment.
        pub const REGS: RegsExperiment = RegsExperiment { variant: $rl, caps: &[ $( $cap ),* ] };

        $( const _: () = {
            assert!($tm > 0 && $tn > 0, concat!("gemm variant ", $gl, ": TM and TN must be at least 1"));
            assert!(BM % $tm == 0 && BN % $tn == 0, concat!(
                "gemm variant ", $gl, ": the ", $tm, "x", $tn, " sub-tile does not divide the block tile"));
            assert!(BM * BN / ($tm * $tn) <= MAX_THREADS, concat!(
                "gemm variant ", $gl, ": ", $tm, "x", $tn, " needs more than 1024 threads per block"));
            // The tile staging (gemm.rs, `stage`) splits each thread's elements into its own
            // (row, col) plus per-pass constants, which needs power-of-two shapes.
            assert!(
                (BM * BN / ($tm * $tn)).is_power_of_two() && BM.is_power_of_two() && BN.is_power_of_two()
                    && BK.is_power_of_two(),
                concat!("gemm variant ", $gl, ": threads per block and tile sides must be powers of two"));
        }; )*
        $( const _: () = {
            assert!($th >= 1 && $th <= MAX_THREADS, concat!(
                "memcpy variant ", $ml, ": threads per block must be 1..=1024"));
            assert!($ld >= 1, concat!("memcpy variant ", $ml, ": LOADS must be at least 1"));
            assert!($wd == 1 || $wd == 2 || $wd == 4, concat!(
                "memcpy variant ", $ml, ": WIDTH must be 1, 2 or 4 floats"));
        }; )*
        const _: () = {
            assert!(find_gemm(GEMM, $rl).is_some(), concat!(
                "regs experiment: GEMM variant ", $rl, " is not in the gemm table"));
            assert!(caps_ascending(REGS.caps), "regs experiment: caps must be strictly ascending");
            $( assert!($cap >= MIN_REG_CAP && $cap <= MAX_REGS_PER_THREAD, concat!(
                "regs experiment: cap ", $cap, " is outside 16..=255")); )*
            assert!(entries_unique(GEMM, MEMCPY), "variant table: two lines share an entry name or label");
        };

        $(
            #[cfg(target_arch = "nvptx64")]
            const _: () = {
                #[export_name = concat!("gemm_tm", $tm, "_tn", $tn)]
                unsafe extern "ptx-kernel" fn entry(
                    a: *const f32, b: *const f32, c: *mut f32,
                    m: i32, n: i32, k: i32, alpha: f32, beta: f32,
                ) {
                    // SAFETY: the host's launch contract (see GemmVariant): grid (N/64, M/64),
                    // threads() threads, buffers of M*K, K*N and M*N floats.
                    unsafe { crate::gemm::gemm::<$tm, $tn>(a, b, c, m, n, k, alpha, beta) }
                }
            };
        )*
        $(
            #[cfg(target_arch = "nvptx64")]
            const _: () = {
                #[export_name = concat!("memcpy_t", $th, "_l", $ld, "_w", $wd)]
                unsafe extern "ptx-kernel" fn entry(src: *const f32, dst: *mut f32, n: u64) {
                    // SAFETY: the host's launch contract (see MemcpyVariant): THREADS threads,
                    // src and dst hold n floats, 16-byte aligned.
                    unsafe { crate::memcpy::memcpy::<$th, $ld, $wd>(src, dst, n) }
                }
            };
        )*
    };
}
