#!/usr/bin/env python3
"""Kernel timeline of one Mamba-2 forward (torch.profiler/CUPTI: start and end
of every kernel, us from the first kernel's start), to see which kernels
overlap. For measurements:

    TESSEL_MAMBA2_LIBRARY=build/gpu/libtessel_mamba2.so python3 bench/timeline.py --shape 1,65536,80,64,1,256
"""
import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mamba2 as bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="1,65536,80,64,1,256", metavar="b,L,h,n,g,Q")
    ap.add_argument("--calls", type=int, default=3)
    args = ap.parse_args()
    b, L, h, n, g, Q = (int(v) for v in args.shape.split(","))
    gen = torch.Generator(device="cuda").manual_seed(0)
    kw = bench.make_inputs(b, L, h, n, g, torch.bfloat16, torch.bfloat16, False, gen)

    def fn():
        return bench.tm.mamba_chunk_scan_combined(chunk_size=Q, **kw)

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(args.calls):
            bench.hold_stream(2.0)
            fn()
        torch.cuda.synchronize()
    events = sorted((e for e in prof.events() if e.device_type.name == "CUDA"),
                    key=lambda e: e.time_range.start)
    t0 = None
    for e in events:
        name = e.name
        if "spin_kernel" in name or "sleep" in name:  # hold_stream's spin
            t0 = None
            print("--")
            continue
        if t0 is None:
            t0 = e.time_range.start
        print("%-24s %9.1f %9.1f  (%7.1f us)" % (name[:24], e.time_range.start - t0,
                                                 e.time_range.end - t0, e.time_range.end - e.time_range.start))


if __name__ == "__main__":
    main()
