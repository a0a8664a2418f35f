#!/usr/bin/env bash
# The exploration run as it ran on the H200 (dist/ was carried from this machine): cand/{base,c1,c1g8} hold
# `cargo xtask build --arch sm_90` outputs of three kernel versions, cand/peer the nvcc cubins of ../shared/peer/build.sh.
D=$(pwd)/dist; C=$D/cand; R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
for c in base c1 c1g8; do
  echo "== $c regs"; $D/host regs --module $C/$c --compare $C/peer --iters 5 --samples 3 --format markdown 2>&1 | tail -14
done > $R/regs.txt
for c in base c1; do
  echo "== $c gemm"; $D/host occupancy --module $C/$c/kernels.ptx --compare $C/peer/peer.cubin --iters 10 --samples 3 --format markdown 2>&1 | tail -12
done > $R/gemm.txt
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct,l1tex__t_sector_pipe_lsu_mem_local_op_st_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct
for cap in 48 64; do for m in $C/base/kernels_cap$cap.ptx $C/c1/kernels_cap$cap.ptx $C/peer/peer_cap$cap.cubin; do
  echo "== ncu $m"; timeout 120 ncu --metrics $M -k gemm_tm8_tn8 -c 1 -s 1 python3 $C/one.py $m gemm_tm8_tn8 64 2048 2>&1 | grep -vE "^==PROF==" | tail -16
done; done > $R/ncu.txt 2>&1
