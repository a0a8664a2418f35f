#!/usr/bin/env bash
# Builds the pack the eighth session's GPU calls carry (dist/lead/pack8.tar.xz), on the CPU
# machine: the release host (stripped) and the host's GPU test binaries (release, so
# CARGO_BIN_EXE_host is target/release/host, where the call scripts put the host). nvcc's twin
# is carried from the sixth session's pack (dist/lead/stage/twin, same peer sources). Run from
# the repository root.
set -euo pipefail
W=dist/lead/stage8; rm -rf "$W"; mkdir -p "$W/tests"
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
[ -d dist/lead/stage/twin ] && cp -r dist/lead/stage/twin "$W/twin"
tar cJf dist/lead/pack8.tar.xz -C "$W" host tests $( [ -d "$W/twin" ] && echo twin )
ls -la dist/lead/pack8.tar.xz; ls "$W/tests"
