#!/usr/bin/env python3
"""Where a kernel's executed instructions go, from ncu's per-SASS-line CSV
(bench/profile/stalls.sh writes it): consecutive SASS lines with the same
execution count (one basic block, or blocks run as often) form a run; each
run of at least 0.4% of the instructions is printed with its share of the
instructions and of the stall samples, and its most frequent opcodes.

    python3 bench/profile/sass_runs.py OUT/compute_out.sass.csv
"""
import collections
import csv
import re
import signal
import sys


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[1]
    src, executed = header.index("Source"), header.index("Instructions Executed")
    sampled = header.index("Warp Stall Sampling (All Samples)")
    runs = []  # [count, lines, first line, opcodes, samples]
    # (Rows without counts are skipped; "line" is the CSV's line number.)
    for k, r in enumerate(rows[2:], start=3):
        try:
            n, s = int(r[executed]), int(r[sampled])
        except (ValueError, IndexError):
            continue
        op = re.sub(r"^@!?U?P\w+\s+", "", r[src].strip()).split(" ")[0].split(".")[0]
        if runs and runs[-1][0] == n:
            runs[-1][1] += 1
            runs[-1][3][op] += 1
            runs[-1][4] += s
        else:
            runs.append([n, 1, k, collections.Counter({op: 1}), s])
    total = sum(n * lines for n, lines, *_ in runs)
    samples = sum(r[4] for r in runs) or 1
    print("%s: %d warp instructions executed" % (path, total))
    for n, lines, first, ops, s in runs:
        if n * lines < 0.004 * total:
            continue
        print("line %5d: %4d instr x %9d = %5.1f%% instrs, %5.1f%% samples | %s" % (
            first, lines, n, 100 * n * lines / total, 100 * s / samples,
            " ".join("%s:%d" % x for x in ops.most_common(7))))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # (piped into head)
    for p in sys.argv[1:]:
        main(p)
