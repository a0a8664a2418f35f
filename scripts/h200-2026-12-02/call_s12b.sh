#!/usr/bin/env bash
# Session 12, second GPU call (2026-12-02); call S12a lacked the peer's source. (1) Where `host all`'s time goes:
# `host all` with nvcc's twin, on a host built with a temporary phase trace (TRACE lines on stderr: experiment
# start/end, the GEMM experiments' phases: timing, element checks, race check), not committed. (2) The peer against
# itself (issue 31 item 3's control), three processes each of `host mma --no-wgmma` and `host ilp`.
# Packs: scripts/gpu/pack.sh s12b --twin; cp -r ../shared/peer dist/s12b/peer-src; repack.
set -u
CALL=call_s12b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s12b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host; TW=$W/new/twin
mkdir -p $W/peer; nvcc -cubin -O3 -arch=sm_90 -Xptxas -v $W/new/peer-src/blog_kernels.cu -o $W/peer/peer.cubin > "$O/peer_build.log" 2>&1; echo "rc=$?" >> "$O/peer_build.log"
P=$W/peer/peer.cubin
for i in 1 2 3; do
  step 150 60 mma_control_$i.log $H mma --no-wgmma --module $P --compare $P --compare-label peer --out $O/mma_control_$i
  step 180 40 ilp_control_$i.log $H ilp --module $P --compare $P --compare-label peer --out $O/ilp_control_$i
done
step 220 330 all.log bash -c "time $H all --out $O/all --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
grep TRACE "$O/all.log" | grep experiment
grep -h -E "^real|rc=" $O/*.log | sort | uniq -c
date -u; save
