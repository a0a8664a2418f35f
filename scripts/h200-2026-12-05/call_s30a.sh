#!/usr/bin/env bash
# Sessions 30 and 31 (2026-12-05; no GPU was lent to either): prepared, not yet run. Lines W9 and W10, the table lines
# that pack_s30a.sh adds (`wgmma_turns`, with nvcc's twin): two consumer warpgroups take whole 128x128 tiles in turn
# (ping-pong), each issuing two m64n128k16 MMAs a k16 step, 7 slots of 32 KB, K whole. W9 runs in clusters of one and
# streams its last partial wave by the rule (as W6's; not at 4096³ or 8192³); W10 is W9 in clusters of two, each block
# loading half of the pair's B boxes, multicast to both (as W5 for W1), which brings its bytes per FLOP back to W1's.
# Ping-pong hides each tile's C under the other consumer's MMAs, as W6 does; W9 pays for it with 1.33 times W1's
# bytes per FLOP (W6: 1.67). docs/design.md, "What issue 32's per-clock bar asks at 4096³", estimates W9 at 1.01 to
# 1.04 per clock at 4096³ (two readings of W6's slower K loop); W10 is the form for the lower reading.
# Steps: (1) wgemm_gpu: every line, W9 and W10 among them, at the awkward sizes, every element checked (the JIT's
# report, which took 128 s alone in S28b, is call_s30d's); (2) W9 and W10 beside W8 and cuBLAS, medians, at 4096³ (with W2, the same
# 128x128 tiles shared by the consumers: W9 against W2 is what the turns buy) and 8192³; (3) Nsight Compute at the
# base clock, W9 and W10 each beside cuBLAS's kernel in one process, at 4096³ (W8 for reference: S28a 296,479 vs
# 292,296 cycles). Read with `python3 scripts/gpu/tensor_idle.py`. 8192³ under Nsight: call_s30d.sh.
# Pack: scripts/h200-2026-12-05/pack_s30a.sh; carry ["dist/pp128"], results/ aside. W9's streamed tails and every
# line's split-K are checked in a call of their own on the same pack: call_s30c.sh.
# If W9 or W10 passes and clears W8 per clock, add its line to the table on main (pack_s30a.sh's) and make the run to
# commit on the same pack: call_s30b.sh (`host all` and the JIT's report; its header says when to pack anew).
set -u
CALL=call_s30a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/pp128/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
step 5 100 checks.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 every_wgemm_line_passes_the_check
grep -h -E "FAILED|test result|panicked|rc=" "$O/checks.log" | cut -c1-300
step 110 80 medians_4096.log "$W/new/host" gemm_bf16 --variants W2,W8,W9,W10 --size 4096
step 195 100 medians_8192.log "$W/new/host" gemm_bf16 --variants W8,W9,W10 --size 8192
grep -h -E "^│ (W[0-9]|cuBLAS)|Ours/cuBLAS|rc=" "$O/medians_4096.log" "$O/medians_8192.log" | cut -c1-220
ncu_base 300 100 ncu_w9_4096 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
ncu_base 405 100 ncu_w10_4096 'wgemm_bm128_bn128_bk64_s7_c2_x2$|nvjet' gemm_bf16 --variants W10 --size 4096
date -u; save
