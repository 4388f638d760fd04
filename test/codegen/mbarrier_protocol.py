#!/usr/bin/env python3
"""Checks the mbarrier protocol of a warp-specialised kernel in the LLVM
dialect that --convert-tilegpu-to-llvm writes (tesselc --dump-dir, stage
`7-convert-tilegpu-to-llvm`), without a GPU.

    mbarrier_protocol.py [--self-test] [--specialised-only] FILE...

The producer warpgroup's code is what lies between `nvvm.setmaxregister
decrease` and `increase`, the consumers' what follows; before them, thread 0
initialises the mbarriers. Every mbarrier operation addresses
@tessel_mbar[first] or @tessel_mbar[first + stage] (a ring's buffer, `stage`
an SSA value). Per mbarrier `first`, its uses must be one of:
  full:     the producer arrives with expect_tx (its TMA copies), the
            consumers wait; initialised with 1 arrival;
  empty:    the consumers arrive (one thread per warp), the producer waits;
            initialised with one arrival per consumer warp;
  own:      the consumers arrive with expect_tx and wait (a ring they fill
            themselves), or commit tcgen05 MMAs to it and wait; initialised
            with 1 arrival.
And the rings pair up the same way on both sides: each producer copy into
buffer `stage` of a full ring comes after its wait on buffer `stage` (the
same SSA value) of an empty ring, and each consumer release of buffer `stage`
of an empty ring after its wait on buffer `stage` of a full ring; the empty
ring the producer waits on before filling a full ring must be the one the
consumers release after reading it.

--self-test also corrupts each file in ways a lowering bug could (a release
of the wrong ring, a wrong arrival count, an expect_tx on the wrong side) and
fails unless every corruption is reported: the check itself can fail.

--specialised-only skips (and names) the files without a producer
warpgroup; otherwise such a file fails.

Exit status 0 when every file passes.
"""

import re
import sys

DEF = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)? = (.*)$")
CONST = re.compile(r"^arith\.constant (-?\d+) : i(?:32|64)$")
ADDRESSOF = re.compile(r"^llvm\.mlir\.addressof @tessel_mbar\b")
GEP = re.compile(r"^llvm\.getelementptr (%[\w.$-]+)\[(%[\w.$-]+)\]")
ADDI = re.compile(r"^arith\.addi (%[\w.$-]+), (%[\w.$-]+) : i32$")
OP = re.compile(r"^\s*nvvm\.(?:mbarrier\.)?(init|try_wait\.parity|arrive\.expect_tx|arrive|tcgen05\.commit) (%[\w.$-]+)(?:, (%[\w.$-]+))?")
NAMED_BARRIER = re.compile(r"nvvm\.barrier id = %[\w.$-]+ number_of_threads = (%[\w.$-]+)")
REQNTID = re.compile(r"nvvm\.reqntid = array<i32: (\d+)")


class Scopes:
    """SSA names by region nesting: MLIR's printer reuses names in sibling
    regions, so a use resolves to the innermost enclosing definition."""

    def __init__(self):
        self.stack = [{}]

    def define(self, name, lineno, text):
        self.stack[-1][name] = (lineno, text)

    def lookup(self, name):
        for scope in reversed(self.stack):
            if name in scope:
                return scope[name]
        return None

    def brace(self, line):
        body = line.strip()
        leading = len(body) - len(body.lstrip("}"))
        for _ in range(leading):
            if len(self.stack) > 1:
                self.stack.pop()
        net = body.count("{") - body.count("}") + leading
        for _ in range(max(net, 0)):
            self.stack.append({})
        for _ in range(max(-net, 0)):
            if len(self.stack) > 1:
                self.stack.pop()


def constant(scopes, name):
    d = scopes.lookup(name)
    if not d:
        return None
    m = CONST.match(d[1])
    return int(m.group(1)) if m else None


def mbarrier_of(scopes, address):
    """(first, stage definition or None) of an mbarrier address, or None."""
    d = scopes.lookup(address)
    if not d:
        return None
    m = GEP.match(d[1])
    if not m:
        return None
    base = scopes.lookup(m.group(1))
    if not base or not ADDRESSOF.match(base[1]):
        return None
    index = m.group(2)
    c = constant(scopes, index)
    if c is not None:
        return c, None
    d = scopes.lookup(index)
    m = ADDI.match(d[1]) if d else None
    if not m:
        return None
    for first, stage in ((m.group(1), m.group(2)), (m.group(2), m.group(1))):
        c = constant(scopes, first)
        if c is not None:
            s = scopes.lookup(stage)
            return c, (s[0] if s else stage)
    return None


def parse(lines):
    """The kernel's mbarrier operations: (lineno, role, kind, first, stage,
    count), and the consumers' threads (named barrier), or None."""
    scopes = Scopes()
    role = "setup"
    ops = []
    consumers = None
    problems = []
    for lineno, line in enumerate(lines, 1):
        if "nvvm.setmaxregister" in line:
            role = "producer" if "decrease" in line else "consumer"
        m = OP.match(line)
        if m:
            kind, address, arg = m.groups()
            where = mbarrier_of(scopes, address)
            if where is None:
                problems.append("line %d: cannot tell which mbarrier %s addresses" % (lineno, address))
            else:
                count = constant(scopes, arg) if kind == "init" and arg else None
                ops.append((lineno, role, kind, where[0], where[1], count))
        # The consumers: every thread but the producer warpgroup's 128 (the
        # consumers' named barrier, where they have one, counts the same).
        m = REQNTID.search(line)
        if m:
            consumers = int(m.group(1)) - 128
        m = NAMED_BARRIER.search(line)
        if m and constant(scopes, m.group(1)) != consumers:
            problems.append("line %d: a named barrier of %s threads, the consumers are %s"
                            % (lineno, constant(scopes, m.group(1)), consumers))
        d = DEF.match(line)
        if d:
            scopes.define(d.group(1), lineno, d.group(2).strip())
        scopes.brace(line)
    return ops, consumers, problems


def check(lines):
    ops, consumers, problems = parse(lines)
    if not any(role == "producer" for _, role, _, _, _, _ in ops):
        return problems + ["no producer warpgroup (nvvm.setmaxregister decrease) using mbarriers"]
    init = {}
    for lineno, role, kind, first, _, count in ops:
        if kind == "init":
            if role != "setup":
                problems.append("line %d: mbarrier %d initialised after the roles split" % (lineno, first))
            if first in init:
                problems.append("line %d: mbarrier %d initialised twice" % (lineno, first))
            init[first] = count
    uses = {}
    for lineno, role, kind, first, stage, _ in ops:
        if kind == "init":
            continue
        if first not in init:
            problems.append("line %d: mbarrier %d used, never initialised" % (lineno, first))
        if role == "setup":
            continue  # (a first copy before the roles split: setup)
        uses.setdefault(first, set()).add((role, kind))
    warps = consumers // 32 if consumers else None
    kinds = {}
    for first, u in sorted(uses.items()):
        if u <= {("producer", "arrive.expect_tx"), ("consumer", "try_wait.parity")} and \
                ("producer", "arrive.expect_tx") in u and ("consumer", "try_wait.parity") in u:
            kinds[first], want = "full", 1
        elif u == {("consumer", "arrive"), ("producer", "try_wait.parity")}:
            kinds[first], want = "empty", warps
        elif u <= {("consumer", "arrive.expect_tx"), ("consumer", "tcgen05.commit"),
                   ("consumer", "try_wait.parity")} and ("consumer", "try_wait.parity") in u \
                and len(u) == 2:
            kinds[first], want = "own", 1
        else:
            problems.append("mbarrier %d: uses %s fit no protocol (full, empty, own ring)"
                            % (first, sorted("%s %s" % x for x in u)))
            continue
        # The ring's buffers: from `first` up to the next mbarrier used as a
        # first (or the last one initialised).
        later = [f for f in uses if f > first] + [max(init) + 1 if init else first + 1]
        for i in range(first, min(later)):
            if want is not None and init.get(i) != want:
                problems.append("mbarrier %d (%s ring %d): initialised with %s arrivals, expected %d"
                                % (i, kinds[first], first, init.get(i), want))
    # Pairing: per side, the last wait on each stage value before the arrive
    # on the same stage value.
    pairs = {"producer": {}, "consumer": {}}
    last_wait = {"producer": {}, "consumer": {}}
    for lineno, role, kind, first, stage, _ in ops:
        if role not in pairs or stage is None:
            continue
        if kind == "try_wait.parity":
            last_wait[role][stage] = first
        elif (role, kind) in (("producer", "arrive.expect_tx"), ("consumer", "arrive")):
            waited = last_wait[role].get(stage)
            if role == "producer" and kinds.get(first) == "full":
                if waited is None or kinds.get(waited) != "empty":
                    problems.append("line %d: the producer fills full ring %d's buffer without "
                                    "waiting for an empty ring's same buffer" % (lineno, first))
                else:
                    pairs[role].setdefault(first, set()).add(waited)
            if role == "consumer" and kinds.get(first) == "empty":
                if waited is None or kinds.get(waited) != "full":
                    problems.append("line %d: the consumers release empty ring %d's buffer "
                                    "without having waited for a full ring's same buffer"
                                    % (lineno, first))
                else:
                    pairs[role].setdefault(waited, set()).add(first)
    for full in sorted(set(pairs["producer"]) | set(pairs["consumer"])):
        p, c = pairs["producer"].get(full, set()), pairs["consumer"].get(full, set())
        if p != c or len(p) != 1:
            problems.append("full ring %d: the producer waits on empty ring(s) %s, the consumers "
                            "release %s" % (full, sorted(p), sorted(c)))
    return problems


def corruptions(lines):
    """Copies of `lines` with one plausible lowering bug each."""
    text = "\n".join(lines)
    ops, consumers, _ = parse(lines)
    out = []
    # A release of the wrong ring: a consumer arrive addressed through
    # another empty ring's first mbarrier (its index constant replaced).
    firsts = sorted({first for _, role, kind, first, _, _ in ops if role == "consumer" and kind == "arrive"})
    inits = sorted({first for _, _, kind, first, _, _ in ops if kind == "init"})
    for lineno, role, kind, first, stage, _ in ops:
        if role == "consumer" and kind == "arrive" and stage is not None:
            # another empty ring's mbarrier where there is one, else any other
            other = [f for f in firsts if f != first] + [f for f in inits if f != first and f not in firsts]
            if other:
                bad = list(lines)
                addr = OP.match(bad[lineno - 1]).group(2)
                bad.insert(lineno - 1, "        %%wrong_first = arith.constant %d : i32" % other[0])
                bad.insert(lineno, "        %%wrong_index = arith.addi %%wrong_first, %%wrong_stage : i32")
                bad.insert(lineno + 1, "        %wrong_address = llvm.getelementptr %wrong_base[%wrong_index] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64")
                bad.insert(lineno - 1, "        %wrong_base = llvm.mlir.addressof @tessel_mbar : !llvm.ptr<3>")
                # the stage: the one the original address used
                d = None
                scopes = Scopes()
                for i, l in enumerate(lines[:lineno - 1], 1):
                    dm = DEF.match(l)
                    if dm:
                        scopes.define(dm.group(1), i, dm.group(2).strip())
                    scopes.brace(l)
                g = GEP.match(scopes.lookup(addr)[1])
                a = ADDI.match(scopes.lookup(g.group(2))[1])
                stage_name = a.group(2) if constant(scopes, a.group(1)) is not None else a.group(1)
                bad = [l.replace("%wrong_stage", stage_name) for l in bad]
                j = bad.index(lines[lineno - 1])
                bad[j] = bad[j].replace(addr, "%wrong_address", 1)
                out.append(("a consumer release of mbarrier %d instead of %d" % (other[0], first), bad))
                break
    # A wrong arrival count on an empty ring's mbarrier.
    for lineno, role, kind, first, stage, count in reversed(ops):
        if kind == "init" and count and count > 1:
            bad = list(lines)
            bad.insert(lineno - 1, "      %wrong_count = arith.constant 1 : i32")
            m = OP.match(bad[lineno])
            bad[lineno] = bad[lineno].replace(m.group(3), "%wrong_count")
            out.append(("mbarrier %d initialised with 1 arrival" % first, bad))
            break
    # The consumers' wait on a full ring turned into an expect_tx arrive.
    for lineno, role, kind, first, stage, _ in ops:
        if role == "consumer" and kind == "try_wait.parity" and stage is not None:
            bad = list(lines)
            m = OP.match(bad[lineno - 1])
            bad[lineno - 1] = re.sub(r"nvvm\.mbarrier\.try_wait\.parity (%[\w.$-]+), .*",
                                     r"nvvm.mbarrier.arrive.expect_tx \1, %c0_i32 : !llvm.ptr<3>, i32",
                                     bad[lineno - 1])
            out.append(("a consumer arrive.expect_tx instead of its wait", bad))
            break
    return out


def main(argv):
    self_test = "--self-test" in argv
    specialised_only = "--specialised-only" in argv
    files = [a for a in argv if a not in ("--self-test", "--specialised-only")]
    if not files:
        print(__doc__)
        return 2
    failed = False
    for path in files:
        lines = open(path).read().splitlines()
        if specialised_only and not any("nvvm.setmaxregister" in l for l in lines):
            print("%s: skipped, not warp-specialised" % path)
            continue
        problems = check(lines)
        for p in problems:
            print("%s: %s" % (path, p))
        failed |= bool(problems)
        ops, consumers, _ = parse(lines)
        rings = sum(1 for _, role, kind, _, stage, _ in ops if kind == "arrive.expect_tx" and stage is not None)
        print("%s: %s (%d mbarrier operations, %d ring copies)"
              % (path, "ok" if not problems else "FAILED", len(ops), rings))
        if self_test and not problems:
            cases = corruptions(lines)
            if len(cases) < 3:
                print("%s: self-test: only %d corruptions apply" % (path, len(cases)))
                failed = True
            for what, bad in cases:
                found = check(bad)
                print("%s: self-test: %s: %s" % (path, what, "caught" if found else "MISSED"))
                failed |= not found
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
