#!/usr/bin/env bash
# Session 12, first GPU call (2026-12-02). (1) The peer-against-peer control of issue 31 item 3: the peer's nvcc build
# compared with itself in `host mma` (mma.sync only) and `host ilp`, three processes each, to show which points are
# multimodal. (2) Where `host all`'s time goes (issue 31 wants <= 3 min with the twin): `host occupancy` and
# `host regs` timed whole, with --check-only, and on one line, with a stack sampler if the machine has one.
# Packs: scripts/gpu/pack.sh s12a  (plus the unstripped host copied to dist/s12a/host-dbg.xz)
set -u
CALL=call_s12a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s12a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
{ for t in nsys gdb eu-stack perf py-spy; do echo "$t: $(command -v $t)"; done; ls /usr/local/cuda/bin | tr '\n' ' '; } > "$O/tools.txt" 2>&1
bash ../shared/peer/build.sh "$W/peer" sm_90 > "$O/peer_build.log" 2>&1; echo "rc=$?" >> "$O/peer_build.log"
P=$W/peer/peer.cubin
for i in 1 2 3; do
  step 200 60 mma_control_$i.log $H mma --no-wgmma --module $P --compare $P --compare-label peer --out $O/mma_control_$i
  step 230 40 ilp_control_$i.log $H ilp --module $P --compare $P --compare-label peer --out $O/ilp_control_$i
done
step 330 100 occ_full.log bash -c "time $H occupancy --out $O/occ_full"
step 400 60 occ_check_only.log bash -c "time $H occupancy --check-only"
step 440 40 occ_one_line.log bash -c "time $H occupancy --variants C"
step 480 60 regs_check_only.log bash -c "time $H regs --check-only"
grep -h -E "^real|rc=" $O/*.log | sort | uniq -c
date -u; save
