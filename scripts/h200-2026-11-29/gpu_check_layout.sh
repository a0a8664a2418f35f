#!/usr/bin/env bash
# GPU checks of the one-folder-per-experiment layout (branch h1-layout), for the H200.
# Needs, as results/h200/run.sh: dist/host (cargo build --release -p host), dist/peer/ (a copy of
# ../shared/peer), dist/tests/{cli_gpu,cli,validation} (the test binaries), and the repository's
# results/h200/results.json (the previous figures). Writes logs and a tarball under $OUT.
#   (a) kill test: `host all --compare ... --compare-caps ...` gets SIGINT once experiment 3 has
#       started; experiments 1 and 2 must be on disk with the note of what is missing, and the
#       exit status must be non-zero;
#   (b) a complete run, its figures against results/h200/results.json (ratio new/old per row);
#   (c) the GPU-only tests.
set -u
W=/tmp/work; mkdir -p "$W" "$OUT"; D=$(pwd)/dist; OLD=$(pwd)/results/h200/results.json
LOG=$OUT/gpu_check_layout.log
exec > >(tee "$LOG") 2>&1
date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
[ -f "$W/peer/peer.cubin" ] || bash "$D/peer/build.sh" "$W/peer" sm_90 > "$W/peer_build.log" 2>&1 \
  || { echo "PEER BUILD FAILED"; tail -20 "$W/peer_build.log"; }

echo "=== (a) kill test: SIGINT during experiment 3"
rm -rf "$W/kill"
# A background job of a non-interactive shell ignores SIGINT unless job control is on.
set -m
"$D/host" all --out "$W/kill" --compare "$W/peer/peer.cubin" --compare-caps "$W/peer" \
  > "$W/kill.stdout" 2> "$W/kill.stderr" &
PID=$!
set +m
# The host writes the folder after each experiment and says so on stderr: "wrote DIR (occupancy,
# bandwidth)" means experiment 3 (regs) has started.
for _ in $(seq 1 600); do
  grep -q "(occupancy, bandwidth)" "$W/kill.stderr" 2>/dev/null && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 1
done
sleep 5
echo "state before the signal:"; cat "$W/kill.stderr"
kill -INT "$PID"
wait "$PID"; RC=$?
echo "exit status after SIGINT: $RC (must be non-zero)"
ls -l "$W/kill"
python3 - "$W/kill/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for name in ("occupancy", "bandwidth", "regs"):
    v = r.get(name)
    n = None if v is None else len(v["rows"] if isinstance(v, dict) else v)
    print(f"{name}: {'MISSING' if v is None else f'{n} rows on disk'}")
print("missing note:", json.dumps(r.get("missing"), indent=1))
ok = r["occupancy"] and r["bandwidth"] and r.get("regs") is None and \
     [m["experiment"] for m in r.get("missing", [])] == ["regs"]
print("KILL TEST", "PASSED" if ok else "FAILED")
PY
grep -n -A3 "Incomplete run" "$W/kill/report.md" | head -8
head -3 "$W/kill/tables.md"

echo "=== (b) complete run, figures against results/h200"
rm -rf "$W/full"
( time "$D/host" all --out "$W/full" --compare "$W/peer/peer.cubin" --compare-caps "$W/peer" ) \
  > "$W/full.log" 2>&1; echo "complete run exit status: $?"
tail -5 "$W/full.log"
python3 - "$OLD" "$W/full/results.json" <<'PY'
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:3])
def rows(r):
    out = {}
    for x in r.get("occupancy") or []:
        out[("1", x["variant"])] = (x["gflops"], (x.get("compare") or {}).get("throughput"))
    bw = r.get("bandwidth")
    if bw:
        out[("2", "D2D copy")] = (bw["reference_gbps"], None)
        for x in bw["rows"]:
            out[("2", x["variant"])] = (x["gbps"], (x.get("compare") or {}).get("throughput"))
    for x in r.get("regs") or []:
        out[("3", f"cap {x['cap']}")] = (x["gflops"], (x.get("compare") or {}).get("throughput"))
    return out
o, n = rows(old), rows(new)
print(f"{'exp':>3} {'row':>10} {'ours old':>10} {'ours new':>10} {'new/old':>8} {'peer new/old':>12}")
ratios = []
for k in o:
    if k not in n:
        print(k, "missing from the new run"); continue
    (a, pa), (b, pb) = o[k], n[k]
    r = b / a; ratios.append(r)
    pr = f"{pb / pa:.3f}" if pa and pb else ""
    print(f"{k[0]:>3} {k[1]:>10} {a:>10.1f} {b:>10.1f} {r:>8.3f} {pr:>12}")
ratios.sort()
print(f"ours new/old over {len(ratios)} rows: min {ratios[0]:.3f}, median {ratios[len(ratios)//2]:.3f}, max {ratios[-1]:.3f}")
print("new run missing note:", new.get("missing", []))
PY

echo "=== (c) GPU-only tests"
for t in cli_gpu cli; do
  [ -x "$D/tests/$t" ] && "$D/tests/$t" --ignored --test-threads 1 2>&1 | grep -E "^test |test result|panicked"
done
[ -x "$D/tests/validation" ] && "$D/tests/validation" --test-threads 1 2>&1 | grep -E "^test |test result|panicked"

tar czf "$OUT/layout_check.tgz" -C "$W" kill full kill.stdout kill.stderr full.log 2>/dev/null
date -u
