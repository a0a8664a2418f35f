#!/usr/bin/env bash
# Session 31, GPU call S31c (2026-12-05): W9 and W10 on an H200. On the H100 (S30a, S31a, S31b) both lines of turns
# ran about 0.86 of cuBLAS per clock at 4096³ (W6 0.864, W9 0.862; W10 0.916), their L2-to-SM crossbar about 80% busy,
# where W8 ran 0.976. On the H200, W6 had run 0.984 (S22f): the card, not the schedule, may be what held them. On an
# H200 only (it stops at once on another card, whose figures S30a has): Nsight at the base clock for W9, W8 and W10,
# each beside cuBLAS's kernel, at 4096³, and medians of W8, W9 and W10 beside cuBLAS at 4096³ and 8192³.
# Pack: dist/pp128 (pack_s30a.sh); carry ["dist/pp128"], results/ aside.
set -u
CALL=call_s31c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line
if ! grep -q H200 "$O/env.txt"; then echo "not an H200: $(sed -n 2p "$O/env.txt")"; save; exit 0; fi
unpack dist/pp128/pack.tar.xz "$W/new"; use_host "$W/new"
# The decisive figure first (a short lease may end the call early): W9 per clock, then the medians, then the rest.
ncu_base 5 90 ncu_w9_4096 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
step 100 90 medians_4096.log "$W/new/host" gemm_bf16 --variants W8,W9,W10 --size 4096
grep -h -E "^│ (W[0-9]|cuBLAS)|rc=" "$O/medians_4096.log" | cut -c1-220
ncu_base 195 90 ncu_w8_4096 'wgemm_bm128_bn256_bk64_s3_c2_x1$|nvjet' gemm_bf16 --variants W8 --size 4096
ncu_base 290 90 ncu_w10_4096 'wgemm_bm128_bn128_bk64_s7_c2_x2$|nvjet' gemm_bf16 --variants W10 --size 4096
step 385 110 medians_8192.log "$W/new/host" gemm_bf16 --variants W8,W9,W10 --size 8192
grep -h -E "^│ (W[0-9]|cuBLAS)|rc=" "$O/medians_8192.log" | cut -c1-220
date -u; save
