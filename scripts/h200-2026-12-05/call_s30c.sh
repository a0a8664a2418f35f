#!/usr/bin/env bash
# Session 30 (2026-12-05; no GPU was lent): prepared, not yet run. After call_s30a.sh, on the same pack (the table
# with W9's line, pack_s30a.sh): every line's split-K and streamed tails, W9's among the latter (W10, in clusters of two, deals its tail whole), every element checked
# and the same bits on every launch. S28c gave these two tests 330 s; they passed in 237 s.
# Pack: scripts/h200-2026-12-05/pack_s30a.sh; carry ["dist/pp128"], results/ aside. PACK names another pack under
# dist/ and CALL the call's name: session 33 ran the checks on main's table with W9 (S33c) as
#   PACK=p9 CALL=call_s30c_p9 bash scripts/h200-2026-12-05/call_s30c.sh   (pack.sh p9 --tests wgemm_gpu --twin)
set -u
CALL=${CALL:-call_s30c}; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack "dist/${PACK:-pp128}/pack.tar.xz" "$W/new"; use_host "$W/new"; env_line
step 5 400 checks.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 the_split_k_lines \
  the_streamed_tails_are_checked
grep -h -E "FAILED|test result|panicked|rc=" "$O/checks.log" | cut -c1-300
date -u; save
