#!/usr/bin/env bash
# Packs for call_s27c.sh (session 27, 2026-12-04; run as call_s29a.sh in session 29): for each pause P given, the release host built with
# C_STORE_PAUSE_NS (kernels-gpu/src/sections/c_staging.rs; the twin is not built) set to P nanoseconds, in a worktree
# of HEAD (dist/worktree-pauseP), packed by scripts/gpu/pack.sh into dist/pauseP/pack.tar.xz. P = 0 is HEAD's own.
# Usage, from the repository root: scripts/h200-2026-12-04/pack_s27c.sh 0 100 250
set -euo pipefail
root=$(pwd)
for p in "$@"; do
  wt=$root/dist/worktree-pause$p
  [ -d "$wt" ] || git worktree add --detach "$wt" HEAD
  f=$wt/kernels-gpu/src/sections/c_staging.rs
  sed -i "s/pub const C_STORE_PAUSE_NS: u32 = [0-9]*;/pub const C_STORE_PAUSE_NS: u32 = $p;/" "$f"
  grep -q "pub const C_STORE_PAUSE_NS: u32 = $p;" "$f" || { echo "pack_s27c.sh: no C_STORE_PAUSE_NS in $f" >&2; exit 1; }
  (cd "$wt" && scripts/gpu/pack.sh "pause$p")
  mkdir -p "$root/dist/pause$p" && cp "$wt/dist/pause$p/pack.tar.xz" "$root/dist/pause$p/"
done
