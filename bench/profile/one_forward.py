"""One Mamba-2 forward through libtessel_mamba2, for profilers (ncu, nsys).

    ncu --kernel-name compute_out --launch-skip 1 --launch-count 1 \
        python3 bench/profile/one_forward.py --L 4096 --h 80 --n 128

--layer passes what bench/mamba2.py passes by default (a Mamba-2 layer's
call): D (h), dt_bias and dt_softplus, dt drawn raw for the softplus.

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
p.add_argument("--layer", action="store_true",
               help="D (h), dt_bias and dt_softplus, as bench/mamba2.py")
p.add_argument("--tunables", action="append", default=[], metavar="KERNEL:POINT")
a = p.parse_args()
for spec in a.tunables:
    kernel, sep, point = spec.partition(":")
    if not sep or not kernel or not point:
        p.error("--tunables takes KERNEL:POINT, got %r" % spec)
    tm.set_tunables(kernel, point)
x, dt, A, B, C = make_inputs(a)
kw = {}
if a.layer:
    # dt as the pre-activation of a softplus whose result is log-uniform in
    # [1e-3, 1e-1], with a bias drawn the same way (bench/mamba2.py).
    step = dt.float()
    bias = torch.exp(torch.empty(a.h, device=dt.device).uniform_(-6.9, -2.3))
    kw["dt_bias"] = torch.log(torch.expm1(bias))
    dt = (torch.log(torch.expm1(step)) - kw["dt_bias"]).to(dt.dtype)
    kw["dt_softplus"] = True
    kw["D"] = torch.randn(a.h, device=dt.device)
for _ in range(a.repeat):
    y = tm.mamba_chunk_scan_combined(x, dt, A, B, C, a.Q, **kw)
torch.cuda.synchronize()
print("ok", float(y.float().abs().mean()))
