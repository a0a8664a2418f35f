#!/usr/bin/env bash
# Sessions 30 and 31 (2026-12-05; no GPU was lent to either): prepared, not yet run. The run to commit, once call_s30a
# has checked W9 and W10 and one has cleared W8 per clock: `host all` with nvcc's twin on the pack of pack_s30a.sh
# (the table with both lines, and the choice that ranks lines of turns as a kind of their own, d804f8f), then the JIT's
# report of every wgemm entry on its own. If only one of the two lines passed, drop the other from the table on main,
# pack anew (scripts/gpu/pack.sh pp128 --tests wgemm_gpu --twin) and send that instead. Watch `host all`'s time: the
# kind of turns adds its lines to most shapes' short lists (issue 32: within 3 minutes).
# Pack: dist/pp128; carry ["dist/pp128"], results/ aside.
set -u
CALL=call_s30b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/pp128/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 330 all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
step 360 220 jit.log "$W/new/tests/wgemm_gpu" --ignored --test-threads 1 --nocapture the_jit_reports
grep -h -E "^W(9|10)|FAILED|test result|panicked|rc=" "$O/jit.log" | cut -c1-300
date -u; save
