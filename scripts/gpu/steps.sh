# Sourced by the scripts of GPU calls (scripts/h200-*/call_*.sh), on the GPU machine, from the repository root.
# unpack PACK DIR: unpacks a pack of scripts/gpu/pack.sh into DIR.
# use_host DIR: puts DIR/host at target/release/host, where the release-built test binaries look for it, and points
#   LAB_HOST there.
# step DEADLINE TIMEOUT LOG COMMAND...: runs COMMAND into $O/LOG with its exit code appended, unless the call has
#   already run DEADLINE seconds (the device's per-call limit is what keeps a call's results), then saves.
# save: tars $O into $OUT/$CALL.tgz (only a few files come back from $OUT).
unpack() { mkdir -p "$2"; tar xJf "$1" -C "$2"; }
use_host() {
  mkdir -p target/release && cp "$1/host" target/release/host
  export LAB_HOST=$(pwd)/target/release/host
}
save() { tar czf "$OUT/$CALL.tgz" -C "$(dirname "$O")" "$(basename "$O")"; }
step() {
  local d=$1 t=$2 log=$3; shift 3
  if [ "$SECONDS" -gt "$d" ]; then echo "## $log not run: the call's time is spent ($SECONDS s)"; return; fi
  echo "## $log ($SECONDS s)"; timeout "$t" "$@" > "$O/$log" 2>&1; echo "rc=$?" >> "$O/$log"; save
}
env_line() {
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version,serial --format=csv > "$O/env.txt" 2>&1
  date -u >> "$O/env.txt"
}
# start_call NAME: the call's folder $O, $W/$CALL (CALL defaults to NAME, W to /tmp/lead), and the card's line in
#   $O/env.txt, printed; with H200_ONLY=1, on any other card it saves and ends the call there.
start_call() {
  CALL=${CALL:-$1}; W=${W:-/tmp/lead}; O=$W/$CALL; mkdir -p "$O"
  env_line; cat "$O/env.txt"
  if [ "${H200_ONLY:-0}" = 1 ] && ! grep -q H200 "$O/env.txt"; then echo "not an H200: nothing run"; save; exit 0; fi
}
# watch_threads PATTERN FILE: waits (up to 60 s) for a process whose command line holds PATTERN, then, 20 s later,
#   writes each of its threads' name, state, kernel wait channel and syscall to FILE: where a hang waits.
watch_threads() {
  local pid=""
  for _ in $(seq 1 120); do
    pid=$(pgrep -f -- "$1" | head -1)
    [ -n "$pid" ] && break; sleep 0.5
  done
  [ -z "$pid" ] && { echo "no process matching $1 seen" > "$2"; return; }
  sleep 20
  { echo "pid $pid after 20 s"; for t in /proc/$pid/task/*; do
      echo "$t $(cat $t/comm 2>/dev/null) state=$(awk '{print $3}' $t/stat 2>/dev/null) wchan=$(cat $t/wchan 2>/dev/null) syscall=$(cut -d' ' -f1 $t/syscall 2>/dev/null)"
    done; grep -E "State|Threads" /proc/$pid/status 2>/dev/null; } > "$2" 2>&1
}
# host_all DEADLINE TIMEOUT LOG DIR: the timed `host all` of the new pack (W/new) with nvcc's twin compared, into
#   $O/DIR, with the phase times logged; then the summary lines: wall time, issue 32's targets, the shapes rows.
host_all() {
  local H=$W/new/host TW=$W/new/twin
  step "$1" "$2" "$3" env LAB_PHASE_TIMES=1 bash -c \
    "time $H all --out $O/$4 --compare $TW/twin.cubin --compare-caps $TW --compare-label nvcc"
  grep -E "^real|rc=" "$O/$3"
  grep -E "targets \(benchmarks" "$O/$3" | cut -c1-520
  # The whole rows, spaces squeezed: the columns shown vary with the run (K splits, Last wave).
  grep -E "│ (BF16|FP32)" "$O/$3" | tr -s ' ' | cut -c1-260
}
# ncu_base DEADLINE TIMEOUT NAME KERNELS HOST_ARGS...: Nsight Compute at the base clock on the new pack's host, the
#   first two kernels matching the regex KERNELS (ours and cuBLAS's nvjet), into $O/NAME.{log,txt,_sass.csv}; prints
#   cycles, clock, tensor pipe and stall reasons, the SASS lines with the most stall samples, then each kernel's
#   tensor-busy and idle cycles and the idle cycles 1.02 per clock against cuBLAS's kernel allows.
ncu_base() {
  local d=$1 t=$2 n=$3 k=$4; shift 4
  local NCU; NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
  step "$d" "$t" "$n.log" "$NCU" --clock-control base --section SpeedOfLight --section WarpStateStats \
    --section InstructionStats --section SchedulerStats --section SourceCounters --section LaunchStats \
    -k "regex:$k" -c 2 -f -o "$O/$n" "$W/new/host" "$@"
  [ -f "$O/$n.ncu-rep" ] || return
  "$NCU" -i "$O/$n.ncu-rep" --page details --print-details all > "$O/$n.txt" 2>&1
  "$NCU" -i "$O/$n.ncu-rep" --page source --csv --print-source sass -k "regex:wgemm" > "$O/${n}_sass.csv" 2>&1
  grep -E "^  [a-z_]|Elapsed Cycles|SM Frequency|Tensor Cycles Active  |Executed Instructions  |Stall (Barrier|Wait|Long|GMMA|MIO|Branch)" "$O/$n.txt" | head -40
  python3 scripts/gpu/ncu_stalls.py "$O/${n}_sass.csv" 20
  python3 scripts/gpu/tensor_idle.py "$O/$n.txt" 1.02
  rm -f "$O/$n.ncu-rep"; save
}
# rows LABELS LOG: the first three table rows of $O/LOG whose side's first word matches the regex LABELS (e.g.
#   'W8|W9|cuBLAS'; W1 leaves W11 out):
#   side, GFLOP/s, in-kernel MHz, FLOP/cycle/SM and Ours/cuBLAS, as the GEMM tables print their columns.
rows() { grep -E "^│ ($1) " "$O/$2" | head -3 | awk -F'│' '{print $2,$10,$19,$20,$22}'; }
# gemm_rows DEADLINE TIMEOUT LOG HOST VARIANTS SIZE: `HOST gemm_bf16 --variants VARIANTS --size SIZE` as a step into
#   $O/LOG, then LOG's name and the rows of VARIANTS' lines and cuBLAS.
gemm_rows() {
  step "$1" "$2" "$3" "$4" gemm_bf16 --variants "$5" --size "$6"; echo "$3"; rows "${5//,/|}|cuBLAS" "$3"
}
# The wgmma lines' GPU checks a kernel candidate passes before it is timed for a merge, in wgemm_gpu: every line's
# elements at awkward sizes (first: the one a short call runs), split-K, the streamed tails, no spills in any entry.
WGEMM_CHECKS=(every_wgemm_line_passes_the_check_at_awkward_sizes the_split_k_lines_are_checked
  the_streamed_tails_are_checked the_jit_reports_every_wgemm_entry_without_spills)
# test_step DEADLINE TIMEOUT LOG TEST_BINARY TEST...: the named ignored (GPU) tests, one thread, as a step into $O/LOG,
#   then its failures and totals.
test_step() {
  local d=$1 t=$2 log=$3 bin=$4; shift 4
  step "$d" "$t" "$log" "$bin" --ignored --test-threads 1 --nocapture "$@"
  grep -h -E "FAILED|test result|panicked|rc=" "$O/$log" | cut -c1-300
}
