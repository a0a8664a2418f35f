#!/usr/bin/env bash
# Call B1 on the H200 (2026-12-02, tenth session, issue 30 item 7): nvcc's twin of the sm_90a module
# (nvcc/twin_sm90a.cu, built here by nvcc/build.sh beside twin.cubin) checked by the host, which finds
# twin_sm90a.cubin beside the --compare module and launches its entries where it launches ours from
# the sm_90a module, checking every result of it as it checks ours:
# 1. the wgmma microbenchmark (mma's second table, all 13 lines at 1, 2, 3, 4, 8 warpgroups/SM);
# 2. the TMA-fed GEMM lines W1-W3 (wgmma) and MT1-MT2 (mma.sync) at 4096^3 beside M1 and cuBLAS;
# 3. the same lines at 1000x776x1000 (edge tiles, a K that is no multiple of the ring's 64);
# 4. inflight with its shared-memory points (the bulk copies tma_copy_*), one register-held grid line.
# Pack (pack_b1.sh): dist/b/b1.tar.xz holds host (release, stripped) and twin/ (nvcc/build.sh OUT sm_90).
set -u
W=/tmp/b; O=$W/outb1; mkdir -p "$O"; tar xJf dist/b/b1.tar.xz -C "$W"
H=$W/host; TW="$W/twin/twin.cubin"; C=(--compare "$TW" --compare-label nvcc)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/env.txt" 2>&1; date -u >> "$O/env.txt"
save() { tar czf "$OUT/call_b1.tgz" -C "$W" outb1; }
step() { # deadline timeout log command...
  local d=$1 t=$2 log=$3; shift 3
  [ "$SECONDS" -gt "$d" ] && { echo "## $log not run: the call's time is spent ($SECONDS s)"; return; }
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
step 5 60 mma.log "$H" mma --ilp 1 --warps-per-sm 4 "${C[@]}" --out "$O/mma"
step 70 50 bf16.log "$H" gemm_bf16 --variants M1,W1,W2,W3,MT1,MT2 --size 4096 "${C[@]}" --out "$O/bf16"
step 125 40 bf16_odd.log "$H" gemm_bf16 --variants W1,W2,W3,MT1,MT2 --size 1000x776x1000 "${C[@]}" --out "$O/bf16_odd"
step 170 60 inflight.log "$H" inflight --threads 32 --loads 1 --widths 4 "${C[@]}" --out "$O/inflight"
for l in mma bf16 bf16_odd inflight; do echo "== $l"; grep -E "rc=|FAILED|rror" "$O/$l.log" | head -5; done
grep -hE "^\| wgmma_bf16" "$O/mma/tables.md" | head -70
grep -hE "^\| (M1|W[0-9]|MT[0-9]|cuBLAS)" "$O/bf16/tables.md" "$O/bf16_odd/tables.md" | head -20
grep -hE "tma_copy" "$O/inflight/tables.md" | head -20
date -u
