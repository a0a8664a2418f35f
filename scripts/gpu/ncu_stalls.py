"""Ranks the SASS lines of an Nsight Compute source-page CSV by warp-stall samples (all samples), top N.

Usage: python3 ncu_stalls.py SOURCE.csv [N]. Written for calls' logs: prints the share of each line's samples.
"""
import csv
import sys


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


rows = list(csv.reader(open(sys.argv[1], errors="replace")))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
hdr = next((i for i, r in enumerate(rows) if "Source" in r), None)
if hdr is None:
    sys.exit("no source header in %s: %r" % (sys.argv[1], rows[:3]))
head = rows[hdr]
body = [r for r in rows[hdr + 1:] if len(r) == len(head)]
col = next((i for i, c in enumerate(head) if c.startswith("Warp Stall Sampling (All")), None)
if col is None:
    sys.exit("no stall-sampling column: %r" % head[:12])
total = sum(num(r[col]) for r in body) or 1
src = head.index("Source")
for r in sorted(body, key=lambda r: -num(r[col]))[:top]:
    print("%5.1f%%  %s" % (100 * num(r[col]) / total, r[src][:90]))
