#!/usr/bin/env bash
# Keeps each committed run's results.json gzip-compressed, as results.json.gz (the lab reads either: host/src/run_json.rs).
# Why: a GPU call carries the working tree, tracked files included, within 64 MiB, and each run's plain results.json
# is about 2 MB (every sample of every figure); packed, about a tenth. Run it after committing a new run under
# results/; `host report DIR --out NEW` regenerates a packed run as it does a plain one, its results.json plain.
# -n leaves the name and time out of the header, so the same JSON packs to the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
for plain in results/*/results.json; do
  gzip -9 -n -f "$plain"
  echo "$plain.gz"
done
