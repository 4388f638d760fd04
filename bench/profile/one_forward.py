"""One Mamba-2 forward through libtessel_mamba2, for profilers (ncu, nsys).

    ncu --kernel-name compute_out --launch-skip 1 --launch-count 1 \
        python3 bench/profile/one_forward.py --L 4096 --h 80 --n 128

--tunables KERNEL:POINT (repeatable) forces a compiled point of a kernel
(tessel_mamba2_set_tunables), e.g. one of the tuned table's rows at a shape
that would not pick it.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from forward_inputs import make_inputs, shape_parser, tm  # noqa: E402

p = shape_parser()
p.add_argument("--repeat", type=int, default=2)
p.add_argument("--tunables", action="append", default=[], metavar="KERNEL:POINT")
a = p.parse_args()
for spec in a.tunables:
    kernel, sep, point = spec.partition(":")
    if not sep or not kernel or not point:
        p.error("--tunables takes KERNEL:POINT, got %r" % spec)
    tm.set_tunables(kernel, point)
x, dt, A, B, C = make_inputs(a)
for _ in range(a.repeat):
    y = tm.mamba_chunk_scan_combined(x, dt, A, B, C, a.Q)
torch.cuda.synchronize()
print("ok", float(y.float().abs().mean()))
