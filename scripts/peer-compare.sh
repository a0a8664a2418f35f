#!/usr/bin/env bash
# The peer comparison of issue 31 (a benchmark, not a test; on the GPU machine): experiment 6 (`host mma`) and
# experiment 5 (`host ilp`) timed against the independent peer (../shared/peer/blog_kernels.cu built by nvcc:
# its mma_bf16_ilp* and fma_ilp* entries have the lab's entry contracts, ../shared/peer/README.md), each in N separate
# processes, beside a control in N processes of their own: the peer compared with itself (`--module PEER --compare
# PEER`, the same code on both sides), whose ratio departs from 1 only by how that point's time falls (noise, or the
# interleavings two warps on one scheduler settle into). The runs alternate ours and control so that a drift of the
# clock over the call reaches both. scripts/peer-compare.py reads OUT and prints the verdict per point.
#
# Usage: scripts/peer-compare.sh HOST PEER_DIR OUT [N] [-- EXTRA HOST FLAGS]
#   HOST      the release host binary (scripts/gpu/pack.sh packs one)
#   PEER_DIR  holds peer.cubin (`bash ../shared/peer/build.sh PEER_DIR sm_90`, nvcc on PATH)
#   OUT       a new folder: OUT/{mma,ilp}-{ours,control}-{i}/ (each a host --out folder), OUT/logs/*.log
#   N         processes per side and experiment (default 3; at least 3 for a median the issue accepts)
#   EXPERIMENTS  environment, default "mma ilp": which experiments to run
# Extra flags after `--` go to every host call (e.g. `-- --warps-per-sm 1,4,16,64` to cut the grid).
# The wgmma table (sm_90a, not in the peer) and experiment 5's FADD/FMUL controls (not in the peer) are left out.
set -euo pipefail
host=${1:?usage: peer-compare.sh HOST PEER_DIR OUT [N] [-- HOST FLAGS]}
peer_dir=${2:?usage: peer-compare.sh HOST PEER_DIR OUT [N] [-- HOST FLAGS]}
out=${3:?usage: peer-compare.sh HOST PEER_DIR OUT [N] [-- HOST FLAGS]}
shift 3
n=3
if [ $# -gt 0 ] && [ "$1" != "--" ]; then n=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
extra=("$@")
peer=$peer_dir/peer.cubin
[ -x "$host" ] || { echo "peer-compare.sh: no host binary at $host" >&2; exit 2; }
[ -f "$peer" ] || { echo "peer-compare.sh: no $peer (build it: bash ../shared/peer/build.sh $peer_dir sm_90)" >&2; exit 2; }
[ "$n" -ge 1 ] 2>/dev/null || { echo "peer-compare.sh: N must be a whole number >= 1, not $n" >&2; exit 2; }
[ "$n" -ge 3 ] || echo "peer-compare.sh: N=$n: fewer than the 3 processes a judged median needs" >&2
mkdir -p "$out/logs"
# Experiment-specific flags: what the peer lacks is left out.
flags_of() {
  case $1 in
    mma) echo "--no-wgmma" ;;
    ilp) echo "--controls none" ;;
    *) echo "peer-compare.sh: unknown experiment $1" >&2; exit 2 ;;
  esac
}
{
  echo "host: $host ($("$host" --version 2>/dev/null || echo 'no --version'))"
  echo "peer: $peer ($(sha256sum "$peer" | cut -c1-16))"
  echo "processes per side: $n; extra flags: ${extra[*]:-none}"
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv 2>&1 || true
  date -u
} > "$out/env.txt"
start=$SECONDS
for i in $(seq 1 "$n"); do
  for exp in ${EXPERIMENTS:-mma ilp}; do
    for side in ours control; do
      dir=$out/$exp-$side-$i; log=$out/logs/$exp-$side-$i.log
      if [ "$side" = ours ]; then
        modules=(--compare "$peer" --compare-label peer)
      else
        modules=(--module "$peer" --compare "$peer" --compare-label peer)
      fi
      echo "## $exp $side $i ($((SECONDS - start)) s)"
      rc=0
      # shellcheck disable=SC2046 # the experiment's flags are separate words
      "$host" "$exp" $(flags_of "$exp") "${modules[@]}" --out "$dir" "${extra[@]}" > "$log" 2>&1 || rc=$?
      echo "rc=$rc" >> "$log"
      [ "$rc" = 0 ] || echo "   $exp $side $i exited $rc (see $log)"
    done
  done
done
echo "## done in $((SECONDS - start)) s: $out"
