#!/usr/bin/env python3
"""Checks the mbarrier protocol of a kernel in the LLVM dialect that
--convert-tilegpu-to-llvm writes (tesselc --dump-dir, stage
`7-convert-tilegpu-to-llvm`), without a GPU.

    mbarrier_protocol.py [--self-test] [--specialised-only | --skip-unused] FILE...

Thread 0 initialises the mbarriers at the start. Every mbarrier operation
addresses @tessel_mbar[first] or @tessel_mbar[first + stage] (a ring's
buffer, `stage` an SSA value). In every kernel:
  - a copy's arrive.expect_tx and a tcgen05.commit run in a one-thread
    branch (scf.if on tid == constant);
  - no other thread touches an mbarrier before the setup's CTA barrier (a
    barrier in the kernel's top-level block after fence.mbarrier_init; with
    multicast copies the cluster's barrier, nvvm.cluster.wait);
  - every mbarrier used was initialised, once.
In a kernel without a producer warpgroup every mbarrier is a copy's (or a
commit's): one arriving op, waited for, initialised with 1 arrival.
In a warp-specialised kernel the producer warpgroup's code is what lies
between `nvvm.setmaxregister decrease` and `increase`, the consumers' what
follows. Per mbarrier `first`, its uses must be one of:
  full:     the producer arrives with expect_tx (its TMA copies), the
            consumers wait; initialised with 1 arrival;
  empty:    the consumers arrive (lane 0 of each warp), the producer waits;
            initialised with one arrival per consumer warp (reqntid less
            the producer's 128 threads);
  own:      the consumers arrive with expect_tx and wait (a ring they fill
            themselves), or commit tcgen05 MMAs to it and wait; initialised
            with 1 arrival.
And the rings pair up the same way on both sides: each producer copy into
buffer `stage` of a full ring comes after its wait on buffer `stage` (the
same SSA value) of an empty ring, and each consumer release of buffer `stage`
of an empty ring after its wait on buffer `stage` of a full ring; the empty
ring the producer waits on before filling a full ring must be the one the
consumers release after reading it.

A multicast copy (into every CTA of a cluster) must have the cluster's
barrier as the nearest barrier before it.

--self-test also corrupts each file in ways a lowering bug could (a release
of the wrong ring, wrong arrival counts, an arrive instead of a wait, a copy
or commit issued by every thread, a release from every lane, the cluster's
barriers turned into CTA barriers) and fails unless
every corruption is reported: the check itself can fail.

--specialised-only skips (and names) the files without a producer
warpgroup; --skip-unused those without an mbarrier operation. Otherwise such
a file fails.

Exit status 0 when every file passes.
"""

import collections
import re
import sys

# An mbarrier operation: its line, the side that runs it (setup, producer,
# consumer; all in a kernel without a producer), what it does, the mbarrier
# (`first`, and the definition and SSA name of the ring's buffer index, or
# None), the
# arrival count it initialises, whether it runs in a one-thread branch, in a
# one-lane-per-warp branch (or a one-thread one), and whether the setup's CTA
# barrier comes before it.
Op = collections.namedtuple("Op", "lineno role kind first stage stage_name count single lane after")

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
        self.opened = [None]  # per region, the line (0-based) that opened it

    def define(self, name, lineno, text):
        self.stack[-1][name] = (lineno, text)

    def lookup(self, name):
        for scope in reversed(self.stack):
            if name in scope:
                return scope[name]
        return None

    def brace(self, line, index=None):
        """Opens and closes the regions `line` (line `index`) does."""
        body = line.strip()
        leading = len(body) - len(body.lstrip("}"))
        net = body.count("{") - body.count("}") + leading
        for _ in range(leading + max(-net, 0)):
            if len(self.stack) > 1:
                self.stack.pop()
                self.opened.pop()
        for _ in range(max(net, 0)):
            self.stack.append({})
            self.opened.append(index)


def constant(scopes, name):
    d = scopes.lookup(name)
    if not d:
        return None
    m = CONST.match(d[1])
    return int(m.group(1)) if m else None


def mbarrier_of(scopes, address):
    """(first, stage definition, stage name) of an mbarrier address (the
    stage's None for a single mbarrier), or None."""
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
        return c, None, None
    d = scopes.lookup(index)
    m = ADDI.match(d[1]) if d else None
    if not m:
        return None
    for first, stage in ((m.group(1), m.group(2)), (m.group(2), m.group(1))):
        c = constant(scopes, first)
        if c is not None:
            s = scopes.lookup(stage)
            return c, (s[0] if s else stage), stage
    return None


def underlying(scopes, name):
    """The definition of `name`, through the opaque copies the lowering
    makes of the thread index and lane per loop iteration (an empty inline
    asm "=r,0"), or None."""
    for _ in range(8):
        d = scopes.lookup(name)
        if not d:
            return None
        m = re.match(r'^llvm\.inline_asm has_side_effects "", "=r,0" (%[\w.$-]+)', d[1])
        if not m:
            return d[1]
        name = m.group(1)
    return None


def from_tid(scopes, name):
    """Whether `name` is the thread index."""
    d = underlying(scopes, name)
    return bool(d) and d.startswith("nvvm.read.ptx.sreg.tid.x")


def from_lane(scopes, name):
    """Whether `name` is the lane: tid & 31, or %laneid."""
    d = underlying(scopes, name)
    if not d:
        return False
    if d.startswith("nvvm.read.ptx.sreg.laneid"):
        return True
    m = re.match(r"^arith\.andi (%[\w.$-]+), (%[\w.$-]+) : i32$", d)
    return bool(m) and any(from_tid(scopes, x) and constant(scopes, y) == 31
                           for x, y in (m.groups(), m.groups()[::-1]))


def equality(scopes, cond):
    """(a, b) of an scf.if condition `a == b` (i32), or None."""
    d = scopes.lookup(cond)
    m = re.match(r"^arith\.cmpi eq, (%[\w.$-]+), (%[\w.$-]+) : i32$", d[1]) if d else None
    return m.groups() if m else None


def single_thread(scopes, cond):
    """Whether an scf.if condition holds in one thread: tid == constant."""
    e = equality(scopes, cond)
    return bool(e) and any(from_tid(scopes, x) and constant(scopes, y) is not None
                           for x, y in (e, e[::-1]))


def single_lane(scopes, cond):
    """Whether an scf.if condition holds in one lane per warp: lane == 0."""
    e = equality(scopes, cond)
    return bool(e) and any(from_lane(scopes, x) and constant(scopes, y) == 0
                           for x, y in (e, e[::-1]))


def parse(lines):
    """The kernel's mbarrier operations: (lineno, role, kind, first, stage,
    count, single: issued in one thread's branch, after: after the setup's
    CTA barrier), the consumers' threads (reqntid less the producer
    warpgroup: meaningful where there is one) or None, and what could not
    be read."""
    scopes = Scopes()
    role = "setup"
    ops = []
    consumers = None
    problems = []
    func_depth = None
    inits_done = False
    setup_barrier = False
    last_barrier = None
    for lineno, line in enumerate(lines, 1):
        if "nvvm.setmaxregister" in line:
            role = "producer" if "decrease" in line else "consumer"
        if line.lstrip().startswith("llvm.func "):
            func_depth = len(scopes.stack) + 1
        if "nvvm.fence.mbarrier.init" in line:
            inits_done = True
        # The setup's barrier: a CTA barrier in the kernel's top-level block
        # after thread 0 initialised the mbarriers (or, with multicast
        # copies, the cluster's barrier: its wait).
        if inits_done and len(scopes.stack) == func_depth and \
                re.match(r"^\s*nvvm\.(barrier0|barrier id|cluster\.wait)", line):
            setup_barrier = True
        m = OP.match(line)
        if m:
            kind, address, arg = m.groups()
            where = mbarrier_of(scopes, address)
            if where is None:
                problems.append("line %d: cannot tell which mbarrier %s addresses" % (lineno, address))
            else:
                count = constant(scopes, arg) if kind == "init" and arg else None
                single = any(scope.get("#single") for scope in scopes.stack)
                lane = single or any(scope.get("#lane") for scope in scopes.stack)
                ops.append(Op(lineno, role, kind, where[0], where[1], where[2], count, single,
                              lane, setup_barrier))
        # The consumers: every thread but the producer warpgroup's 128 (the
        # consumers' named barrier, where they have one, counts the same).
        m = REQNTID.search(line)
        if m:
            consumers = int(m.group(1)) - 128
        m = NAMED_BARRIER.search(line)
        if m and role == "consumer" and constant(scopes, m.group(1)) != consumers:
            problems.append("line %d: a named barrier of %s threads, the consumers are %s"
                            % (lineno, constant(scopes, m.group(1)), consumers))
        # Multicast copies (into every CTA of the cluster): the nearest
        # barrier before each, in program order, must be the cluster's (a
        # CTA barrier alone lets it refill a buffer another CTA still reads,
        # or complete bytes on an mbarrier another CTA has not initialised).
        if re.match(r"^\s*nvvm\.(barrier0|barrier id)", line):
            last_barrier = "CTA"
        elif re.match(r"^\s*nvvm\.cluster\.wait", line):
            last_barrier = "cluster"
        if "multicast_mask" in line and last_barrier != "cluster":
            problems.append("line %d: a multicast copy whose nearest barrier before it is %s"
                            % (lineno, "a CTA barrier" if last_barrier else "none"))
        d = DEF.match(line)
        if d:
            scopes.define(d.group(1), lineno, d.group(2).strip())
        m = re.match(r"^\s*scf\.if (%[\w.$-]+) \{$", line)
        single = bool(m) and single_thread(scopes, m.group(1))
        lane = bool(m) and single_lane(scopes, m.group(1))
        scopes.brace(line, lineno - 1)
        if single:
            scopes.stack[-1]["#single"] = True
        if lane:
            scopes.stack[-1]["#lane"] = True
    return ops, consumers, problems


def read(lines):
    """parse(), with the operations of a kernel without a producer
    warpgroup on the side `all` (every thread runs the same code: one
    thread issues the copies, every thread waits)."""
    ops, consumers, problems = parse(lines)
    specialised = any(o.role == "producer" for o in ops)
    if not specialised:
        ops = [o._replace(role="all") if o.kind != "init" else o for o in ops]
    return ops, consumers, problems, specialised


def check(lines):
    """(problems, operations, whether warp-specialised)."""
    ops, consumers, problems, specialised = read(lines)
    if not any(o.kind != "init" for o in ops):
        return problems + ["no mbarrier is used"], ops, specialised
    init = {}
    for o in ops:
        if o.kind == "init":
            if o.role != "setup":
                problems.append("line %d: mbarrier %d initialised after the roles split" % (o.lineno, o.first))
            if o.first in init:
                problems.append("line %d: mbarrier %d initialised twice" % (o.lineno, o.first))
            init[o.first] = o.count
    uses = {}
    for o in ops:
        if o.kind == "init":
            continue
        if o.first not in init:
            problems.append("line %d: mbarrier %d used, never initialised" % (o.lineno, o.first))
        # One thread arrives expecting a copy's bytes, or commits MMAs.
        if o.kind in ("arrive.expect_tx", "tcgen05.commit") and not o.single:
            problems.append("line %d: %s on mbarrier %d outside a one-thread branch (tid == c)"
                            % (o.lineno, o.kind, o.first))
        # The consumers release a buffer once per warp: from lane 0.
        if o.role == "consumer" and o.kind == "arrive" and not o.lane:
            problems.append("line %d: a consumer arrive on mbarrier %d outside a one-lane branch "
                            "(lane == 0)" % (o.lineno, o.first))
        # Only the thread that initialised the mbarriers may use them before
        # the setup's CTA barrier.
        if not o.after and not o.single:
            problems.append("line %d: %s on mbarrier %d before the setup's CTA barrier"
                            % (o.lineno, o.kind, o.first))
        if o.role == "setup":
            continue  # (thread 0's copies before the roles split)
        uses.setdefault(o.first, set()).add((o.role, o.kind))
    warps = consumers // 32 if consumers else None
    kinds = {}
    for first, u in sorted(uses.items()):
        arrivers = {("all", "arrive.expect_tx"), ("all", "tcgen05.commit")}
        if specialised and u <= {("producer", "arrive.expect_tx"), ("consumer", "try_wait.parity")} and \
                ("producer", "arrive.expect_tx") in u and ("consumer", "try_wait.parity") in u:
            kinds[first], want = "full", 1
        elif specialised and u == {("consumer", "arrive"), ("producer", "try_wait.parity")}:
            kinds[first], want = "empty", warps
        elif specialised and u <= {("consumer", "arrive.expect_tx"), ("consumer", "tcgen05.commit"),
                                   ("consumer", "try_wait.parity")} \
                and ("consumer", "try_wait.parity") in u and len(u) == 2:
            kinds[first], want = "own", 1
        elif not specialised and ("all", "try_wait.parity") in u and len(u & arrivers) == 1 \
                and len(u) == 2:
            kinds[first], want = "copy", 1
        else:
            problems.append("mbarrier %d: uses %s fit no protocol (%s)"
                            % (first, sorted("%s %s" % x for x in u),
                               "full, empty, own ring" if specialised else "copies waited for"))
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
    for o in ops:
        role, kind, first, stage = o.role, o.kind, o.first, o.stage
        if role not in pairs or stage is None:
            continue
        if kind == "try_wait.parity":
            last_wait[role][stage] = first
        elif (role, kind) in (("producer", "arrive.expect_tx"), ("consumer", "arrive")):
            waited = last_wait[role].get(stage)
            if role == "producer" and kinds.get(first) == "full":
                if waited is None or kinds.get(waited) != "empty":
                    problems.append("line %d: the producer fills full ring %d's buffer without "
                                    "waiting for an empty ring's same buffer" % (o.lineno, first))
                else:
                    pairs[role].setdefault(first, set()).add(waited)
            if role == "consumer" and kinds.get(first) == "empty":
                if waited is None or kinds.get(waited) != "full":
                    problems.append("line %d: the consumers release empty ring %d's buffer "
                                    "without having waited for a full ring's same buffer"
                                    % (o.lineno, first))
                else:
                    pairs[role].setdefault(waited, set()).add(first)
    for full in sorted(set(pairs["producer"]) | set(pairs["consumer"])):
        p, c = pairs["producer"].get(full, set()), pairs["consumer"].get(full, set())
        if p != c or len(p) != 1:
            problems.append("full ring %d: the producer waits on empty ring(s) %s, the consumers "
                            "release %s" % (full, sorted(p), sorted(c)))
    return problems, ops, specialised


def unguarded(lines, lineno):
    """`lines` with the innermost scf.if around line `lineno` taken always."""
    scopes = Scopes()
    for i, line in enumerate(lines[:lineno - 1]):
        scopes.brace(line, i)
    for i in reversed(scopes.opened):
        m = re.match(r"^(\s*)scf\.if (%[\w.$-]+) \{$", lines[i]) if i is not None else None
        if m:
            return lines[:i] + ["%s%%everyone = arith.constant true" % m.group(1),
                                "%sscf.if %%everyone {" % m.group(1)] + lines[i + 1:]
    raise ValueError("no scf.if around line %d" % lineno)


def corruptions(lines):
    """Copies of `lines` with one plausible lowering bug each."""
    ops, consumers, _, specialised = read(lines)
    out = []
    # A release of the wrong ring: a consumer arrive addressed through
    # another empty ring's first mbarrier (or any other one).
    firsts = sorted({o.first for o in ops if o.role == "consumer" and o.kind == "arrive"})
    inits = sorted({o.first for o in ops if o.kind == "init"})
    for o in ops:
        if o.role == "consumer" and o.kind == "arrive" and o.stage is not None:
            other = [f for f in firsts if f != o.first] + \
                [f for f in inits if f != o.first and f not in firsts]
            if not other:
                break
            line = lines[o.lineno - 1]
            addr = OP.match(line).group(2)
            bad = lines[:o.lineno - 1] + [
                "        %wrong_base = llvm.mlir.addressof @tessel_mbar : !llvm.ptr<3>",
                "        %%wrong_first = arith.constant %d : i32" % other[0],
                "        %%wrong_index = arith.addi %%wrong_first, %s : i32" % o.stage_name,
                "        %wrong_address = llvm.getelementptr %wrong_base[%wrong_index] : "
                "(!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64",
                line.replace(addr, "%wrong_address", 1)] + lines[o.lineno:]
            out.append(("a consumer release of mbarrier %d instead of %d" % (other[0], o.first), bad))
            break
    # A wrong arrival count: one per consumer warp where one arrival is
    # expected, one where several are.
    done = set()
    for o in reversed(ops):
        if o.kind == "init" and o.count and (o.count > 1) not in done:
            done.add(o.count > 1)
            wrong = 1 if o.count > 1 else 4
            line = lines[o.lineno - 1]
            bad = lines[:o.lineno - 1] + [
                "      %%wrong_count = arith.constant %d : i32" % wrong,
                line.replace(OP.match(line).group(3), "%wrong_count")] + lines[o.lineno:]
            out.append(("mbarrier %d initialised with %d arrival(s)" % (o.first, wrong), bad))
    # A wait turned into an expect_tx arrive.
    for o in ops:
        if o.kind == "try_wait.parity" and o.role in ("consumer", "all"):
            bad = list(lines)
            bad[o.lineno - 1] = re.sub(r"nvvm\.mbarrier\.try_wait\.parity (%[\w.$-]+), .*",
                                       r"nvvm.mbarrier.arrive.expect_tx \1, %c0_i32 : !llvm.ptr<3>, i32",
                                       bad[o.lineno - 1])
            out.append(("an arrive.expect_tx instead of a wait", bad))
            break
    # A copy's arrive (or a tcgen05 commit) issued by every thread, and a
    # release from every lane: the branch around it made unconditional.
    for o in ops:
        if o.kind in ("arrive.expect_tx", "tcgen05.commit") and o.single and o.role != "setup":
            what = "a copy's arrive.expect_tx" if o.kind == "arrive.expect_tx" else "a tcgen05.commit"
            out.append(("%s in every thread" % what, unguarded(lines, o.lineno)))
            break
    for o in ops:
        if o.role == "consumer" and o.kind == "arrive" and o.lane:
            out.append(("a consumer release from every lane", unguarded(lines, o.lineno)))
            break
    # Multicast copies behind CTA barriers only: the cluster's barriers
    # turned into CTA barriers.
    if any("multicast_mask" in l for l in lines):
        bad = [re.sub(r"nvvm\.cluster\.wait.*", "nvvm.barrier0", l) for l in lines
               if not re.match(r"^\s*nvvm\.cluster\.arrive", l)]
        out.append(("multicast copies behind CTA barriers", bad))
    return out


def main(argv):
    self_test = "--self-test" in argv
    specialised_only = "--specialised-only" in argv
    skip_unused = "--skip-unused" in argv
    files = [a for a in argv if a not in ("--self-test", "--specialised-only", "--skip-unused")]
    if not files:
        print(__doc__)
        return 2
    failed = False
    for path in files:
        lines = open(path).read().splitlines()
        if specialised_only and not any("nvvm.setmaxregister" in l for l in lines):
            print("%s: skipped, not warp-specialised" % path)
            continue
        if skip_unused and not any(OP.match(l) for l in lines):
            print("%s: skipped, no mbarrier" % path)
            continue
        problems, ops, specialised = check(lines)
        for p in problems:
            print("%s: %s" % (path, p))
        failed |= bool(problems)
        rings = sum(1 for o in ops if o.kind == "arrive.expect_tx" and o.stage is not None)
        print("%s: %s (%s, %d mbarrier operations, %d ring copies)"
              % (path, "ok" if not problems else "FAILED",
                 "warp-specialised" if specialised else "one issuing thread", len(ops), rings))
        if self_test and not problems:
            cases = corruptions(lines)
            if len(cases) < (5 if specialised else 3):
                print("%s: self-test: only %d corruptions apply" % (path, len(cases)))
                failed = True
            for what, bad in cases:
                found = check(bad)[0]
                print("%s: self-test: %s: %s" % (path, what, "caught" if found else "MISSED"))
                failed |= not found
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
