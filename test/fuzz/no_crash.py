#!/usr/bin/env python3
"""No-crash fuzzer for tessel-opt.

For every .mlir file under --root, runs tessel-opt on the file and on many
corrupted variants of it (truncations, byte deletions, duplications and
substitutions, swapped and replaced tokens; all from a fixed seed so a failure
reproduces). Bad input must end in a diagnostic, never in a crash: the script
fails when tessel-opt dies by a signal, hangs, or prints what LLVM prints when
it aborts.

The variants of one file are joined with `// -----` and run by one
`-split-input-file` process (one process per variant would take minutes); when
a batch crashes, its variants are rerun one by one to name the culprit.
"""

import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import zlib

CRASH_MARKERS = ("LLVM ERROR", "Stack dump", "Assertion", "PLEASE submit a bug report")
SPLIT = "// -----"

# Crashes of upstream MLIR (LLVM 22.1 as Debian ships it) that tessel cannot fix:
# variants that match are skipped, and counted in the summary. Drop an entry when
# the LLVM in use has the fix (plain `mlir-opt` shows whether it still crashes).
KNOWN_UPSTREAM_CRASHES = [
    # `array<index ...>`: the dense-array parser asks an index type for its bit
    # width. llvm/llvm-project#179045, fixed by #179075 (after 22.1).
    (re.compile(r"array\s*<\s*index\b"), "llvm/llvm-project#179045"),
]

# Each batch is run once per pipeline: parsing and verification alone, the
# folders and canonicalization patterns, the generic printer, and the tile
# passes that run on any verified module (tile-route-mma-operands,
# tilegpu-persistent-grid, tilegpu-insert-tma, tilegpu-pipeline), again
# after tilegpu-assign-layouts
# (the pipeline's register loads need layouts), and the lowering to LLVM
# after the passes it needs (it crashed on a body-less kernel and on a view
# carried by a loop, both from unmodified test files).
PIPELINES = [[], ["-canonicalize"], ["--mlir-print-op-generic", "-cse"],
             ["--tile-route-mma-operands", "--tilegpu-persistent-grid",
              "--tilegpu-insert-tma", "--tilegpu-pipeline"],
             ["--tilegpu-assign-layouts", "--tilegpu-persistent-grid",
              "--tilegpu-insert-tma", "--tilegpu-pipeline"],
             ["--tilegpu-assign-layouts", "--tilegpu-insert-tma",
              "--tilegpu-pipeline", "--convert-tilegpu-to-llvm"]]

# Tokens that tend to sit on the edge of what a verifier checks.
INTERESTING = [
    "-1", "0", "1", "3", "11", "256", "4294967296", "9223372036854775807",
    "-9223372036854775808", "?", "i1", "i8", "i64", "i128", "index", "f16", "bf16",
    "f64", "f8E4M3FN", "ui32", "si32", "tensor<*xf32>", "tensor<?xf32>",
    "tensor<f32>", "tensor<0xf32>", "tensor<3xf32>", "tensor<4294967296x4294967296xf32>",
    "!tile.view<f32>", "!tile.view<?xf32>", "!tile.view<0xi8, align = 256>",
    "#tile<padding nan>", "#tile<precision tf32>", "#tile<reduce_kind min>",
    "#tile.hints<{}>", "array<i64>", "array<i64: -1>", "array<i64: 1, 0>",
    "[]", "[0, 0]", "{}", "unit", "true", "\"x\"", "dense<1.0>",
    "dense<[1, 2]>", "%arg0", "tile.", "sum", "max", "->", ":", ",", "(", ")",
]

TOKEN_RE = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'          # string literal
    r"|[%@^#!][\w.$\-]+"            # SSA values, symbols, blocks, aliases
    r"|[A-Za-z_][\w.]*"             # keywords, op names, types
    r"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"  # numbers
    r"|->|[<>\[\](){},:=?*+]"       # punctuation
)


def strip_comments(text):
    """Drops full-line comments (RUN/CHECK lines) but keeps split markers."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//") and not stripped.startswith(SPLIT):
            continue
        lines.append(line)
    return "\n".join(lines) + "\n"


def variants(text, rng, scale=1.0):
    """Yields (description, corrupted text) pairs; `scale` shrinks the counts."""
    n = len(text)
    if n == 0:
        return

    def count(k):
        return max(1, round(k * scale))

    # Truncations at ~20 points spread over the file.
    cuts = count(20)
    points = sorted({int(n * (i + 1) / (cuts + 1)) for i in range(cuts)}
                    | {rng.randrange(n) for _ in range(count(4))})
    for p in points:
        yield f"truncated at byte {p}", text[:p]
    for _ in range(count(8)):
        p = rng.randrange(n)
        k = rng.randint(1, 4)
        yield f"deleted {k} byte(s) at {p}", text[:p] + text[p + k:]
    for _ in range(count(8)):
        p = rng.randrange(n)
        k = rng.randint(1, 12)
        yield f"duplicated {k} byte(s) at {p}", text[:p + k] + text[p:]
    for _ in range(count(8)):
        p = rng.randrange(n)
        c = rng.choice("0123456789?x<>[]{}(),:=-%#!\"ifbtensorview_ \n")
        yield f"byte {p} replaced by {c!r}", text[:p] + c + text[p + 1:]
    tokens = list(TOKEN_RE.finditer(text))
    if len(tokens) >= 2:
        for _ in range(count(8)):
            a, b = sorted(rng.sample(range(len(tokens)), 2))
            ta, tb = tokens[a], tokens[b]
            swapped = (text[:ta.start()] + tb.group() + text[ta.end():tb.start()]
                       + ta.group() + text[tb.end():])
            yield f"tokens {ta.group()!r}@{ta.start()} and {tb.group()!r}@{tb.start()} swapped", swapped
        for _ in range(count(12)):
            t = rng.choice(tokens)
            new = rng.choice(INTERESTING)
            yield (f"token {t.group()!r}@{t.start()} replaced by {new!r}",
                   text[:t.start()] + new + text[t.end():])
        for _ in range(count(4)):
            t, u = rng.sample(tokens, 2)
            yield (f"token {t.group()!r}@{t.start()} replaced by {u.group()!r}",
                   text[:t.start()] + u.group() + text[t.end():])


def run_opt(opt, text, args, timeout):
    """Runs tessel-opt on `text`; returns a failure reason or None."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        proc = subprocess.run([opt, path, "-split-input-file", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    finally:
        os.unlink(path)
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode < 0:
        return f"killed by signal {-proc.returncode}\n{out[-4000:]}"
    for marker in CRASH_MARKERS:
        if marker in out:
            return f"output contains {marker!r}\n{out[-4000:]}"
    return None


def check_file(opt, root, path, timeout, seed, scale):
    """Returns a list of failure reports for one file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        original = f.read()
    rel = os.path.relpath(path, root)
    # Seeded by the file's name: a failure reproduces whatever else changed.
    rng = random.Random(zlib.crc32(rel.encode()) ^ seed)
    text = strip_comments(original)
    cases = [("original", text)] + list(variants(text, rng, scale))
    known = [c for c in cases if any(r.search(c[1]) for r, _ in KNOWN_UPSTREAM_CRASHES)]
    cases = [c for c in cases if c not in known]
    batch = ("\n" + SPLIT + "\n").join(body for _, body in cases)
    failures = []
    for args in PIPELINES:
        if run_opt(opt, batch, args, timeout) is None:
            continue
        # Something in the batch crashed: find which variant(s).
        for desc, body in cases:
            reason = run_opt(opt, body, args, timeout)
            if reason:
                failures.append(
                    f"=== {rel} (seed {seed}): {desc}; tessel-opt {' '.join(args)} -split-input-file: {reason}\n"
                    f"--- input ---\n{body}\n--- end of input ---")
                break
        else:
            failures.append(f"=== {rel}: a batch of variants crashed with "
                            f"{' '.join(args)} but no single variant does")
    return failures, len(known)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tessel-opt", required=True, help="path of tessel-opt")
    parser.add_argument("--root", required=True, help="directory searched for .mlir files")
    parser.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per tessel-opt run")
    parser.add_argument("--budget", type=float, default=55.0,
                        help="seconds after which no new file is started (a safety net: "
                             "--max-variants keeps the normal run well below it)")
    parser.add_argument("--max-variants", type=int, default=5000,
                        help="about how many variants to run in all; fewer per file as the "
                             "test tree grows")
    parser.add_argument("--seed", type=int, default=0,
                        help="mixed into every file's seed; vary it to fuzz deeper by hand")
    opts = parser.parse_args()

    files = sorted(
        os.path.join(dirpath, name)
        for dirpath, _, names in os.walk(opts.root)
        for name in names if name.endswith(".mlir"))
    if not files:
        print(f"no .mlir files under {opts.root}", file=sys.stderr)
        return 1

    # About 75 variants per file at scale 1.
    scale = min(1.0, opts.max_variants / (75.0 * len(files)))
    start = time.monotonic()
    failures, skipped, known = [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        def guarded(path):
            if time.monotonic() - start > opts.budget:
                return None
            return check_file(opts.tessel_opt, opts.root, path, opts.timeout, opts.seed, scale)
        for path, result in zip(files, pool.map(guarded, files)):
            if result is None:
                skipped += 1
            else:
                failures.extend(result[0])
                known += result[1]

    elapsed = time.monotonic() - start
    print(f"checked {len(files) - skipped} of {len(files)} files in {elapsed:.1f} s"
          + (f" ({skipped} skipped: time budget)" if skipped else "")
          + (f"; {known} variant(s) skipped: known upstream crashes" if known else ""))
    if failures:
        print("\n".join(failures))
        print(f"FAIL: {len(failures)} crash(es)")
        return 1
    print("no crashes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
