#!/usr/bin/env bash
# Repeat of the two rows at parity (cap 48/64 and T1), full timing settings, to see run-to-run spread.
D=$(pwd)/dist; P=$D/peer_built
date -u
for i in 1 2; do
  $D/host regs --caps 48,64 --compare $P --format markdown 2>&1 | grep -E "^\| (Cap|48|64) "
  $D/host bandwidth --variants T1,T8 --compare $P/peer.cubin --format markdown 2>&1 | grep -E "^\| (Variant|T1|T8) "
done
