#!/bin/sh
# Temporary: this session's GPU checks (deleted after).
set -u
sh bench/ab.sh build/abl/head.so build/abl/v4.so 1,65536,80,128,1,256 1,65536,80,128,1,128 1,16384,80,128,1,256 > $OUT/ab-v4.txt 2>&1; echo "ab rc=$?"
sh bench/ab.sh build/abl/v4.so build/abl/early.so 1,65536,80,128,1,256 1,65536,80,128,1,128 1,16384,80,128,1,256 > $OUT/ab-early.txt 2>&1; echo "ab rc=$?"
for f in $OUT/ab-v4.txt $OUT/ab-early.txt; do echo "== $f"; grep "bf16/dt bf16" $f | sed -E 's/^([a-z0-9.]*so) [0-9,]*: /\1 /; s/ g=1.*cumsum ([0-9.]+) state ([0-9.]+) out ([0-9.]+) .*forward ([0-9.]+) ms.*/ st \2 out \3 fwd \4/'; done
