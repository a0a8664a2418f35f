#!/usr/bin/env bash
# Session 32, GPU call S32c (2026-12-05): S32a's `host all` alone, with the step cut to what the session's last
# device time allows (S28b's `host all` took 167 s without W9; the kind of turns adds W9 to most short lists).
# Pack: dist/p9; carry ["dist/p9"], results/ aside.
set -u
CALL=call_s32c; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
unpack dist/p9/pack.tar.xz "$W/new"; use_host "$W/new"; env_line
host_all 10 250 all.log all
date -u; save
