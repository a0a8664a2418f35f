#!/usr/bin/env bash
# How t1_controls.txt was made (dist/ptx: `cargo xtask build --arch sm_90` of the kernels then; dist/peer_built: peer/build.sh output).
D=$(pwd)/dist; P=$D/peer_built
echo "### A. host bandwidth: Rust PTX (JIT) vs the same PTX assembled offline by ptxas 13.0 (cubin)"
$D/host bandwidth --compare $D/ptx/kernels.sm_90.cubin --format markdown 2>&1 | grep -E "^\| (T|Var)"
echo "### B. host bandwidth: nvcc's peer.cubin against itself"
$D/host bandwidth --module $P/peer.cubin --compare $P/peer.cubin --format markdown 2>&1 | grep -E "^\| (T|Var)"
echo "### C. host bandwidth: Rust offline cubin vs nvcc's peer.cubin"
$D/host bandwidth --module $D/ptx/kernels.sm_90.cubin --compare $P/peer.cubin --format markdown 2>&1 | grep -E "^\| (T|Var)"
echo "### D. compare.py: peer.cubin against itself"
python3 $D/peer/compare.py --project $P/peer.cubin --peer $P/peer.cubin 2>&1 | grep -E "^(variant|T)"
echo "### E. compare.py: Rust offline cubin vs peer.cubin, then swapped"
python3 $D/peer/compare.py --project $D/ptx/kernels.sm_90.cubin --peer $P/peer.cubin 2>&1 | grep -E "^(variant|T)"
python3 $D/peer/compare.py --project $P/peer.cubin --peer $D/ptx/kernels.sm_90.cubin 2>&1 | grep -E "^(variant|T)"
