#!/usr/bin/env python3
"""Reads the folder scripts/peer-compare.sh writes and prints, per experiment, ILP and warps/SM, the lab's kernel
against the independent peer (issue 31, item 3).

Usage: scripts/peer-compare.py OUT [--target 0.99] [--tolerance 0.01]

OUT holds one host `--out` folder per process: {mma,ilp}-ours-{i} (`host EXP --compare PEER --compare-label peer`)
and {mma,ilp}-control-{i} (`--module PEER --compare PEER`: the peer against itself). From each folder's results.json
it takes every row of the experiment's main line (mma_bf16_ilp*, fma_ilp*) and its `compare.ratio`, the host's
module/compared throughput at that point. Per point it prints:
- ours/peer: the median over the ours processes (and every process's figure, in run order);
- the control's spread: min and max of peer/peer over the control processes;
- modes: "multimodal" where the control leaves [1 - tolerance, 1 + tolerance] (the same code on both sides differing
  by more than the verdict tolerates: the point's time falls into modes, e.g. the interleavings two warps on one
  scheduler settle into, docs/design.md), else "unimodal";
- >= target: whether the median ours/peer reaches the target;
- verdict: "meets", "MISSES" (unimodal and below the target: a point to fix), "reported" (multimodal and below the
  target: reported, not targeted), or "incomplete" (fewer than 3 processes on a side, a side without a compared
  figure, or a check that failed: not judged).
A benchmark's report, not a test: it exits 0 whatever the verdicts, 2 when OUT holds no run it can read.
"""
import argparse
import json
import os
import re
import statistics
import sys

# The experiment's key in results.json and the entries of its main line (the peer has no others).
EXPERIMENTS = {"mma": re.compile(r"^mma_bf16_ilp\d+$"), "ilp": re.compile(r"^fma_ilp\d+$")}
FOLDER = re.compile(r"^(mma|ilp)-(ours|control)-(\d+)$")
# Processes per side a judged median needs (the issue: at least three).
LEAST_PROCESSES = 3


class Point:
    """One (experiment, ILP, warps/SM) point: the ratio of each process, per side, in run order."""

    def __init__(self):
        self.ratios = {"ours": [], "control": []}
        self.missing = {"ours": 0, "control": 0}
        self.failed_checks = []


def rows_of(path, experiment):
    """The main line's rows of `experiment` in one results.json, or None where the run has none."""
    with open(path) as f:
        doc = json.load(f)
    section = doc.get(experiment)
    if not isinstance(section, dict):
        return None
    return [r for r in section.get("rows", []) if EXPERIMENTS[experiment].match(r.get("entry", ""))]


def collect(out):
    """{(experiment, ilp, warps/SM): Point} over every process folder in OUT, and the folders read per side."""
    points, read, unreadable = {}, {}, []
    folders = []
    for name in os.listdir(out):
        m = FOLDER.match(name)
        if m and os.path.isdir(os.path.join(out, name)):
            folders.append((m.group(1), m.group(2), int(m.group(3)), name))
    for experiment, side, index, name in sorted(folders, key=lambda f: (f[0], f[1], f[2])):
        path = os.path.join(out, name, "results.json")
        try:
            rows = rows_of(path, experiment)
        except (OSError, ValueError) as e:
            unreadable.append(f"{name}: {e}")
            continue
        if rows is None:
            unreadable.append(f"{name}: no `{experiment}` results")
            continue
        read.setdefault((experiment, side), []).append(index)
        for r in rows:
            p = points.setdefault((experiment, r["ilp"], r["warps_per_sm"]), Point())
            compare = r.get("compare")
            if not compare or compare.get("ratio") is None:
                p.missing[side] += 1
                continue
            p.ratios[side].append(compare["ratio"])
            for who, check in (("module", r.get("check")), ("peer", compare.get("check"))):
                if not (check or {}).get("passed", False):
                    p.failed_checks.append(f"{name} {who}")
    return points, read, unreadable


def judge(p, target, tolerance):
    """The point's figures and verdict (a dict; None where a side has no figure)."""
    ours, control = p.ratios["ours"], p.ratios["control"]
    median = statistics.median(ours) if ours else None
    low, high = (min(control), max(control)) if control else (None, None)
    multimodal = None if low is None else (low < 1 - tolerance or high > 1 + tolerance)
    meets = None if median is None else median >= target
    if p.failed_checks or len(ours) < LEAST_PROCESSES or len(control) < LEAST_PROCESSES:
        verdict = "incomplete"
    elif meets:
        verdict = "meets"
    else:
        verdict = "reported" if multimodal else "MISSES"
    return {"median": median, "ours": ours, "low": low, "high": high, "multimodal": multimodal, "meets": meets,
            "verdict": verdict}


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def report(points, read, unreadable, target, tolerance):
    """The report's lines: per experiment a Markdown table of its points, then a summary line."""
    lines = []
    for experiment in EXPERIMENTS:
        keys = sorted(k for k in points if k[0] == experiment)
        if not keys:
            continue
        ours_runs, control_runs = len(read.get((experiment, "ours"), [])), len(read.get((experiment, "control"), []))
        lines.append(f"### {experiment}: ours/peer over {ours_runs} processes, peer/peer control over "
                     f"{control_runs} (target {target}, control tolerance {tolerance})")
        lines.append("")
        lines.append("| ILP | Warps/SM | ours/peer median | ours/peer by process | control min | control max | modes "
                     f"| >= {target} | verdict |")
        lines.append("|---:|---:|---:|---|---:|---:|---|---|---|")
        tally = {}
        for key in keys:
            p = points[key]
            j = judge(p, target, tolerance)
            tally.setdefault(j["verdict"], []).append(f"ILP {key[1]} at {key[2]}")
            modes = "-" if j["multimodal"] is None else ("multimodal" if j["multimodal"] else "unimodal")
            meets = "-" if j["meets"] is None else ("yes" if j["meets"] else "no")
            notes = []
            if p.failed_checks:
                notes.append("check failed: " + ", ".join(p.failed_checks))
            for side in ("ours", "control"):
                if p.missing[side]:
                    notes.append(f"{p.missing[side]} {side} process(es) without a compared figure")
            verdict = j["verdict"] + (f" ({'; '.join(notes)})" if notes else "")
            lines.append(f"| {key[1]} | {key[2]} | {fmt(j['median'])} | {' '.join(fmt(x) for x in j['ours'])} "
                         f"| {fmt(j['low'])} | {fmt(j['high'])} | {modes} | {meets} | {verdict} |")
        lines.append("")
        summary = f"{experiment}: {len(keys)} points, {len(tally.get('meets', []))} meet {target}"
        for verdict, what in (("MISSES", "unimodal and below it (to fix)"),
                              ("reported", "multimodal by the control and below it (reported, not targeted)"),
                              ("incomplete", "not judged")):
            if tally.get(verdict):
                summary += f"; {len(tally[verdict])} {what}: {', '.join(tally[verdict])}"
        lines.append(summary)
        lines.append("")
    for u in unreadable:
        lines.append(f"not read: {u}")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="the folder scripts/peer-compare.sh wrote")
    ap.add_argument("--target", type=float, default=0.99, help="ours/peer a point must reach (default 0.99)")
    ap.add_argument("--tolerance", type=float, default=0.01,
                    help="how far the control may leave 1 at a unimodal point (default 0.01)")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.out):
        print(f"peer-compare.py: no folder {a.out}", file=sys.stderr)
        return 2
    points, read, unreadable = collect(a.out)
    for line in report(points, read, unreadable, a.target, a.tolerance):
        print(line)
    if not points:
        print(f"peer-compare.py: no {{mma,ilp}}-{{ours,control}}-N/results.json in {a.out}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
