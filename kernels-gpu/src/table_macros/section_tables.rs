//! The macros of the variant table's later sections (`smem_copy`/`tma_copy`, `persistent_copy`,
//! `wgmma_bf16`,
//! `gemm_wgmma`), beside `table_macros/variant_table.rs`'s `variant_table!`. They name the kernels
//! each line instantiates, so they live here rather than in the sections' line files
//! (`sections/smem_copy.rs`, `sections/wgmma.rs`, `sections/gemm_wgmma.rs`): the kernels import
//! those files, and the files import no kernel back. Like every macro of the table, they expand in
//! `variants.rs`, where the line types and checks they name are in scope.

/// Expands the `smem_copy` section of the variant table (see `variants.rs`): its params structs,
/// [`SMEM_COPY`](crate::variants::SMEM_COPY) (the `cp.async` lines, then the `tma_copy` ones), the
/// checks of each line (naming it) and one entry per line: the `cp.async` ones in the plain
/// builds, the bulk ones in the sm_90a build only (each build compiles only its own entries).
macro_rules! smem_copy_table {
    (
        abi: ($params:ident, $args:ident) $plist:tt,
        smem_copy: [ $( ($t:literal, $b:literal, $s:literal) ),* $(,)? ],
        tma_copy: [ $( ($tt:literal, $tb:literal, $ts:literal) ),* $(,)? ],
    ) => {
        kernel_params!("smem_copy", ($params, $args) $plist);

        /// The copies whose bytes in flight live in shared memory, in table order.
        pub const SMEM_COPY: &[SmemCopyLine] = &[ $( SmemCopyLine {
            path: SmemPath::CpAsync,
            threads: $t,
            stage_bytes: $b,
            stages: $s,
            entry: concat!("cp_async_copy_t", $t, "_b", $b, "_s", $s),
        }, )* $( SmemCopyLine {
            path: SmemPath::Bulk,
            threads: $tt,
            stage_bytes: $tb,
            stages: $ts,
            entry: concat!("tma_copy_t", $tt, "_b", $tb, "_s", $ts),
        }, )* ];
        $( const _: () = assert!(smem_copy_misfit($t, $b, $s).is_none(), concat!(
            "smem_copy line (", $t, ", ", $b, ", ", $s, "): threads whole warps <= 1024, stage \
             bytes a multiple of 512, stages 2..=32, rings within 227 KiB (smem_copy_misfit \
             names the rule)")); )*
        $( const _: () = assert!(smem_copy_misfit($tt, $tb, $ts).is_none()
                && $ts <= MAX_BULK_STAGES && $tb <= MAX_BULK_STAGE_BYTES, concat!(
            "tma_copy line (", $tt, ", ", $tb, ", ", $ts, "): as smem_copy's rules, and at most \
             8 stages of at most 64 KiB")); )*
        const _: () = assert!(smem_copy_lines_unique(SMEM_COPY),
            "smem_copy/tma_copy: two lines share threads, stage bytes and stages");
        $( kernel_entry!(concat!("cp_async_copy_t", $t, "_b", $b, "_s", $s),
                         ($params, $args) $plist,
                         crate::kernels::smem_copy::cp_async_copy::<$t, { $b / 512 }, $s>); )*
        $( kernel_entry!(sm90a: concat!("tma_copy_t", $tt, "_b", $tb, "_s", $ts),
                         ($params, $args) $plist,
                         crate::kernels::sm90a::tma_copy::tma_copy::<$tt, $tb, $ts>); )*
    };
}

/// Expands the `persistent_copy` section of the variant table (see `variants.rs`): its params
/// structs, [`PERSISTENT_COPY`](crate::variants::PERSISTENT_COPY), the checks of each line (naming
/// it) and two entries per line: the timed one and its `_sampled` twin (`sections/copy_samples.rs`).
macro_rules! persistent_copy_table {
    (
        abi: ($params:ident, $args:ident) $plist:tt,
        persistent_copy: [ $( ($t:literal, $l:literal, $w:literal) ),* $(,)? ],
    ) => {
        kernel_params!("persistent_copy", ($params, $args) $plist);

        /// The persistent copies, in table order.
        pub const PERSISTENT_COPY: &[PersistentCopyLine] = &[ $( PersistentCopyLine {
            threads: $t,
            loads: $l,
            width: $w,
            entry: concat!("stream_copy_t", $t, "_l", $l, "_w", $w),
            sampled: concat!("stream_copy_t", $t, "_l", $l, "_w", $w, "_sampled"),
        }, )* ];
        $( const _: () = assert!(persistent_copy_misfit($t, $l, $w).is_none(), concat!(
            "persistent_copy line (", $t, ", ", $l, ", ", $w, "): threads whole warps <= 1024, \
             loads 1..=64, width 1, 2 or 4, a block's staged floats within half the register \
             file (persistent_copy_misfit names the rule)")); )*
        const _: () = assert!(persistent_copy_lines_unique(PERSISTENT_COPY),
            "persistent_copy: two lines share threads, loads and width");
        $( kernel_entry!(concat!("stream_copy_t", $t, "_l", $l, "_w", $w),
                         ($params, $args) $plist,
                         crate::kernels::persistent_copy::persistent_copy::<$t, $l, $w>); )*
        $( kernel_entry!(concat!("stream_copy_t", $t, "_l", $l, "_w", $w, "_sampled"),
                         ($params, $args) $plist,
                         crate::kernels::persistent_copy::sampled_copy::<$t, $l, $w>); )*
    };
}

/// Expands the `wgmma_bf16` section of the variant table (see `variants.rs`): its params
/// structs, [`WGMMA_BF16`](crate::variants::WGMMA_BF16), the checks of each line and, in the
/// sm_90a build only, one entry per line.
macro_rules! wgmma_table {
    (
        abi: ($params:ident, $args:ident) $plist:tt,
        wgmma_bf16: [ $( ($n:literal, $g:literal) ),* $(,)? ],
    ) => {
        kernel_params!("wgmma_bf16", ($params, $args) $plist);

        /// The wgmma microbenchmark's lines (sm_90a only), in table order.
        pub const WGMMA_BF16: &[WgmmaVariant] = &[ $( WgmmaVariant {
            n: $n,
            groups: $g,
            entry: concat!("wgmma_bf16_n", $n, "_g", $g),
        }, )* ];
        $( const _: () = {
            assert!(wgmma_n_supported($n), concat!(
                "wgmma_bf16 line (", $n, ", ", $g, "): N must be 64, 128 or 256"));
            assert!($g >= 1 && $g <= MAX_WGMMA_GROUPS, concat!(
                "wgmma_bf16 line (", $n, ", ", $g, "): groups must be 1..=16"));
        }; )*
        const _: () = assert!(wgmma_lines_unique(WGMMA_BF16),
            "wgmma_bf16: two lines share N and groups");
        $( kernel_entry!(sm90a: concat!("wgmma_bf16_n", $n, "_g", $g),
                         ($params, $args) $plist,
                         crate::kernels::sm90a::wgmma::wgmma_bf16::<{ $n / 2 }, $g>); )*
    };
}

/// A line's kernel from its family word and numbers.
#[cfg(all(target_arch = "nvptx64", lab_sm90a))]
macro_rules! ring_kernel {
    (mma_sync, $bm:literal, $bn:literal, $s:literal, $c:literal, $x:literal) => {
        crate::kernels::sm90a::gemm_tma_mma::gemm_tma_mma::<$bm, $bn, $s, $c, { $bn as usize / 32 }>
    };
    // `wgmma` and `wgmma_turns`: the accumulators are the line's own (`accumulators`).
    ($fam:ident, $bm:literal, $bn:literal, $s:literal, $c:literal, $x:literal) => {
        crate::kernels::sm90a::gemm_wgmma::gemm_wgmma::<
            $bm,
            $bn,
            $s,
            $c,
            $x,
            { ring_turns!($fam) },
            {
                WgemmVariant::kernel_line(
                    ($bm, $bn),
                    $s,
                    ($c, ring_turns!($fam)),
                    $x,
                    RingMma::Wgmma,
                )
                .accumulators() as usize
            },
            { consumer_regs($c) },
        >
    };
}

/// One `gemm_wgmma` line as a [`WgemmVariant`](crate::variants::WgemmVariant).
macro_rules! ring_line {
    ($label:literal, $fam:ident, $bm:literal, $bn:literal, $s:literal, $c:literal, $x:literal) => {
        WgemmVariant {
            label: $label,
            bm: $bm,
            bn: $bn,
            stages: $s,
            consumers: $c,
            cluster: $x,
            mma: ring_mma!($fam),
            turns: ring_turns!($fam),
            entry: ring_entry!($fam, $bm, $bn, $s, $c, $x),
        }
    };
}

/// The compile-time panic for a `gemm_wgmma` line that does not fit: its label and the rule of
/// each [`WgemmMisfit`](crate::variants::WgemmMisfit).
macro_rules! wgemm_misfit_panic {
    ($label:literal, $misfit:ident; $( $rule:ident => $why:literal, )*) => {
        match $misfit {
            $( WgemmMisfit::$rule => panic!(concat!("gemm_wgmma line ", $label, ": ", $why)), )*
        }
    };
}

/// Expands the `gemm_wgmma` section of the variant table (see `variants.rs`): its params
/// structs, [`WGEMM`](crate::variants::WGEMM), the checks of each line and, in the sm_90a build
/// only, each line's entry and its traced twin.
macro_rules! wgemm_table {
    (
        abi: ($params:ident, $args:ident) $plist:tt,
        gemm_wgmma: [ $( ($label:literal, $fam:ident {
            block: ($bm:literal, $bn:literal, 64), stages: $s:literal,
            consumers: $c:literal, cluster: $x:literal $(,)? }) ),* $(,)? ],
    ) => {
        kernel_params!("gemm_wgmma", ($params, $args) $plist);

        /// The warp-specialized GEMM's lines (sm_90a only), in table order.
        pub const WGEMM: &[WgemmVariant] = &[ $( ring_line!($label, $fam, $bm, $bn, $s, $c, $x), )* ];
        /// The traced twins' entries of [`WGEMM`]'s lines, in its order
        /// ([`WgemmVariant::traced_entry`]).
        pub const WGEMM_TRACED: &[&str] =
            &[ $( concat!(ring_entry!($fam, $bm, $bn, $s, $c, $x), "_traced"), )* ];
        $( const _: () = {
            if let Err(misfit) = wgemm_line_fits(&ring_line!($label, $fam, $bm, $bn, $s, $c, $x)) {
                wgemm_misfit_panic!($label, misfit;
                    Width => "BN must be 64, 128 or 256 (a wgmma N; four mma.sync warps of 16-column pairs)",
                    Consumers => "consumers must be 1, 2 or 3",
                    Height => "BM must be 64 per consumer warpgroup (on a wgmma_turns line, 64 or 128)",
                    Turns => "wgmma_turns needs two consumers",
                    Stages => "at least 2 stages",
                    SharedMemory => "the ring passes the 227 KB a block may opt into",
                    Cluster => "cluster must be 1, or 2 on a wgmma line whose BN is 128 or 256",
                    Registers => "the accumulators and fragments do not fit the registers a thread has at launch",
                );
            }
        }; )*
        const _: () = assert!(wgemm_lines_unique(WGEMM),
            "gemm_wgmma: two lines share a label or an entry");
        $( kernel_entry!(sm90a: ring_entry!($fam, $bm, $bn, $s, $c, $x), ($params, $args) $plist,
                         ring_kernel!($fam, $bm, $bn, $s, $c, $x)); )*
        $( traced_entry!(sm90a: ring_entry!($fam, $bm, $bn, $s, $c, $x), ($params, $args) $plist,
                         ring_kernel!($fam, $bm, $bn, $s, $c, $x)); )*
    };
}
