#!/usr/bin/env bash
# The H200 run of 2026-11-30 (five experiments, the nvcc peer compared, cuBLAS in experiment 1), as made on the GPU
# machine with the host and test binaries built on the development machine and carried in dist/ (the GPU machine
# has no Rust): dist/host (cargo build --release -p host), dist/tests/* (cargo test --release --no-run), dist/peer
# (a copy of ../shared/peer). Steps:
#   1. the peer built by nvcc 13.0 (peer.cubin with launch bounds, peer_cap{N}.cubin without, -maxrregcount N);
#   2. the complete run: host all --out DIR --compare peer.cubin --compare-caps peer/ (what `cargo xtask sweep
#      --compare-nvcc` runs), timed;
#   3. the kill test of issue 10: the same command, SIGINT once experiment 3 has started; experiments 1 and 2 must be
#      on disk with a note of what is missing, and the exit status non-zero;
#   4. the GPU-only tests.
set -u
W=/tmp/work; mkdir -p "$W"; D=$(pwd)/dist
# The test binaries find the host binary at the path cargo baked in (env!("CARGO_BIN_EXE_host")).
mkdir -p /work/main/target/release && cp "$D/host" /work/main/target/release/host
( date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv;
  nvcc --version | tail -2; ls -l /usr/lib/x86_64-linux-gnu/libcublas.so* 2>/dev/null | head -3 ) | tee "$W/env.txt"
t0=$(date +%s); bash "$D/peer/build.sh" "$W/peer" sm_90 > "$W/peer_build.log" 2>&1 || echo "PEER BUILD FAILED"
echo "peer build: $(( $(date +%s) - t0 )) s"

echo "=== 2. complete run"
( time "$D/host" all --out "$W/h200" --compare "$W/peer/peer.cubin" --compare-caps "$W/peer" ) > "$W/sweep.log" 2>&1
echo "sweep rc=$?" >> "$W/sweep.log"; tail -6 "$W/sweep.log"
tar czf "$OUT/sweep.tgz" -C "$W" h200 sweep.log env.txt peer_build.log peer/peer.ptxas.txt

echo "=== 3. kill test"
rm -rf "$W/kill"; set -m
"$D/host" all --out "$W/kill" --compare "$W/peer/peer.cubin" --compare-caps "$W/peer" > "$W/kill.stdout" 2> "$W/kill.stderr" &
PID=$!; set +m
for _ in $(seq 1 1200); do
  grep -q "(occupancy, bandwidth)" "$W/kill.stderr" 2>/dev/null && break
  kill -0 "$PID" 2>/dev/null || break; sleep 0.25
done
sleep 2; kill -INT "$PID"; wait "$PID"; RC=$?
{ echo "exit status after SIGINT during experiment 3: $RC"; cat "$W/kill.stderr" | grep -v "^\s*$" | tail -8; ls "$W/kill";
  python3 - "$W/kill/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for name in ("occupancy", "bandwidth", "regs", "inflight", "ilp"):
    print(f"{name}: {'on disk' if r.get(name) is not None else 'not on disk'}")
print("missing note:", json.dumps(r.get("missing")))
ok = r.get("occupancy") is not None and r.get("bandwidth") is not None and r.get("regs") is None
print("KILL TEST", "PASSED" if ok else "FAILED")
PY
} > "$W/kill_test.txt" 2>&1; cat "$W/kill_test.txt"

echo "=== 4. GPU-only tests"
for t in "$D"/tests/*; do
  echo "## $(basename "$t")"; "$t" --ignored --test-threads 1 2>&1 | grep -E "^test |test result|panicked"
done > "$W/gpu_tests.log" 2>&1; cat "$W/gpu_tests.log"
tar czf "$OUT/checks.tgz" -C "$W" kill kill_test.txt kill.stderr gpu_tests.log
date -u
