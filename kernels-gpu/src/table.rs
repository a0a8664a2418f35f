//! The `variant_table!` macro: turns the table in `variants.rs` into host-visible constants,
//! compile-time checks that name the offending line, and (on nvptx64) one kernel entry per line.

/// Expands the variant table. See `variants.rs` for the one invocation.
macro_rules! variant_table {
    (
        gemm: [ $( ($gl:literal, $gfam:ident $gshape:tt) ),* $(,)? ],
        memcpy: [ $( ($ml:literal, $th:literal, $ld:literal, $wd:literal) ),* $(,)? ],
        regs: ($rl:literal, [ $( $cap:literal ),* $(,)? ]) $(,)?
    ) => {
        /// GEMM variants, in table order.
        pub const GEMM: &[GemmVariant] = &[ $( gemm_variant!($gl, $gfam $gshape), )* ];
        /// memcpy variants, in table order.
        pub const MEMCPY: &[MemcpyVariant] = &[
            $( MemcpyVariant {
                label: $ml, threads: $th, loads: $ld, width: $wd,
                entry: concat!("memcpy_t", $th, "_l", $ld, "_w", $wd),
            }, )*
        ];
        /// The register-cap experiment.
        pub const REGS: RegsExperiment = RegsExperiment { variant: $rl, caps: &[ $( $cap ),* ] };

        $( gemm_checks!($gl, $gfam $gshape); )*
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

        $( gemm_entry!($gl, $gfam $gshape); )*
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

/// One GEMM line as a [`GemmVariant`](crate::variants::GemmVariant), by family.
macro_rules! gemm_variant {
    ($gl:literal, seed { block: ($bm:literal, $bn:literal, $bk:literal), thread: ($tm:literal, $tn:literal) $(,)? }) => {
        GemmVariant {
            label: $gl,
            family: GemmFamily::Seed,
            bm: $bm,
            bn: $bn,
            bk: $bk,
            warp: None,
            tm: $tm,
            tn: $tn,
            stages: 1,
            entry: concat!("gemm_tm", $tm, "_tn", $tn),
        }
    };
    ($gl:literal, tuned {
        block: ($bm:literal, $bn:literal, $bk:literal), warp: ($wm:literal, $wn:literal),
        thread: ($tm:literal, $tn:literal), stages: $st:literal $(,)?
    }) => {
        GemmVariant {
            label: $gl,
            family: GemmFamily::Tuned,
            bm: $bm,
            bn: $bn,
            bk: $bk,
            warp: Some(($wm, $wn)),
            tm: $tm,
            tn: $tn,
            stages: $st,
            entry: concat!(
                "sgemm_bm", $bm, "_bn", $bn, "_bk", $bk, "_wm", $wm, "_wn", $wn, "_tm", $tm, "_tn",
                $tn, "_s", $st
            ),
        }
    };
}

/// The compile-time checks of one GEMM line, each naming the line.
macro_rules! gemm_checks {
    ($gl:literal, seed { block: ($bm:literal, $bn:literal, $bk:literal), thread: ($tm:literal, $tn:literal) $(,)? }) => {
        const _: () = {
            assert!($bm == BM && $bn == BN && $bk == BK, concat!(
                "gemm variant ", $gl, ": the seed family's block tile is 64x64x8"));
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
        };
    };
    ($gl:literal, tuned {
        block: ($bm:literal, $bn:literal, $bk:literal), warp: ($wm:literal, $wn:literal),
        thread: ($tm:literal, $tn:literal), stages: $st:literal $(,)?
    }) => {
        const _: () = {
            let s = TunedShape { bm: $bm, bn: $bn, bk: $bk, wm: $wm, wn: $wn, tm: $tm, tn: $tn, stages: $st };
            if let Err(why) = tuned_shape_fits(&s) {
                // const panics take a literal message; `why` picks it.
                match why {
                    TunedMisfit::ThreadTile => panic!(concat!("gemm variant ", $gl,
                        ": the thread tile must be made of 4x4 blocks (TM, TN multiples of 4)")),
                    TunedMisfit::WarpTile => panic!(concat!("gemm variant ", $gl,
                        ": the warp tile must hold 32 thread tiles (WM/TM * WN/TN == 32)")),
                    TunedMisfit::BlockTile => panic!(concat!("gemm variant ", $gl,
                        ": the warp tile does not divide the block tile")),
                    TunedMisfit::Threads => panic!(concat!("gemm variant ", $gl,
                        ": more than 1024 threads per block")),
                    TunedMisfit::Staging => panic!(concat!("gemm variant ", $gl,
                        ": the threads do not split the A and B slices evenly (threads must be a multiple \
                         of BK and of BN/4, and divide BM*BK and BK*BN/4)")),
                    TunedMisfit::Stages => panic!(concat!("gemm variant ", $gl,
                        ": stages must be 2..=8")),
                    TunedMisfit::SharedMemory => panic!(concat!("gemm variant ", $gl,
                        ": the stages need more than the 227 KB of shared memory a block can opt into")),
                }
            }
        };
    };
}

/// The kernel entry of one GEMM line (nvptx64 only).
macro_rules! gemm_entry {
    ($gl:literal, seed { block: ($bm:literal, $bn:literal, $bk:literal), thread: ($tm:literal, $tn:literal) $(,)? }) => {
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            #[export_name = concat!("gemm_tm", $tm, "_tn", $tn)]
            unsafe extern "ptx-kernel" fn entry(
                a: *const f32,
                b: *const f32,
                c: *mut f32,
                m: i32,
                n: i32,
                k: i32,
                alpha: f32,
                beta: f32,
            ) {
                // SAFETY: the host's launch contract (see GemmVariant): grid (N/64, M/64),
                // threads() threads, buffers of M*K, K*N and M*N floats.
                unsafe { crate::gemm::gemm::<$tm, $tn>(a, b, c, m, n, k, alpha, beta) }
            }
        };
    };
    ($gl:literal, tuned {
        block: ($bm:literal, $bn:literal, $bk:literal), warp: ($wm:literal, $wn:literal),
        thread: ($tm:literal, $tn:literal), stages: $st:literal $(,)?
    }) => {
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            #[export_name = concat!("sgemm_bm", $bm, "_bn", $bn, "_bk", $bk, "_wm", $wm, "_wn", $wn,
                                                            "_tm", $tm, "_tn", $tn, "_s", $st)]
            unsafe extern "ptx-kernel" fn entry(
                a: *const f32,
                b: *const f32,
                c: *mut f32,
                m: i32,
                n: i32,
                k: i32,
                alpha: f32,
                beta: f32,
            ) {
                // SAFETY: the host's launch contract (see GemmVariant): grid(m, n), threads()
                // threads, dynamic_shared_bytes() of dynamic shared memory, buffers of M*K, K*N
                // and M*N floats.
                unsafe {
                    crate::gemm_tuned::gemm_tuned::<$bm, $bn, $bk, $wm, $wn, $tm, $tn, $st>(
                        a, b, c, m, n, k, alpha, beta,
                    )
                }
            }
        };
    };
}
