"""Splits each kernel's elapsed cycles in an Nsight Compute details page into the tensor pipe's busy and idle cycles.

Usage: python3 tensor_idle.py DETAILS.txt[.gz] [RATIO]. DETAILS.txt is `ncu -i REP --page details --print-details all`
(ncu_base in steps.sh writes it) with the SpeedOfLight section. With two kernels (ours first, cuBLAS's second, as
ncu_base profiles them) and RATIO (a per-clock target, e.g. 1.02), also the idle cycles ours may keep to reach
RATIO against cuBLAS at its own tensor work: what the mechanism under test has to remove, in cycles. Each kernel's
duration and mean SM clock are printed too: `--clock-control base` fixes the clock Nsight asks for, not the clock the
card runs, which the power brake can still pull down for one kernel and not the other, so per clock and in time can
disagree even under Nsight.
"""
import gzip
import re
import sys
from collections import namedtuple

Kernel = namedtuple("Kernel", "name cycles busy us ghz")
UNIT_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}


def duration_us(part):
    m = re.search(r"\bDuration\s+(\S+)\s+([\d,.]+)", part)
    if not m or m.group(1) not in UNIT_US:
        return None
    return float(m.group(2).replace(",", "")) * UNIT_US[m.group(1)]


def clock_ghz(part):
    m = re.search(r"SM Frequency\s+(Ghz|Mhz)\s+([\d,.]+)", part)
    if not m:
        return None
    value = float(m.group(2).replace(",", ""))
    return value if m.group(1) == "Ghz" else value / 1e3


def show(value, fmt):
    return "?" if value is None else fmt % value


opener = gzip.open if sys.argv[1].endswith(".gz") else open
text = opener(sys.argv[1], "rt", errors="replace").read()
kernels = []
for part in re.split(r"(?m)^  (?=\S)", text)[1:]:
    cycles = re.search(r"Elapsed Cycles\s+cycle\s+([\d,]+)", part)
    tensor = re.search(r"SM: Pipe Tensor Cycles Active\s+%\s+([\d.]+)", part)
    if cycles and tensor:
        c = int(cycles.group(1).replace(",", ""))
        busy = c * float(tensor.group(1)) / 100
        kernels.append(Kernel(part.split()[0], c, busy, duration_us(part), clock_ghz(part)))
if not kernels:
    sys.exit("no kernel with Elapsed Cycles and the tensor pipe's activity in %s" % sys.argv[1])
for name, c, busy, us, ghz in kernels:
    print("%-52s %11s cycles  tensor busy %11s (%5.1f%%)  idle %9s  %s us at %s GHz" % (
        name[:52], format(c, ","), format(round(busy), ","), 100 * busy / c, format(round(c - busy), ","),
        show(us, "%.2f"), show(ghz, "%.2f")))
if len(kernels) >= 2 and kernels[0].us and kernels[1].us:
    print("ours / cuBLAS's: per clock %.3f, in time %.3f" % (
        kernels[1].cycles / kernels[0].cycles, kernels[1].us / kernels[0].us))
if len(sys.argv) > 2 and len(kernels) >= 2:
    ratio = float(sys.argv[2])
    c0, busy0, c1 = kernels[0].cycles, kernels[0].busy, kernels[1].cycles
    allowed = c1 / ratio - busy0
    cut = c0 - busy0 - allowed
    verdict = ("%s less than now" % format(round(cut), ",")) if cut > 0 else (
        "met, %s cycles to spare" % format(round(-cut), ","))
    print("per clock now %.3f; at %.2f ours may take %s cycles, idle %s: %s" % (
        c1 / c0, ratio, format(round(c1 / ratio), ","), format(round(allowed), ","), verdict))
