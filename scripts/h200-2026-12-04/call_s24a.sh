#!/usr/bin/env bash
# Session 24, GPU call S24a (2026-12-04): ptxas now runs with --split-compile=0 (host start, xtask, nvcc/build.sh).
# (1) ptxas on the GPU machine's CPUs, the Rust tensor and main modules (sm_90), without and with the flag: wall time,
#     and whether the SASS (nvdisasm -c) and the report (compile times apart) are the same; (2) `host all` with nvcc's
#     twin, its phase times beside S23c's (first experiment loaded at 17.8 s, 2 min 31.7 s in all).
# Pack: scripts/gpu/pack.sh s24a --twin; then the two modules' PTX, xz'd, into dist/s24a/ptx/. Sent with results/ set
# aside (scripts/gpu/results_aside.sh). As first run, step (2) had a deadline of 10 s and was skipped; it ran in the
# next call, call_s24a_all.sh (the deadline here is now what it should have been).
set -u
CALL=call_s24a; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s24a/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
nproc >> "$O/env.txt"
P=/usr/local/cuda/bin/ptxas; D=/usr/local/cuda/bin/nvdisasm; X=$W/ptx; mkdir -p "$X"
for m in kernels_tensor kernels; do
  xz -dc dist/s24a/ptx/$m.ptx.xz > "$X/$m.ptx"
  { for s in whole split; do
      f=(); [ $s = split ] && f=(--split-compile=0)
      /usr/bin/time -f "$m $s %e s wall %U s user" "$P" -arch=sm_90 -v "$X/$m.ptx" -o "$X/$m.$s.cubin" "${f[@]}" \
        2> "$X/$m.$s.txt"; tail -1 "$X/$m.$s.txt"
      "$D" -c "$X/$m.$s.cubin" > "$X/$m.$s.sass"
    done
    cmp -s "$X/$m.whole.sass" "$X/$m.split.sass" && echo "$m: SASS same" || echo "$m: SASS DIFFERS"
    diff -q <(grep -v "Compile time\|wall" "$X/$m.whole.txt") <(grep -v "Compile time\|wall" "$X/$m.split.txt") \
      >/dev/null && echo "$m: report same" || echo "$m: report DIFFERS"
  } >> "$O/ptxas_split.txt" 2>&1
done
cat "$O/ptxas_split.txt"; save
host_all 200 330 all.log all
grep -E "phase .*(since started|occ: loaded)|assembled by" "$O/all.log" | head -4
date -u; save
