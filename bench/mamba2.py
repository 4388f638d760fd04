#!/usr/bin/env python3
"""Benchmark of libtessel_mamba2 (the Mamba-2 SSD forward) against the Triton
numbers of mamba_ssm recorded in shared/MAMBA2.md.

    TESSEL_MAMBA2_LIBRARY=build/gpu/libtessel_mamba2.so python bench/mamba2.py [--quick] [--csv PATH]

For every shape: a sanity check first (outputs poisoned with NaN, then no NaN
anywhere; small shapes against the float64 reference of test/gpu/test_mamba2.py,
large ones against it on a prefix of the sequence for a few heads: y_t depends
only on tokens <= t), then
  (i)  the whole Python call of mamba_chunk_scan_combined, between two CUDA
       events with the GPU idle at the start (synchronised before each run), so
       it includes the host overhead; timing mode off. Also the host wall time.
  (ii) the device time of each kernel from the library's timing API
       (set_timing(1), CUDA events around each kernel: chunk_cumsum,
       chunk_state then state_passing or fwd_pass_state alone, compute_out),
       median per kernel; "state" is the sum of the two state medians and
       "kernels" the sum of all.
Inputs are drawn as MAMBA2.md's accuracy contract says. By default the call is
the one a Mamba-2 layer makes: D (h), dt_bias, dt_softplus=True (--plain: none).
"""

import argparse
import csv
import math
import os
import statistics
import subprocess
import sys
import time

import torch

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_PY_DIR = os.environ.get("TESSEL_MAMBA2_PY_DIR", os.path.join(REPO, "kernels", "mamba2", "python"))
for _d in (_PY_DIR, os.path.join(REPO, "test", "gpu")):
    if _d not in sys.path:
        sys.path.insert(0, _d)

import tessel_mamba2 as tm  # noqa: E402
from test_mamba2 import FINAL_TOLERANCE, reference, rel_l2, y_tolerance  # noqa: E402

P = 64  # head dim, throughout MAMBA2.md's table
PEAK_FLOPS = 790e12  # H200 dense bf16, as MAMBA2.md's floor
PEAK_BYTES = 4.3e12  # H200 HBM3e, as MAMBA2.md's floor

# shared/MAMBA2.md, "What it must beat (recorded on the H200, 2026-11-29)":
# mamba_ssm 2.3.2.post1 Triton forward, bf16, p = 64.
# (b, L, h, n, g, Q): (call ms, kernels ms, floor ms)
TRITON = {
    (1, 1024, 24, 128, 1, 256): (0.443, 0.141, 0.002),
    (1, 4096, 80, 128, 1, 256): (0.430, 0.222, 0.021),
    (1, 16384, 80, 128, 1, 256): (0.696, 0.721, 0.082),
    (1, 65536, 80, 64, 1, 256): (2.227, 2.381, 0.319),
    (1, 65536, 80, 128, 1, 256): (2.930, 2.945, 0.329),
    (1, 65536, 80, 256, 1, 256): (4.225, 4.178, 0.549),
    (1, 65536, 80, 128, 8, 256): (3.161, 3.222, 0.378),
    (1, 65536, 80, 128, 1, 128): (2.990, 3.076, 0.324),
    (4, 16384, 80, 128, 1, 256): (2.957, 2.958, 0.329),
    (4, 65536, 80, 128, 1, 256): (12.616, 12.195, 1.316),
    (4, 65536, 8, 256, 1, 128): (2.028, 2.068, 0.207),
}

# (b, L, h, n, g, Q, x dtype, dt dtype)
SHAPES = [k + ("bf16", "bf16") for k in TRITON] + [
    (1, 65536, 80, 128, 1, 256, "fp16", "fp16"),
    (1, 65536, 80, 128, 1, 256, "bf16", "fp32"),
    (1, 65536, 80, 128, 1, 64, "bf16", "bf16"),
    (1, 16384, 80, 128, 8, 64, "bf16", "bf16"),
    (2, 65000, 80, 128, 1, 256, "bf16", "bf16"),  # ragged: L % Q != 0
]
QUICK_SHAPES = [
    (1, 1024, 24, 128, 1, 256, "bf16", "bf16"),
    (1, 4096, 80, 128, 1, 256, "bf16", "bf16"),
    (1, 16384, 80, 128, 1, 256, "bf16", "bf16"),
    (1, 4096, 80, 128, 8, 64, "fp16", "fp16"),
    (1, 4000, 24, 64, 2, 128, "bf16", "fp32"),
]

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def flops_of(b, L, h, n, g, Q, p=P):
    """The useful FLOPs of the chunked forward (as MAMBA2.md's floor column):
      chunk states  S += (decay*dt*x)^T B       2*b*L*h*p*n
      C . S^T (inter-chunk output)              2*b*L*h*p*n
      C . B^T per group and chunk, causal half  2*b*L*Q*g*n / 2
      (C.B^T * decay * dt) . x, causal half     2*b*L*Q*h*p / 2
    C.B^T counted once per group (heads of a group share it), which reproduces
    MAMBA2.md's floors; counted per head it would be 2*b*L*Q*h*n/2."""
    return 2 * b * L * h * p * n * 2 + b * L * Q * g * n + b * L * Q * h * p


def nbytes(*tensors):
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


def log_uniform(shape, lo, hi, gen, device):
    u = torch.rand(shape, generator=gen, device=device, dtype=torch.float32)
    return torch.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))


def make_inputs(b, L, h, n, g, dtype, dt_dtype, plain, gen, device="cuda", seqs=0):
    kw = {}
    if seqs > 0:  # packed sequences: `seqs` runs of (nearly) equal length per row
        ids = torch.arange(L, device=device, dtype=torch.int64) * seqs // L
        kw["seq_idx"] = ids.to(torch.int32).expand(b, L).contiguous()
    kw["x"] = torch.randn(b, L, h, P, generator=gen, device=device, dtype=dtype)
    kw["B"] = torch.randn(b, L, g, n, generator=gen, device=device, dtype=dtype)
    kw["C"] = torch.randn(b, L, g, n, generator=gen, device=device, dtype=dtype)
    kw["A"] = -(1.0 + 15.0 * torch.rand(h, generator=gen, device=device))
    step = log_uniform((b, L, h), 1e-3, 1e-1, gen, device)
    if plain:
        kw["dt"] = step.to(dt_dtype)
    else:
        bias_step = log_uniform((h,), 1e-3, 1e-1, gen, device)
        dt_bias = torch.log(torch.expm1(bias_step))
        kw["dt"] = (torch.log(torch.expm1(step)) - dt_bias).to(dt_dtype)
        kw["dt_bias"] = dt_bias
        kw["dt_softplus"] = True
        kw["D"] = torch.randn(h, generator=gen, device=device)
    del step
    return kw


def sanity(kw, Q):
    """None if fine, else a short reason."""
    x, B = kw["x"], kw["B"]
    b, L, h, p = x.shape
    n = B.shape[-1]
    y = torch.full((b, L, h, p), float("nan"), dtype=x.dtype, device=x.device)
    fs = torch.full((b, h, p, n), float("nan"), dtype=torch.float32, device=x.device)
    tm.mamba_chunk_scan_combined(chunk_size=Q, return_final_states=True, out=y,
                                 final_states_out=fs, **kw)
    torch.cuda.synchronize()
    bad = (~torch.isfinite(y)).sum().item()
    if bad:
        return "y: %d non-finite" % bad
    bad = (~torch.isfinite(fs)).sum().item()
    if bad:
        return "final_states: %d non-finite" % bad
    opts = {k: kw[k] for k in ("D", "dt_bias", "dt_softplus", "seq_idx") if k in kw}
    tol = y_tolerance(x.dtype)
    if b * L <= 4096:  # the whole problem against float64
        y_ref, f_ref = reference(x, kw["dt"], kw["A"], B, kw["C"], **opts)
        err = rel_l2(y, y_ref)
        if err > tol:
            return "y rel L2 %.2e" % err
        err = rel_l2(fs, f_ref)
        if err > FINAL_TOLERANCE:
            return "final_states rel L2 %.2e" % err
        return None
    # A prefix of row 0 for up to 8 heads (y_t depends only on tokens <= t).
    Lp = min(L, 1024)
    heads = sorted({round(i * (h - 1) / 7) for i in range(8)}) if h > 1 else [0]
    if "seq_idx" in opts:
        opts["seq_idx"] = opts["seq_idx"][:1, :Lp]
    y_ref, _ = reference(x[:1, :Lp], kw["dt"][:1, :Lp], kw["A"], B[:1, :Lp], kw["C"][:1, :Lp],
                         heads=heads, **opts)
    err = rel_l2(y[:1, :Lp][:, :, heads], y_ref)
    if err > tol:
        return "y (prefix) rel L2 %.2e" % err
    return None


def time_call(fn, warmup, runs):
    """Median device ms between events around the whole call (GPU idle before
    each), and median host ms of the call itself."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    host = []
    for i in range(runs):
        torch.cuda.synchronize()
        starts[i].record()
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        ends[i].record()
        host.append((t1 - t0) * 1e3)
    torch.cuda.synchronize()
    dev = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return statistics.median(dev), statistics.median(host)


_SLEEP_CYCLES_PER_MS = None


def hold_stream(ms):
    """Keep the current stream busy for about `ms` (torch.cuda._sleep, a spin
    kernel), so that what is enqueued next waits in the queue and an event
    recorded next fires when the spin ends, not when the host gets there."""
    global _SLEEP_CYCLES_PER_MS
    if _SLEEP_CYCLES_PER_MS is None:
        cycles = 1 << 20
        torch.cuda._sleep(cycles)  # first launch: module load
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        torch.cuda._sleep(cycles)
        b.record()
        torch.cuda.synchronize()
        _SLEEP_CYCLES_PER_MS = cycles / a.elapsed_time(b)
    torch.cuda._sleep(int(ms * _SLEEP_CYCLES_PER_MS))


def behind_spin(host_ms, run):
    """Calls `run` (which enqueues the timed work) behind a spin of at least
    0.5 ms and 3x the call's host time; True when the host took more than 80%
    of the spin (that run then holds host time, not device time alone)."""
    hold = max(0.5, 3.0 * host_ms)
    hold_stream(hold)
    t0 = time.perf_counter()
    run()
    return (time.perf_counter() - t0) * 1e3 > 0.8 * hold


def time_forward(fn, warmup, runs, host_ms):
    """Median device ms of the whole forward with the launches queued behind a
    spin (hold_stream): the first kernel starts as soon as the spin ends, so
    the host's launch latency is not counted, while the gaps between the
    kernels (and what programmatic dependent launch overlaps) are. Also the
    number of runs whose host call outlasted the spin (those include host time:
    the measurement is then not device time alone)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    late = 0
    for start, end in zip(starts, ends):
        torch.cuda.synchronize()
        late += behind_spin(host_ms, lambda: (start.record(), fn(), end.record()))
    torch.cuda.synchronize()
    dev = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return statistics.median(dev), late


def time_kernels(fn, warmup, runs, host_ms):
    """Median device ms of each kernel (the library's events around each
    launch), the launches queued behind a spin as in time_forward; and the
    number of runs whose host call outlasted the spin."""
    late = 0
    tm.set_timing(True)
    try:
        for _ in range(max(1, warmup // 2)):
            fn()
            tm.last_kernel_times()
        per = ([], [], [], [])
        for _ in range(runs):
            late += behind_spin(host_ms, fn)
            t = tm.last_kernel_times()
            for k in range(4):
                per[k].append(t[k])
    finally:
        tm.set_timing(False)
    return tuple(statistics.median(v) for v in per), late


def git_commit():
    """The commit the library was built from: the COMMIT file `ninja gpu-tests`
    writes beside it (build/gpu), else git's HEAD here (on the GPU machine the
    copy of the tree may carry a stale .git: then say so)."""
    stamp = os.path.join(os.path.dirname(os.path.abspath(tm.LIBRARY_PATH)), "COMMIT")
    try:
        with open(stamp) as f:
            built = f.read().strip()
        if built:
            return "%s (%s)" % (built, os.path.relpath(stamp, REPO) if stamp.startswith(REPO) else stamp)
    except OSError:
        pass
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        return (head + " (git HEAD of this tree, not necessarily the library's)") if head else "?"
    except Exception:  # noqa: BLE001
        return "?"


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.*f" % (digits, v)
    return str(v)


COLUMNS = [
    ("b", "b"), ("L", "L"), ("h", "h"), ("n", "n"), ("g", "g"), ("Q", "Q"), ("dtype", "x"),
    ("dt_dtype", "dt"), ("cumsum_ms", "cumsum ms"), ("state_ms", "state ms"),
    ("state1_ms", "chunk_state (or fwd_pass_state) ms"), ("state2_ms", "state_passing ms"), ("out_ms", "out ms"),
    ("kernels_ms", "kernels ms"), ("forward_ms", "forward ms"), ("call_ms", "call ms"), ("host_ms", "host ms"),
    ("tflops", "TFLOP/s"), ("gbs", "GB/s"), ("floor_ms", "floor ms"), ("pct_floor", "% of floor"),
    ("triton_kernels_ms", "Triton kernels ms"), ("triton_call_ms", "Triton call ms"),
    ("speedup_kernels", "Triton/tessel kernels"), ("speedup_forward", "Triton kernels/tessel forward"), ("speedup_call", "Triton/tessel call"),
    ("late_runs", "runs not device-bound"), ("check", "check"),
]


def bench_shape(shape, args, gen):
    b, L, h, n, g, Q, dts, dtdts = shape
    row = dict(b=b, L=L, h=h, n=n, g=g, Q=Q, dtype=dts, dt_dtype=dtdts)
    tri = (TRITON.get((b, L, h, n, g, Q))
           if (dts, dtdts) == ("bf16", "bf16") and args.triton_here and not args.seq_idx
           else None)
    row["triton_call_ms"], row["triton_kernels_ms"] = (tri[0], tri[1]) if tri else (None, None)
    kw = make_inputs(b, L, h, n, g, DTYPES[dts], DTYPES[dtdts], args.plain, gen,
                     seqs=args.seq_idx)
    try:
        reason = sanity(kw, Q)
    except tm.TesselMamba2Error as e:
        row["check"] = "ERROR %s: %s" % (type(e).__name__, e)
        return row
    row["check"] = "ok" if reason is None else "FAIL (%s)" % reason
    torch.cuda.empty_cache()

    def fn():
        return tm.mamba_chunk_scan_combined(chunk_size=Q, **kw)

    row["call_ms"], row["host_ms"] = time_call(fn, args.warmup, args.runs)
    (c, s1, s2, o), late_kernels = time_kernels(fn, args.warmup, args.runs, row["host_ms"])
    row["forward_ms"], late = time_forward(fn, args.warmup, args.runs, row["host_ms"])
    row["late_runs"] = late + late_kernels
    s = s1 + s2
    row["cumsum_ms"], row["state_ms"], row["out_ms"] = c, s, o
    row["state1_ms"], row["state2_ms"] = s1, s2
    k = c + s + o
    row["kernels_ms"] = k
    x = kw["x"]
    flops = flops_of(b, L, h, n, g, Q)
    # Minimal traffic: every input read once, y written once.
    byts = nbytes(x, kw["dt"], kw["A"], kw["B"], kw["C"], kw.get("D"), kw.get("dt_bias")) + nbytes(x)
    floor = max(flops / PEAK_FLOPS, byts / PEAK_BYTES) * 1e3
    row["floor_ms"] = floor
    if k > 0:
        row["tflops"] = flops / (k * 1e-3) / 1e12
        row["gbs"] = byts / (k * 1e-3) / 1e9
        row["pct_floor"] = 100.0 * floor / k
        if tri:
            row["speedup_kernels"] = tri[1] / k
            row["speedup_forward"] = tri[1] / row["forward_ms"]
    if tri and row["call_ms"] > 0:
        row["speedup_call"] = tri[0] / row["call_ms"]
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small shapes, fewer runs")
    ap.add_argument("--csv", metavar="PATH", help="also write the rows as CSV")
    ap.add_argument("--runs", type=int, default=None, help="timed runs per shape (default 100, quick 50)")
    ap.add_argument("--warmup", type=int, default=None, help="warm-up runs (default 20, quick 10)")
    ap.add_argument("--plain", action="store_true", help="no D, dt_bias, softplus")
    ap.add_argument("--seq-idx", type=int, default=0, metavar="K",
                    help="packed sequences: seq_idx with K >= 1 runs of equal length per batch row "
                         "(no Triton columns: MAMBA2.md's times are without)")
    ap.add_argument("--triton-any-gpu", action="store_true",
                    help="show the Triton columns (MAMBA2.md's H200 times) on another GPU too")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--commit", default=None,
                    help="the commit to name in the header (default: the COMMIT file beside the library, "
                         "which `ninja gpu-tests` writes, else git's HEAD; the GPU machine's copy of the "
                         "tree may carry a stale .git)")
    ap.add_argument("--shape", action="append", default=[], metavar="b,L,h,n,g,Q",
                    help="only this shape (repeatable): the table's rows for it, or, for a shape not in "
                         "the table, bf16 x and dt without a Triton time")
    ap.add_argument("--tunables", action="append", default=[], metavar="KERNEL:NAME=V,...",
                    help="force a kernel's tunables (tessel_mamba2_set_tunables; repeatable)")
    args = ap.parse_args()
    if args.seq_idx < 0:
        ap.error("--seq-idx takes a number of sequences per row, at least 1")
    for forced in args.tunables:
        kernel, _, text = forced.partition(":")
        tm.set_tunables(kernel, text)
    only = [tuple(int(v) for v in s.split(",")) for s in args.shape]
    if any(len(o) != 6 for o in only):
        ap.error("--shape takes six integers: b,L,h,n,g,Q")
    args.runs = args.runs or (50 if args.quick else 100)
    args.warmup = args.warmup or (10 if args.quick else 20)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)

    props = torch.cuda.get_device_properties(0)
    print("# %s, torch %s, CUDA %s, commit %s" % (props.name, torch.__version__, torch.version.cuda,
                                                 args.commit or git_commit()))
    # The Triton times are MAMBA2.md's, recorded on the H200: against
    # another card the ratios would compare unlike GPUs.
    args.triton_here = "H200" in props.name or args.triton_any_gpu
    if not args.triton_here:
        print("# not an H200: no Triton columns (MAMBA2.md's times are the H200's; "
              "--triton-any-gpu shows them anyway); the floor is the H200's too")
    print("# library %s; %d runs after %d warm-ups; seed %d; options: %s" % (
        tm.LIBRARY_PATH, args.runs, args.warmup, seed,
        ("none" if args.plain else "D (h), dt_bias, dt_softplus") +
        (", seq_idx with %d sequences per row" % args.seq_idx if args.seq_idx else "")))
    rows = []
    shapes = QUICK_SHAPES if args.quick else SHAPES
    if only:
        # The table's rows for the shapes asked for (all their dtypes), and
        # any other shape asked for in bf16 (no Triton time recorded for it).
        listed = {tuple(s[:6]) for s in shapes}
        shapes = [s for s in shapes if tuple(s[:6]) in only] + [
            o + ("bf16", "bf16") for o in dict.fromkeys(only) if o not in listed]
    for shape in shapes:
        try:
            row = bench_shape(shape, args, gen)
        except torch.cuda.OutOfMemoryError as e:  # noqa: PERF203
            b, L, h, n, g, Q, dts, dtdts = shape
            row = dict(b=b, L=L, h=h, n=n, g=g, Q=Q, dtype=dts, dt_dtype=dtdts, check="ERROR OOM: %s" % e)
        rows.append(row)
        print("b=%d L=%d h=%d n=%d g=%d Q=%d %s/dt %s: cumsum %s state %s out %s = kernels %s ms; forward %s ms; "
              "call %s ms (host %s ms); %s TFLOP/s %s GB/s; floor %s ms (%s%%); vs Triton kernels %sx "
              "forward %sx call %sx; %s" % (
                  row["b"], row["L"], row["h"], row["n"], row["g"], row["Q"], row["dtype"], row["dt_dtype"],
                  fmt(row.get("cumsum_ms")), fmt(row.get("state_ms")), fmt(row.get("out_ms")),
                  fmt(row.get("kernels_ms")), fmt(row.get("forward_ms")), fmt(row.get("call_ms")), fmt(row.get("host_ms")),
                  fmt(row.get("tflops"), 1), fmt(row.get("gbs"), 0), fmt(row.get("floor_ms")),
                  fmt(row.get("pct_floor"), 1), fmt(row.get("speedup_kernels"), 2),
                  fmt(row.get("speedup_forward"), 2),
                  fmt(row.get("speedup_call"), 2), row["check"]), flush=True)
        torch.cuda.empty_cache()

    print()
    print("| " + " | ".join(title for _, title in COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        cells = []
        for key, _ in COLUMNS:
            v = row.get(key)
            digits = 1 if key in ("tflops", "pct_floor") else 0 if key == "gbs" else \
                2 if key.startswith("speedup") else 3
            cells.append(fmt(v, digits))
        print("| " + " | ".join(cells) + " |")
    print()
    print("Triton/tessel > 1: tessel is faster. floor = max(FLOPs / 790 TFLOP/s, bytes / 4.3 TB/s);"
          " % of floor = floor / kernels.")

    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=[k for k, _ in COLUMNS])
            w.writeheader()
            for row in rows:
                w.writerow({k: row.get(k, "") for k, _ in COLUMNS})
        print("wrote", args.csv)
    if any(r["check"] != "ok" for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
