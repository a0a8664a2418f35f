#!/usr/bin/env bash
# Builds the pack of the ninth session's final GPU call (dist/lead/pack9.tar.xz), on the CPU machine, from the merged
# issue-29 build: the release host (stripped), the GPU test binaries that call runs (faults, hashes) and the fuzz (it
# runs every line with --check-only where a driver is present), release-built so that CARGO_BIN_EXE_host is
# target/release/host, where the call script puts the host; and nvcc's twin, built by nvcc/build.sh with $NVCC.
# Run from the repository root.
set -euo pipefail
W=dist/lead/stage9; rm -rf "$W"; mkdir -p "$W/tests" "$W/twin"
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
    case "$name" in faults_gpu|gemm_hashes_gpu|fuzz|cli_gpu) cp "$exe" "$W/tests/$name"; strip "$W/tests/$name" ;; esac
  done
nvcc/build.sh "$W/twin" sm_90 > dist/lead/twin_build9.log 2>&1
tar cJf dist/lead/pack9.tar.xz -C "$W" host tests twin
ls -la dist/lead/pack9.tar.xz; ls "$W/tests"
