#!/usr/bin/env bash
# Builds dist/d/pack.tar.xz for call_d1.sh on the CPU machine: the release host and the
# faults_gpu test binary (release), stripped. The call sets LAB_HOST, so the test runs this host
# wherever the pack is unpacked. Run from the worktree's root; DEST is where dist/d goes.
set -euo pipefail
DEST=${1:-/work/main/dist/d}; W=$(mktemp -d)
cargo build --release -p host
exe=$(cargo test --release -p host --test faults_gpu --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "faults_gpu":
        print(m["executable"])')
cp target/release/host "$W/host"; cp "$exe" "$W/faults_gpu"; strip "$W/host" "$W/faults_gpu"
# Call D2's diagnosis modules (the built-in PTX cut to S; S spinning two ways), if made.
cp /tmp/dpack/*.ptx "$W/" 2>/dev/null || true
mkdir -p "$DEST"; tar cJf "$DEST/pack.tar.xz" -C "$W" host faults_gpu $(cd "$W" && ls *.ptx 2>/dev/null)
rm -rf "$W"
ls -la "$DEST/pack.tar.xz"
