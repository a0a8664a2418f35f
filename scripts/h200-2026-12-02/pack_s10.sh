#!/usr/bin/env bash
# Builds the pack of the tenth session's final GPU call (dist/lead/pack10.tar.xz), on the CPU machine, from the
# merged issue-30 redesign: the release host (stripped); the GPU test binaries the call runs (faults_gpu,
# gemm_hashes_gpu), release-built so that CARGO_BIN_EXE_host is target/release/host, where the call script puts the
# host; and nvcc's twin (twin.cubin, its capped modules, twin_sm90a.cubin) built by `cargo xtask build --nvcc`
# with $NVCC. Run from the repository root.
set -euo pipefail
W=dist/lead/stage10; rm -rf "$W"; mkdir -p "$W/tests"
cargo build --release -p host
cp target/release/host "$W/host"; strip "$W/host"
cargo test --release -p host --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' |
  while read -r name exe; do
    case "$name" in faults_gpu|gemm_hashes_gpu) cp "$exe" "$W/tests/$name"; strip "$W/tests/$name" ;; esac
  done
cargo run -q -p xtask -- build --nvcc --arch sm_90 --out "$W/twin" > dist/lead/twin_build10.log 2>&1
mkdir -p dist/s10; tar cJf dist/s10/pack10.tar.xz -C "$W" host tests twin
ls -la dist/s10/pack10.tar.xz; ls "$W/tests" "$W/twin" | head -30
