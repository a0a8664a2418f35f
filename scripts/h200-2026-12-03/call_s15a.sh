#!/usr/bin/env bash
# Session 15, GPU call S15a (2026-12-03): where `host all` with nvcc's twin spends its time (issue 31: at most
# 3 minutes; S14a took 3 min 37 s). A pack of the tree with a temporary phase log (LAB_PHASE_TIMES: elapsed-time
# marks on stderr around each row's timing, checks, race check and trace, each shape's buffers, choice and timing;
# not committed) runs `host all` once.
# Packs: scripts/gpu/pack.sh prof15 --twin (on the tree with host/src/phase_log.rs)
set -u
CALL=call_s15a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/prof15/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
step 10 330 all.log env LAB_PHASE_TIMES=1 bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep -E "^real|rc=" "$O/all.log"
grep "phase" "$O/all.log" | awk '{t=$2; d=t-p; p=t; printf "%8.3f %s\n", d, $0}' | sort -rn | head -40
date -u; save
