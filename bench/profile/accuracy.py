#!/usr/bin/env python3
"""y's and the final states' relative L2 error against the float64 reference
(test/gpu/test_mamba2.py's) for a few shapes small enough to check whole
(b L <= 4096), over several seeds: median and largest per shape, beside
MAMBA2.md's tolerances. For comparing two builds' numerics:

    TESSEL_MAMBA2_LIBRARY=LIB python3 bench/profile/accuracy.py [--seeds 5] [--shape b,L,h,n,g,Q ...]
"""
import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mamba2 import (FINAL_TOLERANCE, make_inputs, reference, rel_l2,  # noqa: E402
                    tm, y_tolerance)  # (bench/mamba2.py)

SHAPES = ["1,4096,80,128,1,256", "1,4096,80,256,1,256", "1,4096,80,64,1,256",
          "1,4096,80,128,8,256", "1,4096,80,128,1,128"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", action="append", default=[])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    for spec in args.shape or SHAPES:
        b, L, h, n, g, Q = (int(v) for v in spec.split(","))
        ey, ef = [], []
        for seed in range(args.seeds):
            gen = torch.Generator(device="cuda").manual_seed(1000 + seed)
            kw = make_inputs(b, L, h, n, g, torch.bfloat16, torch.bfloat16, False, gen)
            y, fs = tm.mamba_chunk_scan_combined(chunk_size=Q, return_final_states=True, **kw)
            opts = {k: kw[k] for k in ("D", "dt_bias", "dt_softplus") if k in kw}
            y_ref, f_ref = reference(kw["x"], kw["dt"], kw["A"], kw["B"], kw["C"], **opts)
            ey.append(rel_l2(y, y_ref))
            ef.append(rel_l2(fs, f_ref))
        print("b=%d L=%d h=%d n=%d g=%d Q=%d: y rel L2 median %.2e max %.2e (tol %.0e); "
              "final states median %.2e max %.2e (tol %.0e)" % (
                  b, L, h, n, g, Q, statistics.median(ey), max(ey), y_tolerance(torch.bfloat16),
                  statistics.median(ef), max(ef), FINAL_TOLERANCE), flush=True)


if __name__ == "__main__":
    main()
