#!/usr/bin/env bash
# Session 32, GPU call S32a (2026-12-05): the run to commit with W9 in the table. On the H200 (S31c) W9 ran 1.024 of
# cuBLAS's kernel per clock at 4096³ under Nsight's base clock, where W8 ran 0.985; W10 ran 0.944 and stays out. The
# table on main now holds W9 (not W10): `host all` with nvcc's twin compared (its time: issue 32 allows 3 minutes, and
# lines of turns are a kind of their own on the short lists), then W9 under Nsight at 4096³ once more, the figure
# that put it in the table having been a single profile. ALL_S (default 330) is `host all`'s step limit: with
# little device time left, `ALL_S=250 bash ...call_s32a.sh` under a run limit of about 280 s keeps `host all`'s
# results (each step saves them) and leaves the profile to the run limit.
# PROFILE=0 leaves the profile out: S33a2 ran `host all` a second time on the same warm card, to see how far its BF16
# figures move from run to run: CALL=call_s33a2 ALL_S=290 PROFILE=0 bash scripts/h200-2026-12-05/call_s32a.sh
# Pack: scripts/gpu/pack.sh p9 --tests wgemm_gpu --twin; carry ["dist/p9"], results/ aside.
set -u
CALL=${CALL:-call_s32a}; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 "${ALL_S:-330}" all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
[ "${PROFILE:-1}" = 0 ] || ncu_base 400 90 ncu_w9_4096 'wgemm_bm128_bn128_bk64_s7_c2_x1$|nvjet' gemm_bf16 --variants W9 --size 4096
date -u; save
