#!/usr/bin/env python3
"""Racecheck over some GPU test kernels, and the SASS around every offset it
reports: which instructions a reported hazard lies between.

    python3 bench/profile/racecheck_sass.py build/gpu test_tma_bf16,test_tma_wgmma_bf16 [--out DIR]

Runs tessel-gpu-tests over the cubin folder with only the op cases whose
kernel name contains one of the comma-separated parts (TESSEL_GPU_CASES, no
timing) under `compute-sanitizer --tool racecheck --racecheck-report all
--print-level info`, keeps its whole report in DIR/racecheck.txt, prints its
hazard lines, then for each reported kernel+offset the instructions around
that offset in `cuobjdump -sass` of the kernel's sm_90a cubin.
"""
import argparse
import os
import re
import subprocess
import sys

p = argparse.ArgumentParser()
p.add_argument("dir", help="the cubin folder (build/gpu, carried)")
p.add_argument("cases", help="comma-separated parts of kernel names")
p.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
p.add_argument("--context", type=int, default=8, help="instructions each side")
a = p.parse_args()

env = dict(os.environ, TESSEL_GPU_NO_TIMING="1", TESSEL_GPU_CASES=a.cases)
run = subprocess.run(
    ["compute-sanitizer", "--tool", "racecheck", "--racecheck-report", "all",
     "--print-level", "info", os.path.join(a.dir, "tessel-gpu-tests"), a.dir],
    env=env, capture_output=True, text=True)
report = run.stdout + run.stderr
os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, "racecheck.txt"), "w") as f:
    f.write(report)
lines = report.splitlines()
for line in lines:
    if re.search(r"Race reported|hazard|SUMMARY|access at| PASS | FAIL |cases", line):
        print(line)

# Every "<kind> access at <kernel>+0x<offset>" the report names.
sites = sorted(set(re.findall(r"(Read|Write) access at ([A-Za-z0-9_]+)\+0x([0-9a-f]+)", report)))
sass = {}
for kind, kernel, offset in sites:
    cubin = os.path.join(a.dir, kernel + ".sm_90a.cubin")
    if not os.path.exists(cubin):
        print("== %s at %s+0x%s: no %s" % (kind, kernel, offset, cubin))
        continue
    if cubin not in sass:
        text = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True,
                              text=True).stdout
        sass[cubin] = [(int(m.group(1), 16), m.group(2).strip())
                       for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", text)]
    code = sass[cubin]
    at = int(offset, 16)
    where = next((i for i, (o, _) in enumerate(code) if o == at), None)
    print("== %s access at %s+0x%s" % (kind, kernel, offset))
    if where is None:
        print("   (offset not found in the SASS)")
        continue
    for o, text in code[max(0, where - a.context):where + a.context + 1]:
        print("%s %04x  %s" % ("->" if o == at else "  ", o, text))
sys.exit(0)
