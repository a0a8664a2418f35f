#!/usr/bin/env bash
# The device tool sends the tracked tree and the carried paths, 64 MiB in all, and the committed runs under results/
# are most of the tree: with a pack beside them a call is refused. No call needs results/, so
#   scripts/gpu/results_aside.sh aside   takes results/ out of the index and ignores it here (.git/info/exclude);
#   scripts/gpu/results_aside.sh back    puts both back (the index from HEAD, the exclude line removed).
# Commit nothing in between: a commit would record every committed run as deleted (`status` says where you are).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
exclude=.git/info/exclude
case ${1:-status} in
  aside)
    git diff --quiet HEAD -- results || { echo "results_aside.sh: results/ has changes; commit them first" >&2; exit 1; }
    git rm -r -q --cached results
    grep -qx 'results/' "$exclude" || echo 'results/' >> "$exclude"
    echo "results/ is aside: make the call, then run: $0 back" ;;
  back)
    git reset -q -- results
    sed -i '/^results\/$/d' "$exclude"
    echo "results/ is back in the index" ;;
  status)
    if grep -qx 'results/' "$exclude"; then echo aside; else echo back; fi ;;
  *) echo "usage: $0 aside|back|status" >&2; exit 2 ;;
esac
