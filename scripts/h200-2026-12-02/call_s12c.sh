#!/usr/bin/env bash
# Session 12, third GPU call (2026-12-02): why opening cuBLAS took 41.7 s of `host all`'s first experiment in call
# S12b (the temporary phase trace's "cublas open"). The same traced host, `host occupancy --variants C` under several
# driver settings (the host turns the JIT cache off unless CUDA_CACHE_DISABLE is set); and CuPy's cuBLAS handle with
# the cache on and off, as a control outside the lab.
set -u
CALL=call_s12c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/s12b/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
H=$W/new/host
cupy_handle() { python3 -c "import time; t=time.time(); import cupy; cupy.zeros(1); t1=time.time(); cupy.cuda.device.get_cublas_handle(); import cupy.cublas; a=cupy.ones((256,256),dtype=cupy.float32); (a@a).sum().item(); print('cupy init %.2f s, cublas handle + first sgemm %.2f s' % (t1-t, time.time()-t1))"; }
step 60 60 cupy_cache_off.log env CUDA_CACHE_DISABLE=1 bash -c "$(declare -f cupy_handle); cupy_handle"
step 90 60 cupy_cache_on.log env CUDA_CACHE_DISABLE=0 bash -c "$(declare -f cupy_handle); cupy_handle"
step 120 70 occ_default.log $H occupancy --variants C
step 200 70 occ_cache_on.log env CUDA_CACHE_DISABLE=0 $H occupancy --variants C
step 280 70 occ_cache_on_again.log env CUDA_CACHE_DISABLE=0 $H occupancy --variants C
step 360 70 occ_lazy.log env CUDA_MODULE_LOADING=LAZY $H occupancy --variants C
step 440 70 occ_default_again.log $H occupancy --variants C
for f in $O/*.log; do echo "$(basename $f): $(grep -E 'cublas open|cupy init' $f | tail -1) $(tail -1 $f)"; done
date -u; save
