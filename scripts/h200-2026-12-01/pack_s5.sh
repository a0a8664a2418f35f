#!/usr/bin/env bash
# Builds the pack the fifth session's GPU calls carry (dist/lead/pack.tar.xz), on the CPU machine:
# the release host (stripped), the host's GPU test binaries (release, so CARGO_BIN_EXE_host is
# target/release/host, where the call scripts put the host), and nvcc's twin built by nvcc/build.sh
# for sm_90 with nvcc 13.0.88 ($NVCC). Run from the repository root.
set -euo pipefail
W=dist/lead/stage; rm -rf "$W"; mkdir -p "$W/tests" "$W/twin"
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
    case "$name" in *_gpu|cli) cp "$exe" "$W/tests/$name"; strip "$W/tests/$name" ;; esac
  done
nvcc/build.sh "$W/twin" sm_90 > dist/lead/twin_build.log 2>&1
tar cJf dist/lead/pack.tar.xz -C "$W" host tests twin
ls -la dist/lead/pack.tar.xz; ls "$W/tests"
