//===- EmitLoops.cpp - loops and branches ---------------------------------===//
//
// scf.for and scf.if: the rings of loads a loop issues ahead
// (tilegpu-schedule-loads), register prefetches, the parameters refreshed
// per iteration, the bookkeeping of barriers across paths, and ifElse.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

#include "llvm/ADT/MapVector.h"

namespace tessel::codegen::emitter {

using namespace mlir;

FailureOr<SmallVector<KernelEmitter::Prefetch>>
KernelEmitter::planPrefetch(scf::ForOp loop, SmallVector<Operation *> &slice,
                            SmallVector<WsRing *> &wsHere) {
  SmallVector<Prefetch> plan;
  Block *body = loop.getBody();
  DenseSet<Operation *> inSlice;
  // The rings go after the buffers of the loops this one is nested in
  // (tilegpu-schedule-loads planned them within the same budget).
  int64_t top = dynamicTop;
  for (Operation &op : body->without_terminator()) {
    auto load = dyn_cast<tile::LoadOp>(op);
    auto distance =
        load ? load->getAttrOfType<IntegerAttr>(kDistanceAttr) : IntegerAttr();
    // (Loads into registers: planRegisterPrefetch.)
    if (!distance || !stagedLoad(load))
      continue;
    if (std::string problem = pipelineProblem(load); !problem.empty())
      return load->emitError() << "'" << kDistanceAttr
                               << "' on a load the loop cannot issue ahead: "
                               << problem;
    if (distance.getInt() < 1 || distance.getInt() > kMaxDistance)
      return load->emitError()
             << "'" << kDistanceAttr << "' must be in [1, " << kMaxDistance
             << "], got " << distance.getInt();
    // Staged as its mma will read it (every use the same way). A tile the
    // threads cannot copy asynchronously (a view without unit stride, say)
    // is loaded where its mma stands, as without a schedule.
    std::optional<StageLayout> layout = loadStage(load);
    if (!layout || (!layout->tma() && !asyncCopyGroup(load, *layout)))
      continue;
    if (warpSpecialized)
      if (auto it = wsRingOf.find(load); it != wsRingOf.end()) {
        wsHere.push_back(&wsRings[it->second]);
        continue;
      }
    SmallVector<Operation *> ops;
    (void)laterIterationSlice(loop, load, ops); // (pipelineProblem checked)
    int64_t bytes = ringBufferBytes(load, *layout);
    int64_t ring = (distance.getInt() + 1) * bytes;
    int64_t at = alignFor(top, *layout);
    // A load into registers through shared memory whose ring does not fit
    // (above a producer warpgroup's rings, which tilegpu-schedule-loads does
    // not count) stays an ordinary global load (emitSharedRegisterLoad).
    if (at + ring > kRingBudgetBytes &&
        (loadsThroughShared(load) || loadsIntoComputedOperand(load)))
      continue;
    if (at + ring > kRingBudgetBytes)
      return load->emitError()
             << "the ring of " << distance.getInt() + 1 << " buffers of "
             << bytes << " bytes does not fit in the "
             << std::max<int64_t>(kRingBudgetBytes - at, 0)
             << " bytes of shared memory left for rings";
    top = at + ring;
    plan.push_back({load, *layout, distance.getInt(), bytes, 0});
    inSlice.insert(ops.begin(), ops.end());
  }
  for (Operation &op : body->without_terminator())
    if (inSlice.contains(&op))
      slice.push_back(&op);
  return plan;
}

/// Where the body waits for a ring load's copy: at the load, read into
/// registers (fragments, or through shared memory), else at its first mma.
static Operation *ringWaitSite(tile::LoadOp load) {
  if (loadsIntoFragments(load) || loadsThroughShared(load) ||
      loadsIntoComputedOperand(load))
    return load;
  Operation *first = nullptr;
  auto note = [&](Operation *user) {
    if (!first || user->isBeforeInBlock(first))
      first = user;
  };
  for (Operation *user : load->getUsers()) {
    if (isa<tile::PermuteOp>(user))
      for (Operation *mma : user->getUsers())
        note(mma);
    else
      note(user);
  }
  return first;
}

/// Nothing between two waits that could run before the second copy lands:
/// loads (a copy's wait, or global loads issued), transposes that fold into
/// their mma, scalar index arithmetic.
static bool waitsAdjacent(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isa<tile::LoadOp, tile::PermuteOp>(op) && !isScalarIndexOp(op))
      return false;
  return true;
}

SmallVector<unsigned>
KernelEmitter::ringStageGroups(ArrayRef<Prefetch> plan, bool share) {
  // The TMA copies in the order of their waits; each starts a group unless
  // its wait follows the previous one's with nothing in between
  // (waitsAdjacent) and it is issued as far ahead. One wait for copies used
  // apart would hold the first use back until the last copy lands:
  // compute_out's loops, with one per distance, were up to 4% slower on the
  // H200 (bench/results/2026-12-04-ring-barriers.md).
  SmallVector<unsigned> groupOf(plan.size());
  SmallVector<std::pair<Operation *, unsigned>> sites;
  for (auto [i, p] : llvm::enumerate(plan)) {
    groupOf[i] = i;
    // (A load without a use in the body keeps its own mbarriers.)
    if (Operation *site = p.layout.tma() ? ringWaitSite(p.load) : nullptr)
      sites.push_back({site, unsigned(i)});
  }
  if (!share)
    return groupOf;
  llvm::sort(sites, [](auto &x, auto &y) {
    return x.first == y.first ? x.second < y.second
                              : x.first->isBeforeInBlock(y.first);
  });
  for (size_t k = 1; k < sites.size(); ++k) {
    auto [site, i] = sites[k];
    auto [before, j] = sites[k - 1];
    if (plan[i].distance == plan[j].distance &&
        (site == before || waitsAdjacent(before, site)))
      groupOf[i] = groupOf[j];
  }
  return groupOf;
}

/// A load in a loop body whose tile lands in registers waits for global
/// memory where it stands. Issued d iterations ahead instead (d sets of
/// its registers carried by the loop), the latency overlaps d iterations'
/// work. Taken: the loads into registers tilegpu-schedule-loads marked
/// (`tilegpu.distance` = d in [1, kMaxRegisterDistance]: directly in the body, of views the loop does
/// not write, whose indices can be evaluated for the next iteration, within
/// the kernel's `prefetch_registers` hint); a mark the rules do not allow
/// is an error. 16-bit tiles travel as the loaded 32-bit words (see
/// loadRegisters). Opt-in: the registers held across an iteration can cost
/// more than the latency saves (compute_out spills with it); fwd_pass_state
/// is 20-25% faster with it on the H200
/// (bench/results/2026-11-29-mamba2-states-bf16.md).
FailureOr<SmallVector<tile::LoadOp>>
KernelEmitter::planRegisterPrefetch(scf::ForOp loop,
                                    SmallVector<Operation *> &slice) {
  SmallVector<tile::LoadOp> plan;
  DenseSet<Operation *> inSlice(slice.begin(), slice.end());
  IntegerAttr hinted = kernelHint("prefetch_registers");
  int64_t budget = hinted ? hinted.getInt() : 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<tile::LoadOp>(op);
    auto distance =
        load ? load->getAttrOfType<IntegerAttr>(kDistanceAttr) : IntegerAttr();
    if (!distance || stagedLoad(load))
      continue;
    if (std::string problem = registerPipelineProblem(load); !problem.empty())
      return load->emitError() << "'" << kDistanceAttr
                               << "' on a load the loop cannot carry ahead: "
                               << problem;
    if (distance.getInt() < 1 || distance.getInt() > kMaxRegisterDistance)
      return load->emitError()
             << "'" << kDistanceAttr << "' on a load into registers must be "
             << "in [1, " << kMaxRegisterDistance
             << "] (the loop carries a set of its registers per iteration), "
                "got "
             << distance.getInt();
    budget -= carriedWords(load) * distance.getInt();
    if (budget < 0)
      return load->emitError()
             << "the loads carried ahead take more registers per thread "
                "than the kernel's prefetch_registers ("
             << (hinted ? hinted.getInt() : 0) << ")";
    SmallVector<Operation *> ops;
    (void)laterIterationSlice(loop, load, ops); // (checked above)
    plan.push_back(load);
    inSlice.insert(ops.begin(), ops.end());
  }
  slice.clear();
  for (Operation &op : loop.getBody()->without_terminator())
    if (inSlice.contains(&op))
      slice.push_back(&op);
  return plan;
}

Value KernelEmitter::ringBuffer(int64_t offset, int64_t bytes, Value stage) {
  dynamicUsed = true;
  Value base = LLVM::AddressOfOp::create(b, loc, dynamicShared);
  Value at = arith::AddIOp::create(
      b, loc, i32(offset), arith::MulIOp::create(b, loc, stage, i32(bytes)));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{at});
}

/// `value` through `mov` in a side-effecting asm: the same value, which LLVM
/// can neither hoist nor merge with another read.
static Value opaque(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  bool pointer = isa<LLVM::LLVMPointerType>(type);
  Value v = pointer ? LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), value)
                    : value;
  Type t = v.getType();
  // (Kernel scalars are i32, i64 or f32; any other type goes as it is.)
  if (!t.isF32() && !t.isInteger(64) && !t.isInteger(32))
    return value;
  const char *cons = t.isF32() ? "=f,0" : t.isInteger(64) ? "=l,0" : "=r,0";
  Value out = LLVM::InlineAsmOp::create(
                  b, loc, t, ValueRange{v}, "", cons,
                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                  LLVM::tailcallkind::TailCallKind::None,
                  LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
  return pointer ? LLVM::IntToPtrOp::create(b, loc, type, out).getResult()
                 : out;
}

KernelEmitter::ParameterState KernelEmitter::refreshParameters() {
  ParameterState saved;
  saved.tid = tid;
  saved.lane = lane;
  saved.warp = warp;
  saved.views = views;
  saved.mapParams = mapParams;
  tid = opaque(b, loc, tid);
  lane = arith::AndIOp::create(b, loc, tid, i32(31));
  warp = arith::ShRUIOp::create(b, loc, tid, i32(5));
  // In parameter order (not the maps' order), so that the output does not
  // depend on where values happen to be allocated.
  for (BlockArgument arg : kernel.getArguments()) {
    if (auto it = views.find(arg); it != views.end()) {
      ViewParts &parts = it->second;
      parts.ptr = opaque(b, loc, parts.ptr);
      for (Value &v : parts.sizes)
        v = opaque(b, loc, v);
      for (Value &v : parts.strides)
        v = opaque(b, loc, v);
      continue;
    }
    if (!regs.count(arg))
      continue;
    saved.scalars[arg] = regs[arg];
    regs[arg] = {opaque(b, loc, regs[arg][0])};
  }
  for (Value &m : mapParams)
    m = opaque(b, loc, m);
  return saved;
}

void KernelEmitter::restoreParameterState(const ParameterState &state) {
  tid = state.tid;
  lane = state.lane;
  warp = state.warp;
  views = state.views;
  for (auto &[arg, r] : state.scalars)
    regs[arg] = r;
  mapParams = state.mapParams;
}

/// The mma whose wgmma group a loop may leave running into its next
/// iteration (the kernel hint wgmma_defer_wait): the loop's only mma, on
/// wgmma, directly in its body, accumulating into a loop-carried value that
/// nothing else in the body reads and that it yields as it is (emitFor then
/// checks its operands and the ring budget). With the hint at 1 its A must
/// be read from shared memory by the tensor cores; at 2 it may be in
/// registers too, which then stay live until the next iteration's wait
/// (compute_out spilled 88 bytes at 128 registers). A warp-specialised
/// loop's consumers free their buffers when an iteration ends, so it has
/// none.
tile::MmaOp KernelEmitter::deferredWgmma(scf::ForOp loop) {
  IntegerAttr hint = kernelHint("wgmma_defer_wait");
  if (!hint || hint.getInt() == 0 || warpSpecialized)
    return {};
  // (No nested loop either: its rings would go above the spares, which
  // the budget it was planned in did not count.)
  tile::MmaOp mma;
  bool several = false, nested = false;
  loop.getBody()->walk([&](Operation *o) {
    if (auto m = dyn_cast<tile::MmaOp>(o)) {
      several |= bool(mma);
      mma = m;
    }
    nested |= isa<scf::ForOp>(o);
  });
  if (!mma || several || nested || mma->getBlock() != loop.getBody() ||
      !usesWgmma(mma))
    return {};
  auto acc = dyn_cast<BlockArgument>(mma.getAcc());
  if (!acc || acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0 ||
      !acc.hasOneUse() || !mma.getResult().hasOneUse())
    return {};
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  OpOperand &use = *mma.getResult().getUses().begin();
  if (use.getOwner() != yield ||
      use.getOperandNumber() + 1 != acc.getArgNumber())
    return {};
  return mma;
}

void KernelEmitter::evaluatedAt(scf::ForOp loop, ArrayRef<Operation *> ops,
                                Value iv, function_ref<void()> fn) {
  DenseMap<Value, SmallVector<Value>> saved;
  auto save = [&](Value v) {
    auto it = regs.find(v);
    saved[v] = it == regs.end() ? SmallVector<Value>() : it->second;
  };
  if (loop)
    save(loop.getInductionVar());
  for (Operation *o : ops)
    save(o->getResult(0));
  if (loop)
    regs[loop.getInductionVar()] = {iv};
  for (Operation *o : ops)
    (void)emitOp(*o); // (scalar index ops: cannot fail)
  fn();
  for (auto &[v, r] : saved) {
    if (r.empty())
      regs.erase(v);
    else
      regs[v] = r;
  }
}

std::pair<Value, Value> KernelEmitter::stepFrom(Value iv, Value upper,
                                                Value by) {
  Value next = arith::AddIOp::create(b, loc, iv, by);
  Value ok = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next, upper),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, next, iv));
  return {next, ok};
}

int64_t KernelEmitter::layOutByStage(llvm::MutableArrayRef<Prefetch> plan,
                                     int64_t base) {
  // Each buffer at its alignment within a stage; stages 1024-aligned (the
  // strictest alignment, swizzled tiles').
  int64_t within = 0;
  SmallVector<int64_t> at;
  for (const Prefetch &p : plan) {
    within = alignFor(within, p.layout);
    at.push_back(within);
    within += p.stageBytes;
  }
  int64_t stage = (within + 1023) / 1024 * 1024;
  for (auto [p, w] : llvm::zip(plan, at)) {
    p.offset = base + w;
    p.stride = stage;
  }
  return stage;
}

void KernelEmitter::assignRingMbarriers(llvm::MutableArrayRef<Prefetch> plan,
                                        int64_t spare) {
  // TMA copies whose waits follow one another in the body share one
  // mbarrier per buffer: the thread that issues them arrives once,
  // expecting all their bytes, and the body waits once per iteration, where
  // the first of them is used (ringStageGroups). The kernel hint
  // ring_barrier_per_load gives each load its own.
  IntegerAttr perLoad = kernelHint("ring_barrier_per_load");
  SmallVector<unsigned> groupOf =
      ringStageGroups(plan, /*share=*/!perLoad || !perLoad.getInt());
  DenseMap<unsigned, int64_t> groupMbar;
  for (auto [i, p] : llvm::enumerate(plan)) {
    if (!p.layout.tma())
      continue;
    auto [it, fresh] = groupMbar.try_emplace(groupOf[i], -1);
    if (fresh)
      it->second = ringMbarriers(p.distance + 1 + spare);
    p.mbar = it->second;
  }
}

LogicalResult KernelEmitter::planEarlyLoops(scf::ForOp anchor,
                                            SmallVector<EarlyLoop, 2> &early) {
  // (tilegpu-schedule-loads marked them: a mark on a loop whose anchor is
  // another, or that the rules refuse, is an error.)
  SmallVector<scf::ForOp> marked;
  for (Operation *op = anchor->getNextNode(); op; op = op->getNextNode())
    op->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kPrologueEarlyAttr))
        marked.push_back(loop);
    });
  // The stages lie from the top 1024-aligned (the strictest alignment,
  // swizzled tiles'), each early loop's from there: they lie on different
  // paths (each the first loop after the anchor on its own), so only one
  // prologue is issued.
  int64_t base = (dynamicTop + 1023) / 1024 * 1024, kept = dynamicTop;
  for (scf::ForOp loop : marked) {
    EarlyPrologue where;
    if (!earlyAnchorProblem(loop, &where).empty() || where.anchor != anchor)
      continue; // (another loop's; a mark without one: emitFor)
    if (std::string problem = prologueEarlyProblem(loop); !problem.empty())
      return loop.emitError() << "'" << kPrologueEarlyAttr
                              << "' on a loop whose prologue cannot be "
                                 "issued early: "
                              << problem;
    if (warpSpecialized)
      return loop.emitError() << "'" << kPrologueEarlyAttr
                              << "' in a warp-specialised kernel";
    EarlyLoop e{loop, {}, {}, where.conditions, where.outerSlice};
    SmallVector<WsRing *> wsHere;
    FailureOr<SmallVector<Prefetch>> planned =
        planPrefetch(loop, e.slice, wsHere);
    if (failed(planned))
      return failure();
    e.plan = std::move(*planned);
    FailureOr<SmallVector<tile::LoadOp>> inRegisters =
        planRegisterPrefetch(loop, e.slice);
    if (failed(inRegisters))
      return failure();
    if (!inRegisters->empty() || !wsHere.empty() ||
        llvm::any_of(e.plan, [](const Prefetch &p) { return !p.layout.tma(); }))
      return loop.emitError()
             << "'" << kPrologueEarlyAttr
             << "' on a loop that issues other than TMA copies ahead";
    if (e.plan.empty()) {
      earlyPlans[loop] = e; // (nothing to issue: its loads are copied
      continue;             // where they stand)
    }
    int64_t d = e.plan.front().distance;
    if (llvm::any_of(e.plan,
                     [&](const Prefetch &p) { return p.distance != d; }))
      return loop.emitError() << "'" << kPrologueEarlyAttr
                              << "' on a loop whose loads are issued at "
                                 "different distances";
    // Stage by stage (buffer j of every ring in stage j): the prologue's d
    // stages at the bottom, kept while the anchor runs; the others above
    // them, taken when the loop starts (the anchor's rings are free then).
    int64_t stage = layOutByStage(e.plan, base);
    assignRingMbarriers(e.plan, /*spare=*/0);
    kept = std::max(kept, base + d * stage);
    dynamicBytes = std::max(dynamicBytes, base + d * stage);
    earlyPlans[loop] = e;
    early.push_back(std::move(e));
  }
  dynamicTop = kept;
  return success();
}

void KernelEmitter::emitEarlyPrologue(const EarlyLoop &early) {
  scf::ForOp loop = early.loop;
  // With the scalar index ops after the anchor that the bounds, indices and
  // conditions need evaluated here (and again where they stand).
  evaluatedAt({}, early.outerSlice, {}, [&] {
    Value lb = regs[loop.getLowerBound()][0],
          ub = regs[loop.getUpperBound()][0], step = regs[loop.getStep()][0];
    int64_t d = early.plan.front().distance;
    // Iteration lb + t step into buffer t of each ring (t < d), where it
    // runs and the path leads to the loop.
    Value runs =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
    for (auto [condition, then] : early.conditions) {
      Value c = regs[condition][0];
      if (!then)
        c = arith::XOrIOp::create(b, loc, c,
                                  arith::ConstantIntOp::create(b, loc, 1, 1));
      runs = arith::AndIOp::create(b, loc, runs, c);
    }
    Value iv = lb;
    for (int64_t t = 0; t < d; ++t) {
      if (t > 0) {
        auto [next, ok] = stepFrom(iv, ub, step);
        runs = arith::AndIOp::create(b, loc, runs, ok);
        iv = next;
      }
      ifElse(runs, {}, [&] {
        evaluatedAt(loop, early.slice, iv, [&] {
          llvm::MapVector<int64_t,
                          SmallVector<std::pair<tile::LoadOp, Value>>>
              onto;
          for (const Prefetch &p : early.plan)
            onto[p.mbar].push_back({p.load, prefetchBuffer(p, i32(t))});
          for (auto &[mbar, copies] : onto)
            issueTmaGroup(copies, MbarRef{mbar, i32(t), d + 1});
        });
        return SmallVector<Value>();
      }, [&] { return SmallVector<Value>(); });
    }
  });
}

/// scf.for keeps its shape, carrying the per-thread registers. Loads that
/// only feed mma operands and that tilegpu-schedule-loads issued d
/// iterations ahead (`tilegpu.distance`) are software-pipelined: a ring of
/// d + 1 buffers per load in dynamic shared memory; the copies for the
/// first iterations go out before the loop, and each iteration, after a
/// barrier (everyone is done with the buffer read the iteration before),
/// starts the copy for iteration i + d into that buffer before computing
/// on its own, so that global-memory latency overlaps the work of d
/// iterations. (d + 2 buffers where the loop's wgmma group runs into the
/// next iteration, deferredWgmma: the copy then goes into the buffer read
/// two iterations before.) Loads into registers it marked are issued one
/// iteration ahead into registers the loop carries (see
/// planRegisterPrefetch).
LogicalResult KernelEmitter::emitFor(scf::ForOp op) {
  // The body follows itself: what it accesses counts as accessed at its
  // start, and after the loop.
  noteAccesses(op);
  Value lb = regs[op.getLowerBound()][0], ub = regs[op.getUpperBound()][0],
        step = regs[op.getStep()][0];
  SmallVector<Operation *> slice;
  // Warp-specialised, the producer issues the copies of the loads in
  // `wsHere`; the loop waits for them where they are used and frees their
  // buffers when an iteration ends.
  SmallVector<WsRing *> wsHere;
  // The later loops whose prologue goes out where this one starts
  // (tilegpu.prologue_early): their rings at the bottom, the prologues'
  // stages kept until they start; this loop's rings go above them.
  SmallVector<EarlyLoop, 2> earlyHere;
  if (failed(planEarlyLoops(op, earlyHere)))
    return failure();
  // This loop's, if its prologue went out where its anchor started.
  auto earlyPlan = earlyPlans.find(op);
  const bool early = earlyPlan != earlyPlans.end();
  if (op->hasAttr(kPrologueEarlyAttr) && !early) {
    EarlyPrologue where;
    std::string problem = earlyAnchorProblem(op, &where);
    return op.emitError() << "'" << kPrologueEarlyAttr
                          << "' on a loop whose prologue was not issued "
                             "early: "
                          << (problem.empty() ? "its anchor planned none"
                                              : problem);
  }
  if (early)
    slice = earlyPlan->second.slice;
  FailureOr<SmallVector<Prefetch>> planned =
      early ? FailureOr<SmallVector<Prefetch>>(earlyPlan->second.plan)
            : planPrefetch(op, slice, wsHere);
  if (failed(planned))
    return failure();
  SmallVector<Prefetch> plan = std::move(*planned);
  FailureOr<SmallVector<tile::LoadOp>> registerPlan =
      planRegisterPrefetch(op, slice);
  if (failed(registerPlan))
    return failure();
  SmallVector<tile::LoadOp> preload = std::move(*registerPlan);
  // tilegpu-schedule-loads marked the loop to issue its prologue for the
  // enclosing loop's next iteration as soon as it ends (then the prologue
  // where it starts runs only in the enclosing loop's first iteration).
  scf::ForOp outer;
  SmallVector<Operation *> outerSlice;
  if (op->hasAttr(kPrologueAheadAttr)) {
    if (std::string problem = prologueAheadProblem(op, &outerSlice);
        !problem.empty())
      return op.emitError() << "'" << kPrologueAheadAttr
                            << "' on a loop whose prologue cannot be issued "
                               "ahead: "
                            << problem;
    outer = cast<scf::ForOp>(op->getParentOp());
  }
  // What the loop carries per preloaded load of distance d: d sets (the
  // iterations ahead, the nearest first) of its registers, or its words.
  SmallVector<SmallVector<Type>> preloadSet; // per load, one set's types
  SmallVector<int64_t> preloadDistance;
  for (tile::LoadOp load : preload) {
    int64_t n = numRegisters(load.getType());
    SmallVector<Type> set;
    if (packsIntoWords(load))
      set.append(n / 2, b.getI32Type());
    else
      llvm::append_range(set, flatTypes(load.getType()));
    preloadSet.push_back(set);
    preloadDistance.push_back(
        load->getAttrOfType<IntegerAttr>(kDistanceAttr).getInt());
  }
  // The sets of the preloads issued at distance d, in order, and their
  // types.
  auto preloadsAt = [&](int64_t d) {
    SmallVector<unsigned> at;
    for (unsigned i = 0; i < preload.size(); ++i)
      if (preloadDistance[i] == d)
        at.push_back(i);
    return at;
  };
  auto typesAt = [&](int64_t d) {
    SmallVector<Type> types;
    for (unsigned i : preloadsAt(d))
      llvm::append_range(types, preloadSet[i]);
    return types;
  };
  // `values` (laid out as typesAt(d)) cut into the sets of the preloads at
  // distance d: fn(i, preload i's set).
  auto forEachSet = [&](int64_t d, ArrayRef<Value> values,
                        function_ref<void(unsigned, ArrayRef<Value>)> fn) {
    size_t k = 0;
    for (unsigned i : preloadsAt(d)) {
      size_t n = preloadSet[i].size();
      fn(i, values.slice(k, n));
      k += n;
    }
  };
  int64_t savedTop = dynamicTop;
  bool anyTma = false, anyCpAsync = false;
  // The kernel hint wgmma_defer_wait: the loop's wgmma (deferredWgmma) is
  // waited for in the next iteration, right before the next group's
  // fragments are pinned, so that it runs while the iteration waits for its
  // copies and computes its A. Its operand buffers are then still being read
  // when the next iteration refills the ring: each ring gets a spare buffer,
  // so that iteration k refills the one iteration k - 2 read.
  tile::MmaOp deferred = wsHere.empty() ? deferredWgmma(op) : tile::MmaOp();
  if (deferred) {
    // What the group reads from shared memory must be in this loop's rings
    // or resident (the threads stage anything else before every group, and
    // emitAsyncMma then waits at once: a spare would be wasted), A there too
    // or (hint 2) in registers as emitAsyncMma takes it; and the spares
    // must fit the ring budget tilegpu-schedule-loads planned without them.
    // (The body's transposes are not lowered yet: foldedTranspose tells
    // which fold.)
    auto source = [](Value v) {
      tile::PermuteOp permute = foldedTranspose(v);
      return permute ? permute.getSource() : v;
    };
    auto inShared = [&](Value v) {
      auto load = v.getDefiningOp<tile::LoadOp>();
      return load && !loadsIntoFragments(load) &&
             (residentAt.count(v) ||
              llvm::any_of(plan, [&](const Prefetch &p) {
                return p.load == load;
              }));
    };
    Value a = source(deferred.getA());
    auto aLoad = a.getDefiningOp<tile::LoadOp>();
    bool inRegisters = takesRegisterA(deferred) &&
                       (!aLoad || loadsIntoFragments(aLoad));
    int64_t top = dynamicTop;
    for (const Prefetch &p : plan)
      top = alignFor(top, p.layout) + (p.distance + 2) * p.stageBytes;
    if (!inShared(source(deferred.getB())) ||
        !(inShared(a) ||
          (inRegisters && kernelHint("wgmma_defer_wait").getInt() == 2)) ||
        top > kRingBudgetBytes)
      deferred = {};
  }
  int64_t spare = deferred ? 1 : 0;
  auto ringSize = [&](int64_t d) { return d + 1 + spare; };
  // The distances the loop issues loads at.
  SmallVector<int64_t> distances;
  for (int64_t d : preloadDistance)
    if (!llvm::is_contained(distances, d))
      distances.push_back(d);
  // A loop whose prologue is issued ahead (`outer`) keeps the buffers of
  // that prologue until the enclosing body ends: the copies for its next
  // run land there while the rest of the body runs, and the body's later
  // loops take the shared memory above them. Its rings are then laid out
  // stage by stage where they are all issued as far ahead (buffer j of
  // every ring in stage j), so that the prologue's d stages are the
  // bottom of the rings and the stage above them is free again once the
  // loop ends; otherwise the whole rings stay taken.
  int64_t keptTop = -1;
  if (outer && !plan.empty()) {
    int64_t d = plan.front().distance;
    bool stageMajor = !spare && llvm::all_of(plan, [&](const Prefetch &p) {
      return p.distance == d;
    });
    if (stageMajor) {
      int64_t base = (dynamicTop + 1023) / 1024 * 1024;
      int64_t stage = layOutByStage(plan, base);
      dynamicTop = base + ringSize(d) * stage;
      keptTop = base + d * stage;
    }
  }
  // (A loop whose prologue went out early was laid out, with its
  // mbarriers, where its anchor started.)
  if (!early)
    assignRingMbarriers(plan, spare);
  for (Prefetch &p : plan) {
    anyCpAsync |= !p.layout.tma();
    anyTma |= p.layout.tma();
    if (early)
      dynamicTop = std::max(dynamicTop, p.offset + p.distance * p.stride +
                                            p.stageBytes);
    else if (!p.stride) {
      p.offset = alignFor(dynamicTop, p.layout);
      dynamicTop = p.offset + ringSize(p.distance) * p.stageBytes;
    }
    if (!llvm::is_contained(distances, p.distance))
      distances.push_back(p.distance);
  }
  llvm::sort(distances);
  if (outer && keptTop < 0)
    keptTop = dynamicTop;
  // Whether a ring is filled by multicast copies (every CTA of the cluster
  // then frees its buffers before any refills them).
  const bool multicastRing = llvm::any_of(plan, [&](const Prefetch &p) {
    return multicastLoads.contains(p.load);
  });
  int64_t deepest = distances.empty() ? 0 : distances.back();
  dynamicBytes = std::max(dynamicBytes, dynamicTop);
  // The same for this loop's index slice at iteration `iv`.
  auto atIteration = [&](Value iv, function_ref<void()> fn) {
    evaluatedAt(op, slice, iv, fn);
  };
  // Issues the copies of the planned loads of `distance` for iteration `iv`
  // into buffer `stage` of their rings and the register loads of that
  // distance, whose values it returns (typesAt(distance)).
  auto issueFor = [&](Value iv, Value stage, int64_t distance) {
    SmallVector<Value> values;
    atIteration(iv, [&] {
      // The copies onto each mbarrier, in the plan's order.
      llvm::MapVector<int64_t, SmallVector<std::pair<tile::LoadOp, Value>>>
          onto;
      for (Prefetch &p : plan) {
        if (p.distance != distance)
          continue;
        if (p.mbar < 0)
          issueCopy(p.load, prefetchBuffer(p, stage), p.layout);
        else
          onto[p.mbar].push_back({p.load, prefetchBuffer(p, stage)});
      }
      for (auto &[mbar, copies] : onto)
        issueTmaGroup(copies, MbarRef{mbar, stage, ringSize(distance)},
                      /*multicast=*/true);
      for (unsigned i : preloadsAt(distance))
        llvm::append_range(
            values, loadRegisters(preload[i], packsIntoWords(preload[i])));
    });
    return values;
  };
  auto poison = [&](int64_t d) {
    SmallVector<Value> values;
    for (Type t : typesAt(d))
      values.push_back(LLVM::PoisonOp::create(b, loc, t));
    return values;
  };
  // The prologue for a run of the loop from `lower` to `upper` by `by`,
  // when `guard` holds: the iterations -deepest .. -1 the loop would have
  // run before its first, each issuing iteration v + distance into buffer
  // v + distance of each ring and committing its group, so that the copy
  // of iteration i at distance d is always d groups behind iteration i's
  // own (cp.async.wait_group d waits for it). Returns the preloaded
  // registers of iterations 0 .. d - 1 as the loop carries them.
  auto emitPrologue = [&](Value lower, Value upper, Value by, Value guard) {
    // Per preload, its sets of iterations 0 .. d - 1.
    SmallVector<SmallVector<SmallVector<Value>>> sets;
    for (int64_t d : preloadDistance)
      sets.emplace_back(d);
    // Iteration lower + t * by for t < deepest, and whether it runs.
    SmallVector<Value> target = {lower}, runs = {arith::CmpIOp::create(
                                             b, loc, arith::CmpIPredicate::slt,
                                             lower, upper)};
    if (guard)
      runs[0] = arith::AndIOp::create(b, loc, runs[0], guard);
    for (int64_t t = 1; t < deepest; ++t) {
      auto [next, ok] = stepFrom(target.back(), upper, by);
      runs.push_back(arith::AndIOp::create(b, loc, runs.back(), ok));
      target.push_back(next);
    }
    for (int64_t v = -deepest; v < 0; ++v) {
      for (int64_t d : distances) {
        int64_t t = v + d;
        if (t < 0)
          continue;
        SmallVector<Value> values = ifElse(
            runs[t], typesAt(d), [&] { return issueFor(target[t], i32(t), d); },
            [&] { return poison(d); });
        forEachSet(d, values, [&](unsigned i, ArrayRef<Value> set) {
          sets[i][t].assign(set.begin(), set.end());
        });
      }
      if (anyCpAsync)
        NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
    SmallVector<Value> preloaded;
    for (auto &perLoad : sets)
      for (auto &set : perLoad)
        llvm::append_range(preloaded, set);
    return preloaded;
  };
  SmallVector<Value> first;
  // What is pending at run time if the loop runs no iteration (the barriers
  // emitted below from here on may not run): kept after the loop.
  DenseSet<Value> pendingLoads = loadedViews;
  StoredViews pendingStores = storedViews;
  bool firstUse = false;
  const bool freeShared = !dynamicUsed && !warpSpecialized &&
                          !op->getParentOfType<scf::ForOp>();
  bool barrierDone = false;
  if (!plan.empty() || !preload.empty()) {
    // The buffers may have been read just before (an earlier loop's at the
    // same offsets, or this loop's in the previous run of an enclosing
    // loop): everyone must be done before the first copy lands.
    // Not before the first use of the dynamic shared memory, outside every
    // loop (no earlier run of this one either): nothing can have read the
    // buffers. (The barrier after the mbarriers' initialisation comes
    // before the kernel's first use of one, at the latest this prologue's
    // first TMA copy.)
    // A loop whose prologue went out early has it here before its first
    // iteration refills the buffers above that prologue's, where the
    // anchor's rings were read.
    firstUse = freeShared && !early;
    if (!plan.empty() && !firstUse) {
      // (Generic accesses there come before the copy engine's writes.)
      if (anyTma)
        fenceBeforeRefill();
      barrierBeforeRefill(multicastRing);
      pendingLoads.clear();
      pendingStores.clear();
      scratchTouched = false;
      barrierDone = true;
    }
    // (Ahead: only in the enclosing loop's first iteration; its later ones
    // had theirs issued at the end of the previous one.)
    Value isFirst;
    if (outer)
      isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      regs[outer.getInductionVar()][0],
                                      regs[outer.getLowerBound()][0]);
    if (!early)
      first = emitPrologue(lb, ub, step, isFirst);
    noteAccesses(op);
  }
  // The early loops' prologues, after this loop's (its copies are needed
  // first), each under the conditions of the branches it stands in.
  if (llvm::any_of(earlyHere,
                   [](const EarlyLoop &e) { return !e.plan.empty(); })) {
    if (!barrierDone && !freeShared) {
      fenceBeforeRefill();
      barrierBeforeRefill(/*multicast=*/false);
      pendingLoads.clear();
      pendingStores.clear();
      scratchTouched = false;
    }
    for (const EarlyLoop &e : earlyHere)
      if (!e.plan.empty()) {
        emitEarlyPrologue(e);
        noteAccesses(e.loop);
      }
  }
  // Accumulators that stay in tensor memory across the loop (tcgen05): in
  // before it, out after it, instead of a tcgen05.st and .ld around every
  // mma. (A zero one is stored too: one store per loop, and every MMA then
  // accumulates; predicating the first iteration's MMAs instead, and storing
  // zeros only when the loop runs no iteration, made ptxas spill.)
  struct Resident {
    unsigned index;
    tile::MmaOp mma;
    int64_t blocks, N, column0;
  };
  SmallVector<Resident> residents;
  // Each at the first columns no enclosing loop's resident accumulator
  // holds; the loop's other tcgen05 mmas go after them (emitTcgen05).
  int64_t savedReserved = tmemReserved;
  for (unsigned i = 0; i < op.getNumRegionIterArgs(); ++i) {
    tile::MmaOp mma = tmemResidentMma(op, i);
    if (!mma)
      continue;
    auto cType = cast<RankedTensorType>(mma.getAcc().getType());
    Resident r{i, mma, cType.getDimSize(0) / 64, cType.getDimSize(1),
               tmemReserved};
    tmemReserved += r.blocks * r.N;
    residentColumn[mma] = r.column0;
    tmemStoreAcc(tmemBase(), tmemLaneBase(), regs[op.getInitArgs()[i]],
                 r.blocks, r.N, r.column0);
    // (The mma's barrier orders everyone's stores before its MMAs.)
    NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::STORE);
    residents.push_back(r);
  }
  SmallVector<Value> init = flatten(op.getInitArgs());
  size_t numCarried = init.size();
  llvm::append_range(init, first);
  // The scratch buffer's state where the loop starts (what the first
  // iteration starts from, and what follows a loop of no iteration).
  bool atLoop = scratchTouched;
  scratchTouched = true; // (later iterations: whatever the body left)
  // A deferred group's loop goes in a branch on whether it runs at all
  // (scf.for's own test, lb < ub), which waits for the last group right
  // after it: where a loop of no iteration joined the loop's exit before
  // that wait, the copies of the accumulator's initial values on that path
  // made ptxas serialise the wgmmas (C7515).
  scf::IfOp runsIf;
  if (deferred) {
    runsIf = scf::IfOp::create(
        b, loc, TypeRange(ValueRange(init)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard inElse(b);
    Block &elseBlock = runsIf.getElseRegion().front();
    if (!elseBlock.empty())
      elseBlock.back().erase();
    b.setInsertionPointToEnd(&elseBlock);
    scf::YieldOp::create(b, loc, init);
  }
  scf::ForOp loop;
  {
    OpBuilder::InsertionGuard inThen(b);
    if (runsIf) {
      Block &thenBlock = runsIf.getThenRegion().front();
      if (!thenBlock.empty())
        thenBlock.back().erase();
      b.setInsertionPointToEnd(&thenBlock);
    }
    loop = scf::ForOp::create(b, loc, lb, ub, step, init);
  }
  OpBuilder::InsertionGuard guard(b);
  Block *body = loop.getBody();
  if (!body->empty())
    body->back().erase();
  b.setInsertionPointToEnd(body);
  regs[op.getInductionVar()] = {loop.getInductionVar()};
  for (const Resident &r : residents)
    residentAcc.insert(r.mma);
  // A persistent kernel's program loop (and, with the kernel hint
  // refresh_in_loops, every loop): each iteration reads the thread index and
  // the kernel's parameters afresh, through side-effecting moves that LLVM
  // cannot hoist, so that what the body derives from them is computed per
  // iteration instead of held in registers across the whole loop (which
  // made ptxas spill: bench/results/2026-11-30-persistent.md).
  std::optional<ParameterState> savedParameters;
  IntegerAttr refresh = kernelHint("refresh_in_loops");
  if (op->hasAttr(kProgramLoopAttr) || (refresh && refresh.getInt()))
    savedParameters = refreshParameters();
  ValueRange iterArgs = loop.getRegionIterArgs();
  unflatten(op.getRegionIterArgs(), iterArgs.take_front(numCarried));
  SmallVector<Value> current(iterArgs.drop_front(numCarried));
  // Set j (iteration k + j) of preload i, as the loop carries it.
  auto carriedSet = [&](unsigned i, int64_t j) {
    size_t at = 0;
    for (unsigned i2 = 0; i2 < i; ++i2)
      at += preloadDistance[i2] * preloadSet[i2].size();
    at += j * preloadSet[i].size();
    return SmallVector<Value>(current.begin() + at,
                              current.begin() + at + preloadSet[i].size());
  };
  SmallVector<SmallVector<Value>> issued(preload.size());
  SmallVector<Value> nextValues;
  if (!plan.empty() || !preload.empty()) {
    // The rings' stage arithmetic is in i32, the DSL's loop counters' type.
    if (!op.getInductionVar().getType().isInteger(32))
      return op.emitError()
             << "a loop whose loads are issued ahead needs an i32 counter "
                "(the DSL's for_range); this one counts in "
             << op.getInductionVar().getType();
    Value iv = loop.getInductionVar();
    // Iteration k = (iv - lb) / step reads buffer k mod R of a ring of
    // distance d (R = d + 1, or d + 2 with a spare).
    Value index =
        arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb),
                               step);
    DenseMap<int64_t, Value> stageOf;
    for (int64_t d : distances)
      stageOf[d] =
          ringSize(d) == 2
              ? arith::AndIOp::create(b, loc, index, i32(1)).getResult()
              : arith::RemSIOp::create(b, loc, index, i32(ringSize(d)))
                    .getResult();
    // Everyone is done with the buffers the iteration before read, which
    // this one's copies overwrite. Not in the first iteration: the barrier
    // before the prologue freed every buffer of the rings (or nothing had
    // used them: firstUse), and nothing has read them since (a loop of one
    // or two iterations, compute_out's, meets one barrier fewer per run).
    // Where that barrier ran, one has come between the accesses before
    // this point and the ones after it on every path.
    if (!plan.empty()) {
      onlyWhere(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv,
                                      lb),
                [&] {
                  // (The cluster's too where a multicast copy refills that
                  // buffer in every CTA.)
                  if (multicastRing)
                    clusterBarrierInstruction();
                  else
                    barrierInstruction();
                });
      if (!firstUse) {
        loadedViews.clear();
        storedViews.clear();
      }
      // Iteration 0 as the loop found it, the others behind the barrier.
      scratchTouched = atLoop;
    }
    for (int64_t d : distances) {
      Value stage = stageOf[d];
      // Iteration k + d, into buffer (k + d) mod R (the one read before,
      // or two iterations before with a spare), if it runs.
      Value next = iv, more;
      for (int64_t j = 0; j < d; ++j) {
        auto [after, ok] = stepFrom(next, ub, step);
        next = after;
        more = j == 0 ? ok : arith::AndIOp::create(b, loc, more, ok);
      }
      // (With a spare: (k + d) mod (d + 2), the one read two iterations
      // before.)
      Value other;
      if (spare) {
        Value ahead = arith::AddIOp::create(b, loc, stage, i32(d));
        other = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, ahead,
                                  i32(ringSize(d))),
            arith::SubIOp::create(b, loc, ahead, i32(ringSize(d))), ahead);
      } else {
        other =
            d == 1 ? arith::XOrIOp::create(b, loc, stage, i32(1)).getResult()
                   : arith::SelectOp::create(
                         b, loc,
                         arith::CmpIOp::create(b, loc,
                                               arith::CmpIPredicate::eq, stage,
                                               i32(0)),
                         i32(d),
                         arith::SubIOp::create(b, loc, stage, i32(1)))
                         .getResult();
      }
      // (Past the end: the sets the iteration has, unused.)
      SmallVector<Value> values = ifElse(
          more, typesAt(d), [&] { return issueFor(next, other, d); },
          [&] {
            SmallVector<Value> same;
            for (unsigned i : preloadsAt(d))
              llvm::append_range(same, carriedSet(i, 0));
            return same;
          });
      forEachSet(d, values, [&](unsigned i, ArrayRef<Value> set) {
        issued[i].assign(set.begin(), set.end());
      });
    }
    // Each preload's sets move one iteration nearer; the one issued now
    // comes last.
    for (unsigned i = 0; i < preload.size(); ++i) {
      for (int64_t j = 1; j < preloadDistance[i]; ++j)
        llvm::append_range(nextValues, carriedSet(i, j));
      llvm::append_range(nextValues, issued[i]);
    }
    // Committed even when empty: a load of distance d waits for all groups
    // but the d newest, the last of which must be this one.
    if (anyCpAsync)
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    for (Prefetch &p : plan) {
      Value stage = stageOf[p.distance];
      prefetchedAt[p.load.getResult()] = prefetchBuffer(p, stage);
      if (p.mbar >= 0)
        prefetchedMbar[p.load.getResult()] =
            MbarRef{p.mbar, stage, ringSize(p.distance)};
      else
        prefetchedAhead[p.load.getResult()] = p.distance;
    }
    for (unsigned i = 0; i < preload.size(); ++i) {
      tile::LoadOp load = preload[i];
      SmallVector<Value> carried = carriedSet(i, 0);
      preloaded.insert(load);
      if (packsIntoWords(load))
        preloadedWords[load] = carried;
      else
        regs[load.getResult()] = carried;
    }
  }
  // This iteration's copies from the producer, taken where the loads stand
  // (takeRingCopy).
  SmallVector<std::pair<WsRing *, MbarRef>> wsStages;
  for (WsRing *ring : wsHere)
    wsPending[ring->load] = ring;
  auto *outerTaken = wsTaken;
  wsTaken = &wsStages;
  // Stages several copies share: the body's first wait for one waits for
  // them all.
  DenseMap<int64_t, unsigned> copiesOnto;
  for (Prefetch &p : plan)
    if (p.mbar >= 0)
      ++copiesOnto[p.mbar];
  for (auto [mbar, copies] : copiesOnto)
    if (copies > 1)
      sharedStages[mbar] = false;
  if (deferred)
    deferredMmas.insert(deferred);
  LogicalResult bodyEmitted = emitBlock(*op.getBody());
  if (deferred)
    deferredMmas.erase(deferred);
  for (auto [mbar, copies] : copiesOnto)
    sharedStages.erase(mbar);
  scratchTouched |= atLoop;
  wsTaken = outerTaken;
  if (failed(bodyEmitted))
    return failure();
  if (!wsStages.empty()) {
    // The warp is done with this iteration's buffers (the MMAs reading them
    // waited for each copy, and for their own completion): one arrival per
    // consumer warp frees each for the producer's next copy. (Every use of
    // a ring load the producer fills is in the loop body itself: an mma,
    // loadsIntoMma, or the ldmatrix where a fragment load stands,
    // loadsIntoFragments, so each copy was waited for; waiting again here
    // cost the GEMM of bench/results/2026-11-30-warp-specialize.md its
    // 8-9%.) Buffers read by generic loads (ldmatrix for mma.sync or a
    // fragment load) are ordered before the copy engine's next write by a
    // proxy fence; wgmma and tcgen05 read through the async proxy.
    bool generic = false;
    for (auto [ring, full] : wsStages)
      generic |= ring->genericReads;
    if (generic)
      fenceAsyncShared();
    NVVM::SyncWarpOp::create(b, loc, i32(-1));
    onlyWhere(isZero(lane), [&] {
      for (auto [ring, full] : wsStages)
        NVVM::MBarrierArriveOp::create(
            b, loc, Type(), mbarAddress(MbarRef{ring->empty, full.stage}),
            Value());
    });
  }
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  SmallVector<Value> yielded = flatten(yield.getOperands());
  llvm::append_range(yielded, nextValues);
  scf::YieldOp::create(b, loc, yielded);
  b.setInsertionPointAfter(loop);
  // The last iteration's deferred group, before anything reads its
  // accumulator or reuses the rings; then the branch joins the path of no
  // iteration.
  if (runsIf) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    scf::YieldOp::create(b, loc, loop.getResults());
    b.setInsertionPointAfter(runsIf);
  }
  ValueRange loopResults =
      runsIf ? ValueRange(runsIf.getResults()) : ValueRange(loop.getResults());
  if (savedParameters)
    restoreParameterState(*savedParameters);
  if (outer) {
    // The prologue of the enclosing loop's next iteration, now: everyone is
    // done with the rings (generic reads before the copy engine's writes),
    // and the copies' latency overlaps the rest of this iteration.
    Value s = regs[outer.getInductionVar()][0];
    auto [sNext, sOk] = stepFrom(s, regs[outer.getUpperBound()][0],
                                 regs[outer.getStep()][0]);
    fenceBeforeRefill();
    barrierBeforeRefill(multicastRing);
    ifElse(sOk, {}, [&] {
      // With the enclosing body's values the bounds and indices use
      // evaluated for its next iteration.
      evaluatedAt(outer, outerSlice, sNext, [&] {
        emitPrologue(regs[op.getLowerBound()][0],
                     regs[op.getUpperBound()][0], regs[op.getStep()][0],
                     Value());
      });
      return SmallVector<Value>();
    }, [&] { return SmallVector<Value>(); });
  }
  for (Prefetch &p : plan) {
    prefetchedAt.erase(p.load.getResult());
    prefetchedMbar.erase(p.load.getResult());
    prefetchedAhead.erase(p.load.getResult());
  }
  for (WsRing *ring : wsHere) {
    prefetchedAt.erase(ring->load.getResult());
    prefetchedMbar.erase(ring->load.getResult());
    wsPending.erase(ring->load);
  }
  for (tile::LoadOp load : preload) {
    preloaded.erase(load);
    preloadedWords.erase(load);
  }
  // (Issued ahead: the prologue's buffers stay taken until the enclosing
  // body ends, which restores its own top.)
  dynamicTop = outer && !plan.empty() ? keptTop : savedTop;
  loadedViews.insert(pendingLoads.begin(), pendingLoads.end());
  mergeStores(pendingStores);
  noteAccesses(op);
  unflatten(op.getResults(), loopResults.take_front(numCarried));
  // The resident accumulators out of tensor memory: what the last
  // iteration's MMAs wrote (every thread waited for their commit), or, when
  // the loop ran no iteration, what was stored before it.
  tmemReserved = savedReserved;
  for (const Resident &r : residents) {
    residentAcc.erase(r.mma);
    residentColumn.erase(r.mma);
    regs[op.getResult(r.index)] =
        tmemLoadAcc(tmemBase(), tmemLaneBase(), r.blocks, r.N, r.column0);
  }
  return success();
}

SmallVector<Value>
KernelEmitter::ifElse(Value cond, TypeRange types,
                      function_ref<SmallVector<Value>()> thenFn,
                      function_ref<SmallVector<Value>()> elseFn) {
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  auto fill = [&](Region &region, function_ref<SmallVector<Value>()> fn) {
    OpBuilder::InsertionGuard guard(b);
    Block &block = region.front();
    if (!block.empty())
      block.back().erase();
    b.setInsertionPointToEnd(&block);
    SmallVector<Value> values = fn();
    scf::YieldOp::create(b, loc, values);
  };
  // (Each branch starts from the scratch state before; after, either's.)
  bool before = scratchTouched;
  fill(ifOp.getThenRegion(), thenFn);
  bool afterThen = scratchTouched;
  scratchTouched = before;
  fill(ifOp.getElseRegion(), elseFn);
  scratchTouched |= afterThen;
  return SmallVector<Value>(ifOp.getResults());
}

LogicalResult KernelEmitter::emitIf(scf::IfOp op) {
  SmallVector<Type> types = flatTypes(op.getResultTypes());
  bool hasElse = !op.getElseRegion().empty();
  auto ifOp = scf::IfOp::create(b, loc, types, regs[op.getCondition()][0],
                                /*withElseRegion=*/true);
  auto fill = [&](Region &dst, Region &src) -> LogicalResult {
    OpBuilder::InsertionGuard guard(b);
    Block &block = dst.front();
    if (!block.empty())
      block.back().erase();
    b.setInsertionPointToEnd(&block);
    if (src.empty()) {
      scf::YieldOp::create(b, loc);
      return success();
    }
    if (failed(emitBlock(src.front())))
      return failure();
    auto yield = cast<scf::YieldOp>(src.front().getTerminator());
    scf::YieldOp::create(b, loc, flatten(yield.getOperands()));
    return success();
  };
  // Each branch starts from the accesses pending before the if (a barrier
  // in one branch does not run in the other); after it, what either left.
  // Buffers of loop-invariant operands in a branch die with it (every use
  // is in the branch, and their copies complete before it ends): each
  // branch and what follows start from the dynamic shared memory before.
  DenseSet<Value> beforeLoads = loadedViews;
  StoredViews beforeStores = storedViews;
  int64_t beforeTop = dynamicTop;
  bool beforeScratch = scratchTouched;
  if (failed(fill(ifOp.getThenRegion(), op.getThenRegion())))
    return failure();
  bool thenScratch = scratchTouched;
  scratchTouched = beforeScratch;
  DenseSet<Value> thenLoads = loadedViews;
  StoredViews thenStores = std::move(storedViews);
  loadedViews = beforeLoads;
  storedViews = std::move(beforeStores);
  dynamicTop = beforeTop;
  if (hasElse) {
    if (failed(fill(ifOp.getElseRegion(), op.getElseRegion())))
      return failure();
  } else {
    Region empty;
    if (failed(fill(ifOp.getElseRegion(), empty)))
      return failure();
  }
  loadedViews.insert(thenLoads.begin(), thenLoads.end());
  mergeStores(thenStores);
  scratchTouched |= thenScratch;
  dynamicTop = beforeTop;
  unflatten(op.getResults(), ifOp.getResults());
  return success();
}

} // namespace tessel::codegen::emitter
