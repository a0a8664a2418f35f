//! The `variant_table!` macro: turns the table in `variants.rs` into host-visible constants,
//! compile-time checks that name the offending line, one params struct per kernel family, and
//! (on nvptx64) one kernel entry per line or grid point.

/// A family's two structs from its parameter list in the table's `abi:` section:
/// - the host's params struct: one field per parameter (device pointers become `u64` device
///   addresses), the declared list as `PARAMS`, and the launch arguments in that order;
/// - the kernel's argument struct (nvptx64): one field per parameter with its kernel-side type.
///   The entry builds it from its parameters by name and the kernel function destructures it by
///   name, so a reordered line cannot hand a kernel one parameter for another, and a renamed
///   one fails to compile.
macro_rules! kernel_params {
    ($family:literal, ($name:ident, $args:ident) ( $( $p:ident : $t:ty ),* $(,)? )) => {
        #[doc = concat!("The arguments of a `", $family, "` entry as its kernel function takes them.")]
        #[cfg(target_arch = "nvptx64")]
        #[derive(Clone, Copy)]
        pub struct $args {
            $( pub $p: $t, )*
        }

        #[doc = concat!("Launch arguments of every `", $family, "` entry, named and ordered as ",
                        "the table's `abi:` line declares them; pointers are device addresses.")]
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $name {
            $( pub $p: <$t as $crate::abi::AbiParam>::Host, )*
        }

        impl $name {
            /// The entry's parameter list, as declared (and as the PTX must show it).
            pub const PARAMS: &'static [$crate::abi::Param] = &[
                $( $crate::abi::Param {
                    name: stringify!($p),
                    kind: <$t as $crate::abi::AbiParam>::KIND,
                }, )*
            ];

            /// The launch arguments, in parameter order.
            pub fn args(&self) -> [$crate::abi::KernelArg; [$(stringify!($p)),*].len()] {
                [ $( <$t as $crate::abi::AbiParam>::arg(self.$p), )* ]
            }

            /// Pushes the launch arguments into `sink`, in parameter order.
            pub fn push_args(&self, sink: &mut impl $crate::abi::ArgSink) {
                $( sink.push(<$t as $crate::abi::AbiParam>::arg(self.$p)); )*
            }
        }

        impl $crate::abi::HostParams for $name {
            const PARAMS: &'static [$crate::abi::Param] = $name::PARAMS;
            fn push_args(&self, sink: &mut impl $crate::abi::ArgSink) {
                $name::push_args(self, sink)
            }
        }
    };
}

/// One nvptx64 kernel entry named `$name` with the family's parameter list, handing `$kernel`
/// the family's argument struct built from the parameters by name. An entry belongs to one of
/// the two PTX builds (xtask/src/ptx.rs): the plain one by default, the sm_90a one (`--cfg
/// lab_sm90a`) when the line starts `sm90a:`. Each build compiles only its own entries: the
/// sm_90a module keeps its few entries alone, and compiling the plain ones there as well made
/// that build several times longer for code it threw away.
macro_rules! kernel_entry {
    (sm90a: $($line:tt)+) => { kernel_entry!(@build (lab_sm90a) $($line)+); };
    (@build ($($build:tt)+) $name:expr, ($params:ident, $args:ident)
     ( $( $p:ident : $t:ty ),* $(,)? ), $($kernel:tt)+) => {
        #[cfg(all(target_arch = "nvptx64", $($build)+))]
        const _: () = {
            #[export_name = $name]
            unsafe extern "ptx-kernel" fn entry( $( $p: $t ),* ) {
                // SAFETY: the family's launch contract (documented on the kernel function and on
                // its host-side descriptor in variants.rs), which the host's launch follows.
                unsafe { $($kernel)+ ($args { $( $p ),* }) }
            }
        };
    };
    ($($line:tt)+) => { kernel_entry!(@build (not(lab_sm90a)) $($line)+); };
}

/// The traced twin of a GEMM line's entry `$name`, named `$name` + `_traced`
/// (`sections/block_trace.rs`' `TRACED_SUFFIX`, which the lines' `traced_entry()` and
/// kernels-gpu's tests hold to this literal): the entry's parameters and kernel function between
/// the block trace's start and end stamps (`kernels/block_trace.rs`). xtask gives it the entry's
/// launch bounds and register cap. In the build its timed entry is in, as `kernel_entry!`.
macro_rules! traced_entry {
    (sm90a: $($line:tt)+) => { traced_entry!(@build (lab_sm90a) $($line)+); };
    (@build ($($build:tt)+) $name:expr, ($params:ident, $args:ident)
     ( $( $p:ident : $t:ty ),* $(,)? ), $($kernel:tt)+) => {
        #[cfg(all(target_arch = "nvptx64", $($build)+))]
        const _: () = {
            #[export_name = concat!($name, "_traced")]
            unsafe extern "ptx-kernel" fn entry( $( $p: $t ),* ) {
                // SAFETY: the family's launch contract, as the timed entry's; the stamps run
                // from a traced entry, before and after the body, in every thread.
                unsafe {
                    crate::kernels::block_trace::before_body();
                    $($kernel)+ ($args { $( $p ),* });
                    crate::kernels::block_trace::after_body();
                }
            }
        };
    };
    ($($line:tt)+) => { traced_entry!(@build (not(lab_sm90a)) $($line)+); };
}

/// A GEMM line's two entries: `kernel_entry!`'s, timed, and `traced_entry!`'s twin beside it.
macro_rules! timed_and_traced_entries {
    ($name:expr, $abi:tt $plist:tt, $($kernel:tt)+) => {
        kernel_entry!($name, $abi $plist, $($kernel)+);
        traced_entry!($name, $abi $plist, $($kernel)+);
    };
}

/// The cartesian product THREADS x LOADS x WIDTH of a memcpy grid line, handed to `$cb` as one
/// list of `(threads, loads, width)` points in row-major order. One step per (threads, loads)
/// pair, all widths at once, so the recursion stays shallow (threads x loads steps).
macro_rules! grid_product {
    // Every thread count done: hand the points over.
    (@threads [$($acc:tt)*] [] $loads:tt $widths:tt => $cb:ident $ctx:tt) => {
        $cb! { $ctx [$($acc)*] }
    };
    // Next thread count: walk the whole loads list for it.
    (@threads $acc:tt [$t:literal $(, $ts:literal)*] $loads:tt $widths:tt => $cb:ident $ctx:tt) => {
        grid_product!(@loads $acc $t $loads [$($ts),*] $loads $widths => $cb $ctx);
    };
    // This thread count's loads done: back to the thread counts left.
    (@loads $acc:tt $t:literal [] $ts:tt $loads:tt $widths:tt => $cb:ident $ctx:tt) => {
        grid_product!(@threads $acc $ts $loads $widths => $cb $ctx);
    };
    // One (threads, loads) pair: every width.
    (@loads [$($acc:tt)*] $t:literal [$l:literal $(, $ls:literal)*] $ts:tt $loads:tt
        [$($w:literal),*] => $cb:ident $ctx:tt) => {
        grid_product!(@loads [$($acc)* $( ($t, $l, $w) )*] $t [$($ls),*] $ts $loads [$($w),*]
            => $cb $ctx);
    };
}

/// The memcpy grid's points as `MEMCPY_GRID` and one entry per point (`grid_product!`'s callback).
macro_rules! memcpy_grid_points {
    ( ($names:tt $abi:tt) [ $( ($t:literal, $l:literal, $w:literal) )* ] ) => {
        /// Every point of the memcpy grid line, THREADS-major, then LOADS, then WIDTH: one entry
        /// each.
        pub const MEMCPY_GRID: &[MemcpyPoint] = &[
            $( MemcpyPoint {
                threads: $t, loads: $l, width: $w,
                entry: concat!("memcpy_t", $t, "_l", $l, "_w", $w),
            }, )*
        ];
        $( kernel_entry!(concat!("memcpy_t", $t, "_l", $l, "_w", $w), $names $abi,
                         crate::kernels::memcpy::memcpy::<$t, $l, $w>); )*
    };
}

/// Expands the variant table. See `variants.rs` for the one invocation.
macro_rules! variant_table {
    (
        abi: {
            gemm: $gemm_names:tt $gemm_abi:tt,
            memcpy: $memcpy_names:tt $memcpy_abi:tt,
            fma_ilp: $fma_names:tt $fma_abi:tt,
            chase: $chase_names:tt $chase_abi:tt,
            gemm_ref: $ref_names:tt $ref_abi:tt,
            gemm_check: $check_names:tt $check_abi:tt,
            gemm_hash: $hash_names:tt $hash_abi:tt,
            gemm_bf16: $bf16_names:tt $bf16_abi:tt,
            mma_bf16_ilp: $mma_names:tt $mma_abi:tt,
            read: $read_names:tt $read_abi:tt $(,)?
        },
        gemm: [ $( ($gl:literal, $gfam:ident $gshape:tt) ),* $(,)? ],
        memcpy: {
            grid: (
                threads [ $( $gt:literal ),* $(,)? ],
                loads [ $( $gld:literal ),* $(,)? ],
                widths [ $( $gw:literal ),* $(,)? ] $(,)?
            ),
            labels: [ $( ($ml:literal, $th:literal, $ld:literal, $wd:literal) ),* $(,)? ] $(,)?
        },
        fma_ilp: [ $( $ilp:literal ),* $(,)? ],
        fma_controls: [ $( ($cop:ident, $cilp:literal) ),* $(,)? ],
        chase: ($ce:literal, $slot:literal),
        gemm_ref: ($gre:literal, $gr_tile:literal),
        gemm_check: ($gce:literal, $gc_threads:literal),
        gemm_hash: ($ghe:literal, $gh_threads:literal),
                regs: ($rl:literal, [ $( $cap:literal ),* $(,)? ]),
        gemm_bf16: [ $( ($hl:literal, mma {
            block: ($hbm:literal, $hbn:literal, $hbk:literal), warp: ($hwm:literal, $hwn:literal),
            mma: ($mm:literal, $mn:literal, $mk:literal), stages: $hst:literal $(,)?
        }) ),* $(,)? ],
        mma_bf16_ilp: [ $( $milp:literal ),* $(,)? ],
        read: [ $( ($rt:literal, $rld:literal, $rw:literal) ),* $(,)? ] $(,)?
    ) => {
        kernel_params!("gemm", $gemm_names $gemm_abi);
        kernel_params!("memcpy", $memcpy_names $memcpy_abi);
        kernel_params!("fma_ilp", $fma_names $fma_abi);
        kernel_params!("chase", $chase_names $chase_abi);
        kernel_params!("gemm_ref", $ref_names $ref_abi);
        kernel_params!("gemm_check", $check_names $check_abi);
        kernel_params!("gemm_hash", $hash_names $hash_abi);
        kernel_params!("gemm_bf16", $bf16_names $bf16_abi);
        kernel_params!("mma_bf16_ilp", $mma_names $mma_abi);
        kernel_params!("read", $read_names $read_abi);
        read_points!($read_names $read_abi, $( ($rt, $rld, $rw) ),*);

        /// GEMM variants, in table order.
        pub const GEMM: &[GemmVariant] = &[ $( gemm_variant!($gl, $gfam $gshape), )* ];
        /// The labelled memcpy variants (the `bandwidth` experiment's), in table order; each a
        /// point of [`MEMCPY_GRID`].
        pub const MEMCPY: &[MemcpyVariant] = &[
            $( MemcpyVariant {
                label: $ml,
                point: MemcpyPoint {
                    threads: $th, loads: $ld, width: $wd,
                    entry: concat!("memcpy_t", $th, "_l", $ld, "_w", $wd),
                },
            }, )*
        ];
        /// The FMA kernels, one per ILP, ascending.
        pub const FMA: &[FmaVariant] = &[
            $( FmaVariant { op: FmaOp::Ffma, ilp: $ilp, entry: concat!("fma_ilp", $ilp) }, )*
        ];
        /// The FMA sweep's controls, in table order: one FP32 op (not the three-register FFMA)
        /// at one ILP each.
        pub const FMA_CONTROLS: &[FmaVariant] = &[
            $( FmaVariant {
                op: match FmaOp::named(stringify!($cop)) {
                    Some(op) => op,
                    None => panic!(concat!("fma_controls line: no op called ", stringify!($cop))),
                },
                ilp: $cilp,
                entry: concat!(stringify!($cop), "_ilp", $cilp),
            }, )*
        ];
        /// The DRAM latency pointer chase.
        pub const CHASE: ChaseKernel = ChaseKernel { entry: $ce, slot_bytes: $slot };
        /// The GEMM check's f64 reference kernel.
        pub const GEMM_REF: GemmRefKernel = GemmRefKernel { entry: $gre, tile: $gr_tile };
        /// The GEMM check's comparison kernel.
        pub const GEMM_CHECK: GemmCheckKernel = GemmCheckKernel { entry: $gce, threads: $gc_threads };
        /// The GEMM check's hash of an output.
        pub const GEMM_HASH: GemmCheckKernel = GemmCheckKernel { entry: $ghe, threads: $gh_threads };
        /// The register-cap experiment.
        pub const REGS: RegsExperiment = RegsExperiment { variant: $rl, caps: &[ $( $cap ),* ] };

        grid_product!(@threads [] [$($gt),*] [$($gld),*] [$($gw),*]
            => memcpy_grid_points ($memcpy_names $memcpy_abi));

        $( gemm_checks!($gl, $gfam $gshape); )*
        const _: () = {
            $( assert!($gt >= 1 && $gt <= MAX_THREADS, concat!(
                "memcpy grid: threads ", $gt, " is outside 1..=1024")); )*
            $( assert!($gld >= 1 && $gld <= MAX_LOADS, concat!(
                "memcpy grid: loads ", $gld, " is outside 1..=64")); )*
            $( assert!($gw == 1 || $gw == 2 || $gw == 4, concat!(
                "memcpy grid: width ", $gw, " is not 1, 2 or 4 floats")); )*
            assert!(strictly_ascending(&[$($gt),*]),
                "memcpy grid: the threads list must be strictly ascending (no value twice)");
            assert!(strictly_ascending(&[$($gld),*]),
                "memcpy grid: the loads list must be strictly ascending (no value twice)");
            assert!(strictly_ascending(&[$($gw),*]),
                "memcpy grid: the widths list must be strictly ascending (no value twice)");
        };
        $( const _: () = {
            assert!($th >= 1 && $th <= MAX_THREADS, concat!(
                "memcpy variant ", $ml, ": threads per block must be 1..=1024"));
            assert!($ld >= 1, concat!("memcpy variant ", $ml, ": LOADS must be at least 1"));
            assert!($wd == 1 || $wd == 2 || $wd == 4, concat!(
                "memcpy variant ", $ml, ": WIDTH must be 1, 2 or 4 floats"));
            assert!(grid_has(MEMCPY_GRID, $th, $ld, $wd), concat!(
                "memcpy variant ", $ml, ": (", $th, ", ", $ld, ", ", $wd,
                ") is not a point of the memcpy grid line"));
        }; )*
        const _: () = {
            $( assert!($ilp >= 1 && $ilp <= MAX_ILP, concat!(
                "fma_ilp line: ILP ", $ilp, " is outside 1..=32")); )*
            assert!(strictly_ascending(&[$($ilp),*]),
                "fma_ilp line: ILPs must be strictly ascending (no value twice)");
            $( assert!($cilp >= 1 && $cilp <= MAX_ILP, concat!(
                "fma_controls line: ", stringify!($cop), " at ILP ", $cilp, " is outside 1..=32"));
               assert!(!str_eq(stringify!($cop), "ffma"),
                "fma_controls line: the three-register FFMA is the fma_ilp line, not a control"); )*
            assert!(controls_unique(FMA_CONTROLS),
                "fma_controls line: a (op, ILP) pair twice");
            assert!($slot >= 128 && $slot % 4 == 0, concat!(
                "chase line: slots of ", $slot, " bytes; want at least one 128-byte line of u32"));
            assert!($gr_tile >= 1 && $gr_tile * $gr_tile <= MAX_THREADS, concat!(
                "gemm_ref line: a ", $gr_tile, "x", $gr_tile, " tile needs 1..=1024 threads"));
            assert!($gc_threads >= 32 && $gc_threads <= MAX_THREADS && $gc_threads % 32 == 0, concat!(
                "gemm_check line: ", $gc_threads, " threads per block; want whole warps, at most 1024"));
            assert!($gh_threads >= 32 && $gh_threads <= MAX_THREADS && $gh_threads % 32 == 0, concat!(
                "gemm_hash line: ", $gh_threads, " threads per block; want whole warps, at most 1024"));
        };
        const _: () = {
            assert!(find_gemm(GEMM, $rl).is_some(), concat!(
                "regs experiment: GEMM variant ", $rl, " is not in the gemm table"));
            assert!(strictly_ascending(REGS.caps), "regs experiment: caps must be strictly ascending");
            $( assert!($cap >= MIN_REG_CAP && $cap <= MAX_REGS_PER_THREAD, concat!(
                "regs experiment: cap ", $cap, " is outside 16..=255")); )*
            assert!(entries_unique(GEMM, MEMCPY), "variant table: two lines share an entry name or label");
        };

        $( gemm_entry!($gemm_names $gemm_abi, $gl, $gfam $gshape); )*
        $( kernel_entry!(concat!("fma_ilp", $ilp), $fma_names $fma_abi,
                         crate::kernels::fma::fma_ilp::<$ilp>); )*
        $( kernel_entry!(concat!(stringify!($cop), "_ilp", $cilp), $fma_names $fma_abi,
                         crate::kernels::fma_controls::$cop::<$cilp>); )*
        kernel_entry!($ce, $chase_names $chase_abi, crate::kernels::chase::chase);
        kernel_entry!($gre, $ref_names $ref_abi,
                      crate::kernels::gemm_ref::gemm_ref::<$gr_tile, { $gr_tile * $gr_tile }>);
        kernel_entry!($gce, $check_names $check_abi, crate::kernels::gemm_judge::gemm_check);
        kernel_entry!($ghe, $hash_names $hash_abi, crate::kernels::gemm_hash::gemm_hash);

        /// BF16 tensor-core GEMM variants, in table order.
        pub const BF16_GEMM: &[Bf16GemmVariant] = &[ $( Bf16GemmVariant {
            label: $hl,
            shape: MmaShape { bm: $hbm, bn: $hbn, bk: $hbk, wm: $hwm, wn: $hwn, stages: $hst },
            entry: bf16_gemm_entry!($hbm, $hbn, $hbk, $hwm, $hwn, $mm, $mn, $mk, $hst),
            traced: concat!(bf16_gemm_entry!($hbm, $hbn, $hbk, $hwm, $hwn, $mm, $mn, $mk, $hst),
                            "_traced"),
        }, )* ];
        /// The tensor-core microbenchmarks, one per ILP, ascending.
        pub const MMA_ILP: &[MmaIlpVariant] = &[
            $( MmaIlpVariant { ilp: $milp, entry: concat!("mma_bf16_ilp", $milp) }, )*
        ];
        $( bf16_gemm_checks!($hl, ($hbm, $hbn, $hbk), ($hwm, $hwn), ($mm, $mn, $mk), $hst); )*
        const _: () = {
            assert!(bf16_lines_unique(GEMM, BF16_GEMM),
                "gemm_bf16: two lines share a label or an entry, or a label is also a gemm line's");
            $( assert!($milp >= 1 && $milp <= MAX_MMA_ILP, concat!(
                "mma_bf16_ilp line: ILP ", $milp, " is outside 1..=16")); )*
            assert!(strictly_ascending(&[$($milp),*]),
                "mma_bf16_ilp line: ILPs must be strictly ascending (no value twice)");
        };
        $( timed_and_traced_entries!(bf16_gemm_entry!($hbm, $hbn, $hbk, $hwm, $hwn, $mm, $mn, $mk, $hst),
                         $bf16_names $bf16_abi,
                         crate::kernels::gemm_mma::gemm_mma::<$hbm, $hbn, $hbk, { $hwm / 16 }, { $hwn / 8 }, $hst>); )*
        $( kernel_entry!(concat!("mma_bf16_ilp", $milp), $mma_names $mma_abi,
                         crate::kernels::mma_ilp::mma_bf16_ilp::<$milp>); )*
    };
}

/// The read line: `READ` (each point beside its copy's), the compile-time checks naming the
/// point at fault, and one entry per point.
macro_rules! read_points {
    ($names:tt $abi:tt, $( ($t:literal, $l:literal, $w:literal) ),*) => {
        /// The read-only kernels, in table order, each beside the memcpy grid point it mirrors.
        pub const READ: &[ReadPoint] = &[ $( ReadPoint {
            copy: MemcpyPoint {
                threads: $t, loads: $l, width: $w,
                entry: concat!("memcpy_t", $t, "_l", $l, "_w", $w),
            },
            entry: concat!("read_t", $t, "_l", $l, "_w", $w),
        }, )* ];
        $( const _: () = assert!(grid_has(MEMCPY_GRID, $t, $l, $w) && $t % READ_WARP == 0, concat!(
            "read line: (", $t, ", ", $l, ", ", $w, ") is not a point of the memcpy grid with \
             whole warps"));
        kernel_entry!(concat!("read_t", $t, "_l", $l, "_w", $w), $names $abi,
                      crate::kernels::read::read::<$t, $l, $w>); )*
    };
}

/// The entry name of a BF16 GEMM line.
#[rustfmt::skip]
macro_rules! bf16_gemm_entry {
    ($bm:literal, $bn:literal, $bk:literal, $wm:literal, $wn:literal, $mm:literal, $mn:literal,
     $mk:literal, $st:literal) => {
        concat!("bf16_gemm_bm", $bm, "_bn", $bn, "_bk", $bk, "_wm", $wm, "_wn", $wn,
                "_m", $mm, "n", $mn, "k", $mk, "_s", $st)
    };
}

/// The compile-time checks of one BF16 GEMM line, each naming the line.
#[rustfmt::skip]
macro_rules! bf16_gemm_checks {
    ($hl:literal, ($bm:literal, $bn:literal, $bk:literal), ($wm:literal, $wn:literal),
     ($mm:literal, $mn:literal, $mk:literal), $st:literal) => {
        const _: () = {
            let s = MmaShape { bm: $bm, bn: $bn, bk: $bk, wm: $wm, wn: $wn, stages: $st };
            if let Err(why) = mma_shape_fits(&s, ($mm, $mn, $mk)) {
                // const panics take a literal message; `why` picks it.
                match why {
                    MmaMisfit::MmaShape => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": the only mma shape implemented is (16, 8, 16), m16n8k16")),
                    MmaMisfit::WarpTile => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": the warp tile must be a multiple of 16 rows and a power of two of at \
                         least 16 columns")),
                    MmaMisfit::BlockTile => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": the warp tile does not divide the block tile")),
                    MmaMisfit::Threads => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": more than 1024 threads per block")),
                    MmaMisfit::Accumulators => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": more than 128 accumulators per thread (WM/16 * WN/8 * 4) do not fit \
                         in registers with their fragments")),
                    MmaMisfit::Depth => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": BK must be 32 or a multiple of 64 (rows of 4 chunks or of whole \
                         128-byte lines, for the swizzle)")),
                    MmaMisfit::Width => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": BN must be a multiple of 64 (B's rows whole 128-byte lines, for the \
                         swizzle)")),
                    MmaMisfit::Staging => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": the threads do not split the A and B slices' 16-byte chunks evenly \
                         (threads must divide BM*BK/8 and BK*BN/8)")),
                    MmaMisfit::Stages => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": stages must be 2..=8")),
                    MmaMisfit::SharedMemory => panic!(concat!("gemm_bf16 variant ", $hl,
                        ": the stages need more than the 227 KB of shared memory a block can \
                         opt into")),
                }
            }
        };
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
            traced: concat!("gemm_tm", $tm, "_tn", $tn, "_traced"),
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
            traced: concat!(
                "sgemm_bm", $bm, "_bn", $bn, "_bk", $bk, "_wm", $wm, "_wn", $wn, "_tm", $tm, "_tn",
                $tn, "_s", $st, "_traced"
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

/// The kernel entries of one GEMM line (nvptx64 only), timed and traced, with the family's
/// parameter list.
macro_rules! gemm_entry {
    ($names:tt $abi:tt, $gl:literal, seed { block: ($bm:literal, $bn:literal, $bk:literal), thread: ($tm:literal, $tn:literal) $(,)? }) => {
        timed_and_traced_entries!(concat!("gemm_tm", $tm, "_tn", $tn), $names $abi,
                                  crate::kernels::gemm::gemm::<$tm, $tn>);
    };
    ($names:tt $abi:tt, $gl:literal, tuned {
        block: ($bm:literal, $bn:literal, $bk:literal), warp: ($wm:literal, $wn:literal),
        thread: ($tm:literal, $tn:literal), stages: $st:literal $(,)?
    }) => {
        timed_and_traced_entries!(
            concat!("sgemm_bm", $bm, "_bn", $bn, "_bk", $bk, "_wm", $wm, "_wn", $wn, "_tm", $tm, "_tn", $tn, "_s", $st),
            $names $abi,
            crate::kernels::gemm_tuned::gemm_tuned::<$bm, $bn, $bk, $wm, $wn, $tm, $tn, $st>
        );
    };
}
