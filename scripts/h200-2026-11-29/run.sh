#!/usr/bin/env bash
# Final batched run 3 (kernels with the nvcc-shaped grid index): peer build, full sweep compared, compare.py both ways, GPU tests.
W=/tmp/work; mkdir -p $W; D=$(pwd)/dist
( date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv; nvcc --version | tail -2 ) | tee $W/env.txt
bash $D/peer/build.sh $W/peer sm_90 || echo "PEER BUILD FAILED"
tar czf $OUT/peer.tgz -C $W peer env.txt
( time $D/host all --out $W/h200 --compare $W/peer/peer.cubin --compare-caps $W/peer ) > $W/sweep.log 2>&1; echo "sweep rc=$?" >> $W/sweep.log
tail -4 $W/sweep.log; grep -E "^\| T" $W/h200/tables.md | cut -c1-12,150-
tar czf $OUT/sweep.tgz -C $W h200 sweep.log
( python3 $D/peer/compare.py --project $D/ptx/kernels.ptx --peer $W/peer/peer.cubin --json $W/compare_py.json;
  echo "### swapped roles (peer as --project)"; python3 $D/peer/compare.py --project $W/peer/peer.cubin --peer $D/ptx/kernels.ptx ) > $W/compare_py.txt 2>&1
cat $W/compare_py.txt
tar czf $OUT/compare.tgz -C $W compare_py.txt compare_py.json
$D/tests/cli_gpu --ignored --test-threads 1 > $W/gpu_tests.log 2>&1; grep -E "^test |test result|panicked" $W/gpu_tests.log; cp $W/gpu_tests.log $OUT/
