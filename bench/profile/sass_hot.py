#!/usr/bin/env python3
"""The SASS lines of a kernel where most warp stall samples fall, from ncu's
per-SASS-line CSV (bench/profile/stalls.sh writes it), each with its share of
the samples, its executions, its reasons (the largest per-reason columns) and
the instructions just before it (a stall is charged to the instruction that
waits, so the cause is usually a few lines up).

    python3 bench/profile/sass_hot.py OUT/compute_out.sass.csv [TOP]
"""
import csv
import sys


def main(path, top=30):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    # ncu's CSV: a title row, then the header.
    h = 0 if "Source" in rows[0] else 1
    header = rows[h]
    src = header.index("Source")
    executed = header.index("Instructions Executed")
    total = header.index("Warp Stall Sampling (All Samples)")
    reasons = [i for i, name in enumerate(header)
               if name.startswith("stall_") or (name.startswith("Warp Stall Sampling")
                                               and i != total and "Not-issued" not in name)]
    body = rows[h + 1:]

    def num(r, i):
        try:
            return float(r[i])
        except (ValueError, IndexError):
            return 0.0

    all_samples = sum(num(r, total) for r in body) or 1.0
    all_instr = sum(num(r, executed) for r in body) or 1.0
    print(f"{len(body)} SASS lines, {all_samples:.0f} samples, {all_instr:.0f} warp instructions")
    if reasons:
        print("per-reason columns:", ", ".join(header[i] for i in reasons[:40]))
    order = sorted(range(len(body)), key=lambda k: -num(body[k], total))[:top]
    for k in order:
        r = body[k]
        why = sorted(((num(r, i), header[i]) for i in reasons), reverse=True)[:3]
        why = " ".join(f"{n.replace('stall_', '')}:{v / max(num(r, total), 1):.0%}"
                       for v, n in why if v > 0)
        print(f"\n{num(r, total) / all_samples:6.2%} x{num(r, executed):>9.0f} "
              f"line {k:5d}: {r[src].strip()}   [{why}]")
        for j in range(max(0, k - 4), k):
            print(f"{'':27}{j:5d}: {body[j][src].strip()}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30)
