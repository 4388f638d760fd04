"""Where the host time of one tessel_mamba2 forward call goes (no GPU timing:
host wall time of each piece, median over many calls).

    python3 bench/profile/host_overhead.py [--L 1024] [--h 24] [--n 128]
"""
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
from forward_inputs import make_inputs, shape_parser, tm  # noqa: E402

p = shape_parser(L=1024, h=24)
p.add_argument("--runs", type=int, default=2000)
a = p.parse_args()
dev = "cuda"
x, dt, A, B, C = make_inputs(a, dev)
D = torch.randn(a.h, device=dev)
dt_bias = torch.randn(a.h, device=dev)


def call():
    return tm.mamba_chunk_scan_combined(x, dt, A, B, C, a.Q, D=D, dt_bias=dt_bias, dt_softplus=True)


def med_us(fn, runs=a.runs, sync_every=50):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t = []
    for i in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        t.append(time.perf_counter_ns() - t0)
        if i % sync_every == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return statistics.median(t) / 1e3


rows = []
rows.append(("whole call (host)", med_us(call)))
# The wrapper without the library's forward (everything but the launches).
real_forward = tm._forward
captured = {}


def fake_forward(args):
    captured["args"] = tm.TesselMamba2ForwardArgs.from_buffer_copy(args)
    return 0


tm._forward = fake_forward
rows.append(("wrapper only (forward stubbed)", med_us(call)))
tm._forward = real_forward
# The library's forward alone on the same arguments (validation, tensor
# maps, launches), with a live workspace.
call()
tm._forward = fake_forward
call()
tm._forward = real_forward
args = captured["args"]
nbytes = args.workspace_bytes
ws = torch.empty(max(nbytes, 1), dtype=torch.uint8, device=dev)
args.workspace = ws.data_ptr()
args.stream = torch.cuda.current_stream().cuda_stream
rows.append(("library forward (ctypes call)", med_us(lambda: real_forward(args))))
rows.append(("library workspace_size", med_us(lambda: tm._workspace_size(args, tm.ctypes.byref(tm.ctypes.c_size_t(0))))))
rows.append(("ctypes call of a trivial function", med_us(lambda: tm._last_error())))
rows.append(("torch.empty(y)", med_us(lambda: torch.empty(x.shape, dtype=x.dtype, device=x.device))))
rows.append(("torch.empty(workspace)", med_us(lambda: torch.empty(nbytes, dtype=torch.uint8, device=x.device))))
def in_device():
    with torch.cuda.device(0):
        pass


rows.append(("enter/exit torch.cuda.device", med_us(in_device)))
print("b=%d L=%d h=%d n=%d: host microseconds, median of %d" % (a.b, a.L, a.h, a.n, a.runs))
for name, us in rows:
    print("  %-40s %7.1f" % (name, us))
