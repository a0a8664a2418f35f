#!/usr/bin/env bash
# Packs call B1 (call_b1.sh) from a worktree: the release host, stripped, and nvcc's twin built for
# sm_90 (twin.cubin, its capped modules, and twin_sm90a.cubin beside them) into dist/b/b1.tar.xz.
# NVCC: nvcc 13.0 (as on the H200 machine). Usage: scripts/h200-2026-12-02/pack_b1.sh MAIN_CHECKOUT
set -eu
main=${1:?usage: pack_b1.sh MAIN_CHECKOUT}
tmp=$(mktemp -d)
cargo build --release -p host
cargo run -p xtask -- build --nvcc --arch sm_90 --out "$tmp/twin"
cp target/release/host "$tmp/host" && strip "$tmp/host"
mkdir -p "$main/dist/b"
tar cJf "$main/dist/b/b1.tar.xz" -C "$tmp" host twin
cp scripts/h200-2026-12-02/call_b1.sh "$main/dist/b/"
