#!/usr/bin/env bash
# Builds what a GPU call carries (the GPU machine has no Rust), on the CPU machine, into dist/<name>/pack.tar.xz:
# the release host (stripped); the GPU test binaries named with --tests, release-built so that CARGO_BIN_EXE_host is
# target/release/host, where steps.sh's `use_host` puts the host; and, with --twin, nvcc's twin built by
# `cargo xtask build --nvcc` with $NVCC. dist/ is git-ignored: carry it with the `run` tool's `carry`.
# The tracked tree travels too and, with the committed runs, leaves no room for a pack: make the call between
# `scripts/gpu/results_aside.sh aside` and `... back`.
# Usage (from the repository root): scripts/gpu/pack.sh NAME [--tests a,b] [--twin] [--rev REV]
#   --rev REV builds the host of an earlier commit instead (in a worktree of its own, target dir beside it), for a
#   control run of old and new builds on one machine; it packs the host only.
set -euo pipefail
name=$1; shift; tests=""; twin=0; rev=""
while [ $# -gt 0 ]; do
  case $1 in
    --tests) tests=$2; shift 2 ;;
    --twin) twin=1; shift ;;
    --rev) rev=$2; shift 2 ;;
    *) echo "pack.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
root=$(pwd); D=$root/dist/$name; W=$root/dist/stage-$name; rm -rf "$W"; mkdir -p "$W/tests" "$D"
src=$root
if [ -n "$rev" ]; then
  src=$root/dist/worktree-$(git rev-parse --short "$rev")
  [ -d "$src" ] || git worktree add --detach "$src" "$rev"
fi
(cd "$src" && cargo build --release -p host)
cp "$src/target/release/host" "$W/host"; strip "$W/host"
if [ -n "$tests" ]; then
  (cd "$src" && cargo test --release -p host $(printf -- ' --test %s' ${tests//,/ }) --no-run \
    --message-format=json 2>/dev/null) |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' |
    while read -r t exe; do
      case ",$tests," in *",$t,"*) cp "$exe" "$W/tests/$t"; strip "$W/tests/$t" ;; esac
    done
fi
if [ "$twin" = 1 ]; then
  cargo run -q -p xtask -- build --nvcc --arch sm_90 --out "$W/twin" > "$D/twin_build.log" 2>&1
fi
tar cJf "$D/pack.tar.xz" -C "$W" .
ls -la "$D/pack.tar.xz"; (cd "$W" && find . -type f | sort | head -40)
