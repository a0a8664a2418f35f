#!/usr/bin/env python3
"""Holds one results folder's figures against another's, CSV by CSV and row by row.

Usage: scripts/compare-runs.py OLD_DIR NEW_DIR [--tol 0.03] [--bf16-tol 0.10] [--median-tol 0.01]

A refactor that freezes behaviour must give the same rows (same labels, registers, blocks per SM, occupancy: these
must be equal; a value the old run left empty may be filled, e.g. a compared module's figures for rows it did not
cover before) and the same throughputs within the GPU's run-to-run spread: every figure within --tol of the old one
(the BF16 GEMM rows, which run into the power cap's clock, within --bf16-tol), and the median ratio over all figures
within --median-tol of 1. Exits 1 when any of that fails, and says which row and column.
"""
import argparse
import csv
import os
import statistics
import sys

# Throughput columns: what the lab measures; everything else in a row is either structure (must match exactly) or
# derived from the throughput, the clock or the noise (not compared here).
RATE_UNITS = ("GFLOP/s", "TFLOP/s", "GB/s")
# Columns that describe what ran: a different value means a different kernel or launch, not noise.
STRUCTURE = ("Regs/thread", "Actual regs", "Blocks/SM", "Theo. occ (%)", "Threads/block", "Warps/SM",
             "Spill stores (B)", "Spill loads (B)", "Stack frame (B)", "nvcc regs", "Verified")


def is_rate(header):
    return header.endswith(RATE_UNITS) and not header.startswith(("Model", "% of"))


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--tol", type=float, default=0.03)
    ap.add_argument("--bf16-tol", type=float, default=0.10)
    ap.add_argument("--median-tol", type=float, default=0.01)
    a = ap.parse_args()
    failures, added, ratios, worst = [], [], [], {}
    for name in sorted(os.listdir(a.old)):
        if not name.endswith(".csv"):
            continue
        new_path = os.path.join(a.new, name)
        if not os.path.exists(new_path):
            failures.append(f"{name}: missing in {a.new}")
            continue
        old_rows, new_rows = rows(os.path.join(a.old, name)), rows(new_path)
        if len(old_rows) != len(new_rows):
            failures.append(f"{name}: {len(old_rows)} rows before, {len(new_rows)} now")
            continue
        tol = a.bf16_tol if name.startswith("gemm_bf16") else a.tol
        for i, (o, n) in enumerate(zip(old_rows, new_rows)):
            first = next(iter(o))
            label = f"{name} row {i + 1} ({o[first]})"
            if o[first] != n[first]:
                failures.append(f"{label}: now {n[first]}")
            for col in o:
                if col in STRUCTURE and o[col] != n.get(col):
                    if o[col] == "":
                        added.append(f"{label} {col}: now {n.get(col)}")
                    else:
                        failures.append(f"{label} {col}: {o[col]} -> {n.get(col)}")
                if is_rate(col) and o[col] and n.get(col):
                    r = float(n[col]) / float(o[col])
                    ratios.append(r)
                    key = (name, col)
                    if key not in worst or abs(r - 1) > abs(worst[key][0] - 1):
                        worst[key] = (r, label)
                    if abs(r - 1) > tol:
                        failures.append(f"{label} {col}: {o[col]} -> {n[col]} ({(r - 1) * 100:+.2f}%, limit {tol:.0%})")
    for (name, col), (r, label) in sorted(worst.items()):
        print(f"{name:20s} {col:22s} worst {(r - 1) * 100:+6.2f}%  at {label}")
    if ratios:
        med = statistics.median(ratios)
        print(f"{len(ratios)} figures; median ratio new/old {med:.4f}")
        if abs(med - 1) > a.median_tol:
            failures.append(f"median ratio {med:.4f} beyond {a.median_tol:.0%}")
    else:
        failures.append("no figures compared")
    if added:
        print(f"{len(added)} values the old run did not have (a compared module's figures added), e.g. {added[0]}")
    for f in failures:
        print("FAIL", f)
    print("PASS" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
