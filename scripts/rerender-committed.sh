#!/usr/bin/env bash
# Re-renders every committed run under results/ with the current code, as `host report DIR --out NEW` regenerates it
# from its results.json or results.json.gz (tables.md, the CSVs, report.md, the plots; results.json writes back
# unchanged). Every file the lab writes replaces the committed one; files it does not write (READMEs, logs, probes)
# stay as they are.
#
# Run it in the commit that changes a rule or a rendering: host/tests/committed_results.rs fails until it is run. A
# verdict that moves is then written up on the run's page in docs/runs/ (old outcome -> new, and the commit that moved
# it); `git diff results/*/report.md` shows which.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --release -p host
host="${CARGO_TARGET_DIR:-target}/release/host"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for dir in results/*/; do
  dir=${dir%/}
  [ -f "$dir/results.json" ] || [ -f "$dir/results.json.gz" ] || continue
  fresh="$scratch/$(basename "$dir")"
  "$host" report "$dir" --out "$fresh" >/dev/null
  if [ -f "$dir/results.json.gz" ]; then
    # A packed run (scripts/pack-committed-results.sh) keeps its JSON packed; the fresh copy must be the same bytes.
    gzip -dc "$dir/results.json.gz" | cmp -s - "$fresh/results.json" || { echo "$dir: results.json changed" >&2; exit 1; }
    rm "$fresh/results.json"
  fi
  cp "$fresh"/* "$dir"/
  echo "$dir"
done
git status --short -- results/
