"""Splits each kernel's elapsed cycles in an Nsight Compute details page into the tensor pipe's busy and idle cycles.

Usage: python3 tensor_idle.py DETAILS.txt[.gz] [RATIO]. DETAILS.txt is `ncu -i REP --page details --print-details all`
(ncu_base in steps.sh writes it) with the SpeedOfLight section. With two kernels (ours first, cuBLAS's second, as
ncu_base profiles them) and RATIO (a per-clock target, e.g. 1.02), also the idle cycles ours may keep to reach
RATIO against cuBLAS at its own tensor work: what the mechanism under test has to remove, in cycles.
"""
import gzip
import re
import sys

opener = gzip.open if sys.argv[1].endswith(".gz") else open
text = opener(sys.argv[1], "rt", errors="replace").read()
kernels = []
for part in re.split(r"(?m)^  (?=\S)", text)[1:]:
    cycles = re.search(r"Elapsed Cycles\s+cycle\s+([\d,]+)", part)
    tensor = re.search(r"SM: Pipe Tensor Cycles Active\s+%\s+([\d.]+)", part)
    if cycles and tensor:
        c = int(cycles.group(1).replace(",", ""))
        busy = c * float(tensor.group(1)) / 100
        kernels.append((part.split()[0], c, busy))
if not kernels:
    sys.exit("no kernel with Elapsed Cycles and the tensor pipe's activity in %s" % sys.argv[1])
for name, c, busy in kernels:
    print("%-52s %11s cycles  tensor busy %11s (%5.1f%%)  idle %9s" % (
        name[:52], format(c, ","), format(round(busy), ","), 100 * busy / c, format(round(c - busy), ",")))
if len(sys.argv) > 2 and len(kernels) >= 2:
    ratio = float(sys.argv[2])
    (_, c0, busy0), (_, c1, _) = kernels[0], kernels[1]
    allowed = c1 / ratio - busy0
    cut = c0 - busy0 - allowed
    verdict = ("%s less than now" % format(round(cut), ",")) if cut > 0 else (
        "met, %s cycles to spare" % format(round(-cut), ","))
    print("per clock now %.3f; at %.2f ours may take %s cycles, idle %s: %s" % (
        c1 / c0, ratio, format(round(c1 / ratio), ","), format(round(allowed), ","), verdict))
