#!/usr/bin/env python3
"""tessel-tune: times every compiled point of a kernel's search space on the
GPU and writes the tuned table that `tesselc --tuned` compiles in.

    python3 tools/tessel-tune/tessel-tune.py \\
        --library build/tune/libtessel_mamba2_tune.so \\
        --out kernels/mamba2/tuned/h200.tsv [--shape b,L,h,n,g,Q ...]

The points come from the library (`ninja tessel_mamba2_tune`: tesselc
--sweep compiled them all in, with no tuned table, so that each kernel's
choice is its default): for each shape, one timed forward call says which
kernels ran, their variants, shape keys and the tunables compiled for each
variant on this device. Then, kernel by kernel and point by point (the other
kernels at their defaults):
  1. the point is checked: outputs poisoned with NaN, the whole forward run
     with that point forced. Small shapes (b L <= 4096): y and the final
     states against a float64 reference of the whole problem (MAMBA2.md's
     tolerances). Larger ones: y on a prefix of the sequence for a few heads
     against float64, and all of y and of the final states against the
     default configuration's outputs (the same tolerances), the default
     itself checked against float64 first. A point that fails is reported
     and never chosen;
  2. then timed: warm-up calls, then the median over --runs calls of that
     kernel's device time (CUDA events around each kernel);
  3. the fastest checked point wins; a point other than the default must
     beat the default by --margin (default 2%) to be chosen (run-to-run noise
     is about 1%), so the table never records noise as a choice.
Every kernel's choice for every shape becomes a row (a default included: it
tells the nearest-shape dispatch what to launch near that shape).
"""

import argparse
import datetime
import os
import statistics
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# MAMBA2.md's shapes (b, L, h, n, g, Q), bf16 x and dt, the call a Mamba-2
# layer makes (D, dt_bias, softplus).
DEFAULT_SHAPES = [
    (1, 1024, 24, 128, 1, 256),
    (1, 4096, 80, 128, 1, 256),
    (1, 16384, 80, 128, 1, 256),
    (1, 65536, 80, 64, 1, 256),
    (1, 65536, 80, 128, 1, 256),
    (1, 65536, 80, 256, 1, 256),
    (1, 65536, 80, 128, 8, 256),
    (1, 65536, 80, 128, 1, 128),
    (4, 16384, 80, 128, 1, 256),
    (4, 65536, 80, 128, 1, 256),
    (4, 65536, 8, 256, 1, 128),
]

# Index of each kernel's time in tessel_mamba2_last_kernel_times.
KERNEL_TIME = {"chunk_cumsum": 0, "chunk_state": 1, "fwd_pass_state": 1, "state_passing": 2,
               "chunk_cb": 3, "compute_out": 3}


def log(msg):
    print(msg, flush=True)


class Mamba2Problem:
    """The Mamba-2 forward of libtessel_mamba2 at one shape: inputs, the
    float64 reference (computed once), a checked run, a timed run."""

    def __init__(self, shape, seed):
        import torch
        from mamba2 import make_inputs  # bench/mamba2.py
        from test_mamba2 import FINAL_TOLERANCE, reference, rel_l2, y_tolerance
        import tessel_mamba2 as tm
        self.torch, self.tm = torch, tm
        self.rel_l2 = rel_l2
        b, L, h, n, g, Q = shape
        self.shape, self.Q = shape, Q
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        self.kw = make_inputs(b, L, h, n, g, torch.bfloat16, torch.bfloat16, False, gen)
        self.y = torch.empty(b, L, h, 64, dtype=torch.bfloat16, device="cuda")
        self.fs = torch.empty(b, h, 64, n, dtype=torch.float32, device="cuda")
        self.y_tol, self.f_tol = y_tolerance(torch.bfloat16), FINAL_TOLERANCE
        kw = self.kw
        opts = {k: kw[k] for k in ("D", "dt_bias", "dt_softplus") if k in kw}
        self.y_default = self.f_default = None  # see check_default
        if b * L <= 4096:  # the whole problem
            self.y_ref, self.f_ref = reference(kw["x"], kw["dt"], kw["A"], kw["B"], kw["C"], **opts)
            self.y_view = lambda y: y
        else:  # a prefix of row 0 for up to 8 heads (y_t depends only on tokens <= t)
            Lp = min(L, 1024)
            heads = sorted({round(i * (h - 1) / 7) for i in range(8)}) if h > 1 else [0]
            self.y_ref, _ = reference(kw["x"][:1, :Lp], kw["dt"][:1, :Lp], kw["A"], kw["B"][:1, :Lp],
                                      kw["C"][:1, :Lp], heads=heads, **opts)
            self.f_ref = None
            self.y_view = lambda y: y[:1, :Lp][:, :, heads]

    def check_default(self):
        """Checks the default configurations against float64 (check) and, for
        shapes too large for a whole float64 reference, keeps their full
        outputs: the other points are compared with them too."""
        why = self.check()
        if why is None and self.f_ref is None:
            self.y_default, self.f_default = self.y.clone(), self.fs.clone()
        return why

    def run(self):
        self.tm.mamba_chunk_scan_combined(chunk_size=self.Q, return_final_states=True, out=self.y,
                                          final_states_out=self.fs, **self.kw)

    def check(self):
        """None if the outputs are right, else why not."""
        torch = self.torch
        self.y.fill_(float("nan"))
        self.fs.fill_(float("nan"))
        self.run()
        torch.cuda.synchronize()
        for name, t in (("y", self.y), ("final_states", self.fs)):
            bad = (~torch.isfinite(t)).sum().item()
            if bad:
                return "%s: %d non-finite" % (name, bad)
        err = self.rel_l2(self.y_view(self.y), self.y_ref)
        if err > self.y_tol:
            return "y rel L2 %.2e > %.0e" % (err, self.y_tol)
        if self.f_ref is not None:
            err = self.rel_l2(self.fs, self.f_ref)
            if err > self.f_tol:
                return "final_states rel L2 %.2e > %.0e" % (err, self.f_tol)
        if self.y_default is not None:
            err = self.rel_l2(self.y, self.y_default)
            if err > self.y_tol:
                return "y rel L2 %.2e > %.0e against the default's" % (err, self.y_tol)
            err = self.rel_l2(self.fs, self.f_default)
            if err > self.f_tol:
                return "final_states rel L2 %.2e > %.0e against the default's" % (err, self.f_tol)
        return None

    def time(self, kernel, warmup, runs):
        """Median device ms of `kernel` over `runs` timed calls."""
        tm = self.tm
        tm.set_timing(True)
        try:
            for _ in range(warmup):
                self.run()
            tm.last_kernel_times()
            times = []
            for _ in range(runs):
                self.run()
                times.append(tm.last_kernel_times()[KERNEL_TIME[kernel]])
        finally:
            tm.set_timing(False)
        return statistics.median(times)

    def launches(self):
        tm = self.tm
        tm.set_timing(True)
        try:
            self.run()
            tm.last_kernel_times()
            return tm.last_launches()
        finally:
            tm.set_timing(False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", required=True, help="the tuning build (libtessel_mamba2_tune.so)")
    ap.add_argument("--out", required=True, help="the tuned table to write (TSV)")
    ap.add_argument("--shape", action="append", default=[], metavar="b,L,h,n,g,Q",
                    help="a shape to tune (repeatable; default: MAMBA2.md's table)")
    ap.add_argument("--kernels", default="", help="comma-separated kernels to tune (default: every one launched)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--margin", type=float, default=0.02,
                    help="how much faster than the default another point must be to be chosen")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--commit", default=None, help="the commit to name in the table (default: git's HEAD)")
    args = ap.parse_args()

    os.environ["TESSEL_MAMBA2_LIBRARY"] = os.path.abspath(args.library)
    for d in (os.path.join(REPO, "kernels", "mamba2", "python"), os.path.join(REPO, "test", "gpu"),
              os.path.join(REPO, "bench")):
        sys.path.insert(0, d)
    import torch
    import tessel_mamba2 as tm
    from mamba2 import git_commit  # bench/mamba2.py

    shapes = [tuple(int(v) for v in s.split(",")) for s in args.shape] or DEFAULT_SHAPES
    only = set(k for k in args.kernels.split(",") if k)
    device = torch.cuda.get_device_name()
    major, minor = torch.cuda.get_device_capability()
    target = "sm_%d%da" % (major, minor)  # the arch-specific target the library ran
    log("tessel-tune: %s, %d shapes, library %s" % (device, len(shapes), args.library))
    rows, failures = [], []
    started = time.time()
    for si, shape in enumerate(shapes):
        problem = Mamba2Problem(shape, args.seed + si)
        if (why := problem.check_default()) is not None:
            sys.exit("tessel-tune: the default configurations fail at %s: %s" % (shape, why))
        for kernel, variant, key, default, compiled in problem.launches():
            if only and kernel not in only:
                continue
            if any(r[0] == kernel and r[2] == variant and r[3] == key for r in rows):
                log("shape %d/%d %s: %s [%s] at %s: tuned already (an earlier shape has its key)" % (
                    si + 1, len(shapes), shape, kernel, variant, key))
                continue
            log("shape %d/%d %s: %s [%s] at %s: %d points" % (si + 1, len(shapes), shape, kernel, variant, key,
                                                             len(compiled)))
            times = {}
            for pi, point in enumerate(compiled):
                tm.set_tunables(kernel, point)
                try:
                    why = problem.check()
                    if why is None:
                        times[point] = problem.time(kernel, args.warmup, args.runs)
                except tm.TesselMamba2Error as e:
                    why = "%s: %s" % (type(e).__name__, e)
                finally:
                    tm.set_tunables(kernel, None)
                if why is not None:
                    failures.append((shape, kernel, point, why))
                    log("  [%d/%d] %s: FAILED: %s" % (pi + 1, len(compiled), point, why))
                else:
                    log("  [%d/%d] %s: %.4f ms%s" % (pi + 1, len(compiled), point, times[point],
                                                    "  (default)" if point == default else ""))
            if not times:
                continue
            best = min(times, key=times.get)
            base = times.get(default)
            if base is not None and times[best] > base * (1 - args.margin):
                best = default
            log("  -> %s: %.4f ms (default %s ms)" % (best, times[best], "%.4f" % base if base else "-"))
            rows.append((kernel, target, variant, key, best, times[best], base))
        torch.cuda.empty_cache()
    commit = args.commit or git_commit()
    with open(args.out, "w") as f:
        f.write("# tessel tuned table for libtessel_mamba2 on the %s (%s).\n" % (device, target))
        f.write("# Written by tools/tessel-tune/tessel-tune.py on %s, %d shapes, commit %s:\n" % (
            datetime.date.today().isoformat(), len(shapes), commit))
        f.write("#   python3 tools/tessel-tune/tessel-tune.py %s\n" % " ".join(sys.argv[1:]))
        f.write("# Per kernel and shape: the fastest checked point (median of %d timed calls after %d\n"
                "# warm-up), the default unless another beat it by %.0f%%. Compiled in by tesselc --tuned.\n"
                % (args.runs, args.warmup, args.margin * 100))
        f.write("# kernel\ttarget\tvariant\tshape\ttunables\tms\tdefault_ms\n")
        for kernel, target, variant, key, best, ms, base in rows:
            f.write("%s\t%s\t%s\t%s\t%s\t%.4f\t%s\n" % (kernel, target, variant, key, best, ms,
                                                        "%.4f" % base if base else "-"))
    log("tessel-tune: %d rows -> %s in %.0f s; %d point(s) failed their check%s" % (
        len(rows), args.out, time.time() - started, len(failures), ":" if failures else ""))
    for shape, kernel, point, why in failures:
        log("  %s %s [%s]: %s" % (shape, kernel, point, why))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
