#!/usr/bin/env bash
# The pack of calls S30a, S30b, S30c and S30d (sessions 30 and 31, 2026-12-05): HEAD with two lines added to the gemm_wgmma
# section of the variant table, after W8's, the lines of turns on 128x128 tiles that the calls check and time before
# they join the table for good, in clusters of one and of two (W10: each block loads half of B's boxes, multicast to
# both, as W5 does for W1):
#   ("W9",  wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 1 }), // 384
#   ("W10", wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 2 }), // 384
# built in a worktree of HEAD (dist/worktree-pp128), assembled first by `cargo xtask build --arch sm_90` (which fails
# on a spill or a serialized wgmma), then packed with nvcc's twin (whose header `--twin` regenerates) by
# scripts/gpu/pack.sh into dist/pp128/pack.tar.xz. Usage, from the repository root:
#   scripts/h200-2026-12-05/pack_s30a.sh
set -euo pipefail
root=$(pwd); wt=$root/dist/worktree-pp128
[ -d "$wt" ] || git worktree add --detach "$wt" HEAD
mkdir -p "$wt/dist"
f=$wt/kernels-gpu/src/variants.rs
w9='        ("W9",    wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 1 }), // 384'
w10='        ("W10",   wgmma_turns { block: (128, 128, 64), stages: 7, consumers: 2, cluster: 2 }), // 384'
grep -qF '("W9",' "$f" || sed -i "/(\"W8\", *wgmma {/a\\
$w10" "$f"
grep -qF '("W9",' "$f" || sed -i "/(\"W8\", *wgmma {/a\\
$w9" "$f"
for l in "$w9" "$w10"; do grep -qF "$l" "$f" || { echo "pack_s30a.sh: not in $f: $l" >&2; exit 1; }; done
(cd "$wt" && cargo run -q -p xtask -- build --arch sm_90 --out dist/kernels-sm90 > dist/kernels-sm90.log 2>&1) ||
  { tail -20 "$wt/dist/kernels-sm90.log" >&2; exit 1; }
grep -E -A3 "bm128_bn128_bk64_s7_c2_x[12]'" "$wt/dist/kernels-sm90/kernels_sm90a.sm_90a.ptxas.txt"
(cd "$wt" && scripts/gpu/pack.sh pp128 --tests wgemm_gpu --twin)
mkdir -p "$root/dist/pp128" && cp "$wt/dist/pp128/pack.tar.xz" "$wt/dist/pp128/twin_build.log" "$root/dist/pp128/"
