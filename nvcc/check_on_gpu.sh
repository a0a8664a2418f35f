#!/usr/bin/env bash
# On a GPU machine with nvcc and without Rust: build nvcc's twin and run the host with it as the
# compared module. The host checks every result of the compared module as it checks its own (GEMM
# against an f64 reference, copies exactly, FMA chains bit for bit, the chase against the CPU's
# walk, the wgmma tiles bit for bit) and exits 1 when one fails, so a twin that computes anything
# else stops here. On an sm_90a device the host also finds the twin's sm_90a module (build.sh
# writes twin_sm90a.cubin beside twin.cubin) and compares the wgmma, TMA-fed GEMM and bulk-copy
# rows with it.
#
#   nvcc/check_on_gpu.sh HOST OUT [ARCH]
#
# HOST: the host binary built on a machine with Rust (`cargo build --release -p host`, then
# target/release/host); OUT: a folder for the twin's modules and the results; ARCH: as build.sh's
# (default native). Three runs:
#   1. the tuned GEMM lines at an odd size (1000 x 1001 x 17): edge tiles, the zero-filled copies,
#      the one-float staging of B (1001 columns), a K that BK does not divide;
#   2. the tuned lines at 2048 x 2048 x 1000: 16-byte staging of B, a partial last K slice;
#   3. every experiment (`host all`) with the twin compared, results in OUT/run.
set -euo pipefail
usage="usage: nvcc/check_on_gpu.sh HOST OUT [ARCH]"
host=${1:?$usage}
out=${2:?$usage}
arch=${3:-native}
here=$(cd "$(dirname "$0")" && pwd)

bash "$here/build.sh" "$out/nvcc" "$arch"
twin=(--compare "$out/nvcc/twin.cubin" --compare-label nvcc)
# The tuned lines' labels come from the variant table, through the generated header.
tuned=$(sed -n 's/^#define LAB_TUNED_LABELS "\(.*\)"$/\1/p' "$here/variants.h")
[ -n "$tuned" ] || { echo "check_on_gpu.sh: no LAB_TUNED_LABELS in $here/variants.h" >&2; exit 1; }
echo "== 1. tuned GEMM lines ($tuned) at 1000x1001x17"
"$host" occupancy --variants "$tuned" --size 1000x1001x17 --no-cublas "${twin[@]}"
echo "== 2. tuned GEMM lines at 2048x2048x1000"
"$host" occupancy --variants "$tuned" --size 2048x2048x1000 --no-cublas "${twin[@]}"
echo "== 3. host all, the twin compared"
"$host" all --out "$out/run" "${twin[@]}" --compare-caps "$out/nvcc"
echo "check_on_gpu.sh: every result of the twin checked; results in $out/run"
