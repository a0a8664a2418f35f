#!/usr/bin/env bash
# On a GPU machine (sm_80 or newer) with nvcc: the tensor-core entries of Rust's and nvcc's builds
# side by side. Builds nvcc's twin (build.sh) and the driver-API program tensor_compare.cpp, then
# runs every mma_bf16_ilp and BF16 GEMM line of the table from both modules on the same inputs:
# the twin's outputs must be the Rust kernels' bit for bit (exit 1 otherwise), and each line's
# TFLOP/s and registers are printed for both, with Rust/nvcc (timings reported, not judged).
#
#   nvcc/check_tensor_on_gpu.sh RUST_MODULE OUT [ARCH]
#
# RUST_MODULE: the Rust build's tensor-core module for this GPU, made on a machine with Rust by
# `cargo xtask build --arch sm_90` (target/kernels/sm_90/kernels_tensor.sm_90.cubin, or kernels_tensor.ptx for
# the driver to compile); OUT: a folder for the twin's modules and the log (OUT/tensor_compare.txt);
# ARCH: as build.sh's (default native).
#
# The Rust side is held to the lab's CPU model and an f64 reference by
# `cargo test --release -p host --test tensor_gpu -- --ignored`; this script holds the twin to it.
set -euo pipefail
usage="usage: nvcc/check_tensor_on_gpu.sh RUST_MODULE OUT [ARCH]"
rust=${1:?$usage}
out=${2:?$usage}
arch=${3:-native}
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-nvcc}
[ -f "$rust" ] || { echo "check_tensor_on_gpu.sh: no Rust module at $rust" >&2; exit 2; }

bash "$here/build.sh" "$out/nvcc" "$arch"
"$nvcc" -std=c++17 -O2 -I"$here" "$here/tensor_compare.cpp" -o "$out/tensor_compare" -lcuda
"$out/tensor_compare" "$rust" "$out/nvcc/twin.cubin" | tee "$out/tensor_compare.txt"
