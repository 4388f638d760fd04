"""One Mamba-2 forward through libtessel_mamba2, for profilers (ncu, nsys).

    ncu --kernel-name compute_out --launch-skip 1 --launch-count 1 \
        python3 bench/profile/one_forward.py --L 4096 --h 80 --n 128
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "mamba2", "python"))
import tessel_mamba2 as tm  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--b", type=int, default=1)
p.add_argument("--L", type=int, default=4096)
p.add_argument("--h", type=int, default=80)
p.add_argument("--p", type=int, default=64)
p.add_argument("--n", type=int, default=128)
p.add_argument("--g", type=int, default=1)
p.add_argument("--Q", type=int, default=256)
p.add_argument("--repeat", type=int, default=2)
a = p.parse_args()
dev = "cuda"
x = torch.randn(a.b, a.L, a.h, a.p, device=dev, dtype=torch.bfloat16)
B = torch.randn(a.b, a.L, a.g, a.n, device=dev, dtype=torch.bfloat16)
C = torch.randn(a.b, a.L, a.g, a.n, device=dev, dtype=torch.bfloat16)
dt = torch.exp(torch.empty(a.b, a.L, a.h, device=dev).uniform_(-6.9, -2.3)).to(torch.bfloat16)
A = -torch.empty(a.h, device=dev).uniform_(1, 16)
for _ in range(a.repeat):
    y = tm.mamba_chunk_scan_combined(x, dt, A, B, C, a.Q)
torch.cuda.synchronize()
print("ok", float(y.float().abs().mean()))
