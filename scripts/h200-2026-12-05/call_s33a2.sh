#!/usr/bin/env bash
# Session 33, GPU call S33a2 (2026-12-05): call_s32a.sh's `host all` a second time on the same warm card, without the
# profile: how far its BF16 figures move from run to run. Same pack and carry.
set -u
CALL=call_s33a2; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 290 all.log all
date -u; save
