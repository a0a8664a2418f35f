#!/usr/bin/env bash
# Session 22, GPU call S22b (2026-12-04): why W1's tile in clusters of two (W5: each block loads its A and half of the
# pair's B, multicast to both) ran at 0.54-0.71 of cuBLAS in S18c where W1 ran near 1. W5 is back in the table only
# in this call's build (branch w5-probe, 42c5eac: one line added to main's 3e37179).
# (1) `host gemm_bf16 --variants W1,W5 --size 4096`: both beside cuBLAS, every element checked.
# (2) Nsight Compute at the base clock, W5 and W1 each with cuBLAS's kernel: cycles, tensor pipe, stalls, memory, and
#     the SASS lines holding the most stall samples (source page).
# Pack: scripts/gpu/pack.sh s22w5 --rev w5-probe
set -u
CALL=call_s22b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s22w5/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
step 10 150 w1_w5.log "$H" gemm_bf16 --variants W1,W5 --size 4096
grep -E '^│ (W1|W5|cuBLAS)' "$O/w1_w5.log" | awk -F'│' '{printf "%s|%s|%s|%s|%s|%s\n", $2, $10, $(NF-4), $(NF-3), $(NF-2), $(NF-1)}' | tr -s ' '
grep -E "W5|cluster" "$O/w1_w5.log" | grep -v "^│" | cut -c1-300 | head -8
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for x in 2 1; do
  step 330 140 ncu_x$x.log "$NCU" --clock-control base --section SpeedOfLight --section WarpStateStats \
    --section InstructionStats --section MemoryWorkloadAnalysis --section SchedulerStats --section SourceCounters \
    --section LaunchStats -k "regex:wgemm_bm128_bn256_bk64_s4_c2_x$x\$|nvjet" -c 2 -f -o "$O/ncu_x$x" \
    "$H" gemm_bf16 --variants W$((x == 2 ? 5 : 1)) --size 4096
  "$NCU" -i "$O/ncu_x$x.ncu-rep" --page details --print-details all > "$O/ncu_x$x.txt" 2>&1
  "$NCU" -i "$O/ncu_x$x.ncu-rep" --page source --csv --print-source sass -k "regex:wgemm" > "$O/ncu_x${x}_sass.csv" 2>&1
  grep -E "^  [a-z_]|Elapsed Cycles|SM Frequency|Tensor Cycles Active  |Executed Instructions  |Stall (Barrier|Wait|Long|GMMA|MIO|Branch)|Cluster|L2 Cache Throughput|Lts2xbar" "$O/ncu_x$x.txt" | head -40
  python3 - "$O/ncu_x${x}_sass.csv" <<'P'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr = next((i for i, r in enumerate(rows) if any("Source" == c for c in r)), None)
if hdr is None:
    print("no source header"); print(rows[:3]); sys.exit()
h = rows[hdr]; body = [r for r in rows[hdr + 1:] if len(r) == len(h)]
col = next((i for i, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")), None)
print("columns:", [c for c in h][:12])
if col is None: sys.exit()
def num(s):
    try: return float(s.replace(",", ""))
    except ValueError: return 0.0
tot = sum(num(r[col]) for r in body) or 1
src = h.index("Source")
for r in sorted(body, key=lambda r: -num(r[col]))[:25]:
    print("%5.1f%%  %s" % (100 * num(r[col]) / tot, r[src][:90]))
P
  rm -f "$O/ncu_x$x.ncu-rep"
done
date -u; save
