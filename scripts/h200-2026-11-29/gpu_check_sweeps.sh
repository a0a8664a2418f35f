#!/usr/bin/env bash
# GPU checks of experiments 4 and 5 and of the noise-driven timing (branch h6-integrate), for the
# H200. NOT YET RUN. Needs dist/host (cargo build --release -p host), dist/peer/ (a copy of
# ../shared/peer), dist/tests/{sweeps_gpu,cli_gpu,cli} (the test binaries). Writes a log and a
# tarball under $OUT.
#   (a) `host all` with the peer compared, timed (the target is <= 3 minutes): the figures' noise
#       (largest, how many flagged), experiments 4/5's headline figures, Volkov's table, and
#       Rust/peer ratios over the grid points both have (median, min);
#   (b) the GPU-only tests.
set -u
W=/tmp/work; mkdir -p "$W" "$OUT"; D=$(pwd)/dist
LOG=$OUT/gpu_check_sweeps.log
exec > >(tee "$LOG") 2>&1
date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
[ -f "$W/peer/peer.cubin" ] || bash "$D/peer/build.sh" "$W/peer" sm_90 > "$W/peer_build.log" 2>&1 \
  || { echo "PEER BUILD FAILED"; tail -20 "$W/peer_build.log"; }

echo "=== (a) host all, five experiments, peer compared"
rm -rf "$W/full"
start=$(date +%s)
"$D/host" all --out "$W/full" --compare "$W/peer/peer.cubin" --compare-caps "$W/peer" \
  > "$W/full.log" 2>&1; rc=$?
echo "exit status $rc after $(( $(date +%s) - start )) s"
tail -5 "$W/full.log"
python3 - "$W/full/results.json" <<'PY'
import json, sys, statistics as st
r = json.load(open(sys.argv[1]))
def timings(x):
    yield x.get("timing")
    c = x.get("compare") or {}
    yield c.get("timing")
noise, flagged = [], 0
for name in ("occupancy", "bandwidth", "regs", "inflight", "ilp"):
    v = r.get(name)
    if v is None:
        print(name, "MISSING"); continue
    rows = v["rows"] if isinstance(v, dict) else v
    n = [t["noise"] for x in rows for t in timings(x) if t and t.get("noise") is not None]
    f = sum(1 for x in rows if x.get("flags"))
    noise += n; flagged += f
    ratios = [x["compare"]["ratio"] for x in rows if x.get("compare")]
    q = f", Rust/peer median {st.median(ratios):.3f} min {min(ratios):.3f} over {len(ratios)}" if ratios else ""
    print(f"{name}: {len(rows)} rows, noise max {max(n)*100:.2f}% median {st.median(n)*100:.2f}%, {f} rows flagged{q}")
print(f"all figures: {len(noise)} with noise, {sum(1 for x in noise if x > 0.01)} above 1%, {flagged} rows flagged")
inf = r.get("inflight")
if inf:
    print("latency ns/cycles:", round(inf["latency"]["ns_per_step"], 1), round(inf["latency"]["cycles_per_step"]))
    print("copy GB/s:", round(inf["copy"]["gbps"], 1), "skipped:", len(inf["skipped"]))
    for l in inf["headline"]["least_occupancy"]:
        print("least occupancy for", l["fraction"], "->", l["found"])
    for b in inf["headline"]["bytes_needed"]:
        print("model needs", round(b["bytes_per_sm"]), "B/SM for", b["fraction"])
ilp = r.get("ilp")
if ilp:
    for l in ilp["volkov"]:
        print("Volkov ILP", l["ilp"], "->", l["fewest_warps_per_sm"], "warps/SM", l["fraction_of_peak"])
print("missing:", r.get("missing", []))
PY
grep -A4 "Why (experiment 4)" "$W/full/report.md" | head -5

echo "=== (b) GPU-only tests"
for t in sweeps_gpu cli_gpu cli; do
  [ -x "$D/tests/$t" ] && "$D/tests/$t" --ignored --test-threads 1 2>&1 | grep -E "^test |test result|panicked"
done
tar czf "$OUT/sweeps_check.tgz" -C "$W" full full.log 2>/dev/null
date -u
