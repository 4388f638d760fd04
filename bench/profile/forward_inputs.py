"""The shape arguments and inputs the profiling scripts share (drawn as
../../shared/MAMBA2.md's accuracy contract says: x, B, C ~ N(0, 1), dt
log-uniform in [1e-3, 1e-1], A = -U(1, 16))."""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "mamba2", "python"))
import tessel_mamba2 as tm  # noqa: E402,F401  (re-exported for the scripts)


def shape_parser(L=4096, h=80):
    """--b --L --h --p --n --g --Q, with the given defaults for L and h."""
    p = argparse.ArgumentParser()
    p.add_argument("--b", type=int, default=1)
    p.add_argument("--L", type=int, default=L)
    p.add_argument("--h", type=int, default=h)
    p.add_argument("--p", type=int, default=64)
    p.add_argument("--n", type=int, default=128)
    p.add_argument("--g", type=int, default=1)
    p.add_argument("--Q", type=int, default=256)
    return p


def make_inputs(a, dev="cuda"):
    """x, dt, A, B, C for the parsed shape `a` (bf16, A f32)."""
    x = torch.randn(a.b, a.L, a.h, a.p, device=dev, dtype=torch.bfloat16)
    B = torch.randn(a.b, a.L, a.g, a.n, device=dev, dtype=torch.bfloat16)
    C = torch.randn(a.b, a.L, a.g, a.n, device=dev, dtype=torch.bfloat16)
    dt = torch.exp(torch.empty(a.b, a.L, a.h, device=dev).uniform_(-6.9, -2.3)).to(torch.bfloat16)
    A = -torch.empty(a.h, device=dev).uniform_(1, 16)
    return x, dt, A, B, C
