#!/usr/bin/env bash
# Session 11, second GPU call (2026-12-02): does the launch-timeout backstop end the process now that it writes to
# fd 2 directly (commit 2f78b8b)? Runs faults_gpu (its spinning-kernel test failed in call S10b: the timeout was
# reported but the host did not exit within 60 s). A watcher dumps each thread's state, kernel wait channel and
# syscall of the spinning host 20 s after it starts, so that a hang shows where it waits.
# Pack: scripts/gpu/pack.sh s11a --tests faults_gpu,gemm_hashes_gpu
set -u
CALL=call_s11b; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s11b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
watch_threads "--launch-timeout 3" "$O/threads.txt" & wpid=$!
step 200 150 faults_gpu.log "$W/new/tests/faults_gpu" --ignored --test-threads 1 --nocapture
wait $wpid; save
grep -E "test result|panicked|FAILED|rc=|after [0-9.]+ s" "$O/faults_gpu.log" | cut -c1-300 | head -20
cat "$O/threads.txt" | head -30
date -u
