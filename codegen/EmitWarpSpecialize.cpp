//===- EmitWarpSpecialize.cpp - the producer warpgroup --------------------===//
//
// Warp specialisation (kernel hint warp_specialize): which rings the producer
// fills, the register split, the producer's walk of the control flow, and
// the consumers taking its copies.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace tessel::codegen::emitter {

using namespace mlir;

std::pair<Value, Value> KernelEmitter::wsStageAndPhase(const WsRing &ring,
                                                       Value k) {
  Value n = i32(ring.slots);
  Value stage = arith::RemUIOp::create(b, loc, k, n);
  Value phase = arith::AndIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, k, n), i32(1));
  return {stage, phase};
}

/// Scalar ops the producer can evaluate by itself: integer and index
/// arithmetic, constants, program ids, grid sizes and view sizes (the index
/// ops of isScalarIndexOp without math).
static bool producerOp(Operation *op) {
  return isScalarIndexOp(op) && !isa<math::MathDialect>(op->getDialect());
}

/// A branch the producer can evaluate by itself (a loop bound chosen by a
/// kernel flag): scalar integer results only, and each branch nothing but
/// producerOps and such branches (no loads, no tiles). Its condition and
/// the values it reads from outside are checked where it is used.
static bool producerBranch(scf::IfOp ifOp) {
  if (ifOp.getNumResults() == 0 ||
      !llvm::all_of(ifOp.getResultTypes(),
                    [](Type t) { return isa<IntegerType>(t); }))
    return false;
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
    if (region->empty())
      return false;
    for (Operation &op : region->front()) {
      if (isa<scf::YieldOp>(op))
        continue;
      auto nested = dyn_cast<scf::IfOp>(op);
      if (nested ? !producerBranch(nested) : !producerOp(&op))
        return false;
    }
  }
  return true;
}

LogicalResult KernelEmitter::planWarpSpecialization() {
  IntegerAttr hint = kernelHint("warp_specialize");
  if (!hint || !hint.getInt()) {
    if (IntegerAttr ring = kernelHint("ring_slots"); ring && ring.getInt())
      return kernel.emitError()
             << "'ring_slots' shares the producer's ring: it needs "
                "'warp_specialize' (for this target)";
    return success();
  }
  auto problem = [&]() {
    InFlightDiagnostic d = kernel.emitError();
    d << "'warp_specialize' on a kernel that cannot be warp-specialised: ";
    return d;
  };
  if (numWarps % 4)
    return problem() << "its " << numWarps
                     << " warps are not whole warpgroups (setmaxnreg)";
  if (numWarps > 28)
    return problem() << "its " << numWarps
                     << " warps and the producer's 4 exceed a CTA's 32";
  DenseSet<Value> stored;
  kernel.walk([&](tile::StoreOp store) { stored.insert(store.getView()); });
  // Values the producer can compute: the kernel's scalar arguments, the
  // induction variables of the loops it replicates (those around ring
  // loads), and producerOps of such values.
  DenseMap<Value, bool> memo;
  std::function<bool(Value, Operation *)> computable = [&](Value v,
                                                           Operation *at) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == kernel.getOperation())
        return !isa<tile::ViewType>(v.getType());
      auto loop = dyn_cast<scf::ForOp>(owner);
      return loop && v == loop.getInductionVar() && loop->isAncestor(at);
    }
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    // A scalar branch: its condition, and what either side yields.
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      bool ok = producerBranch(ifOp) && computable(ifOp.getCondition(), at);
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        for (Value yielded : region->front().getTerminator()->getOperands())
          ok = ok && computable(yielded, at);
      return memo[v] = ok;
    }
    bool ok = producerOp(def);
    if (ok && !isa<tile::DimOp>(def))
      for (Value operand : def->getOperands())
        ok = ok && computable(operand, at);
    return memo[v] = ok;
  };
  std::string why;
  int64_t top = 0;
  kernel.walk([&](tile::LoadOp load) {
    auto distance = load->getAttrOfType<IntegerAttr>(kDistanceAttr);
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    // The producer fills the rings of mma operands and of loads read as mma
    // fragments (ldmatrix where the load stands: generic reads, fenced
    // before the buffer is freed); a load read into registers through
    // shared memory (a few hundred bytes of Acs, dt) keeps a ring the
    // consumers fill themselves, which a shared ring's buffers (each the
    // size of the largest load) would waste.
    if (!why.empty() || !distance || !loop ||
        !(loadsIntoMma(load) || loadsIntoFragments(load)) ||
        !tmaOf.count(load))
      return;
    auto fail = [&](const Twine &reason) {
      if (why.empty())
        why = reason.str();
    };
    if (stored.contains(load.getView()))
      return fail("it stores to a view it loads through the TMA ahead");
    if (loop->hasAttr(kPrologueAheadAttr))
      return fail("a loop issues its prologue ahead (prologue_ahead)");
    for (Value index : load.getIndices())
      if (!computable(index, load))
        return fail("a box origin of a load issued ahead depends on values "
                    "the producer cannot compute (tiles, loop-carried "
                    "values)");
    for (Operation *p = loop; p != kernel.getOperation();
         p = p->getParentOp()) {
      if (auto f = dyn_cast<scf::ForOp>(p)) {
        if (!computable(f.getLowerBound(), load) ||
            !computable(f.getUpperBound(), load) ||
            !computable(f.getStep(), load))
          return fail("the bounds of a loop around a load issued ahead "
                      "depend on values the producer cannot compute");
      } else if (auto i = dyn_cast<scf::IfOp>(p)) {
        if (!computable(i.getCondition(), load))
          return fail("a branch around a load issued ahead depends on "
                      "values the producer cannot compute");
      } else {
        return fail(Twine("a load issued ahead sits in '") +
                    p->getName().getStringRef() + "'");
      }
    }
    if (distance.getInt() < 1 || distance.getInt() > kMaxDistance)
      return fail(Twine("a load's '") + kDistanceAttr + "' is " +
                  Twine(distance.getInt()) + ", not in [1, " +
                  Twine(kMaxDistance) + "]");
    std::optional<StageLayout> layout = loadStage(load);
    WsRing ring;
    ring.load = load;
    // (A fragment load is read by ldmatrix where it stands, whatever
    // reads its registers.)
    ring.genericReads = readsGeneric(load) || loadsIntoFragments(load);
    ring.slots = distance.getInt() + 1;
    ring.bytes = ringBufferBytes(load, *layout);
    ring.layout = *layout;
    wsRingOf[load] = wsRings.size();
    wsRings.push_back(ring);
  });
  if (!why.empty())
    return problem() << why;
  if (wsRings.empty())
    return problem() << "no loop issues a TMA copy ahead (a load into an "
                        "mma, or read as mma fragments, marked "
                        "tilegpu.distance by tilegpu-schedule-loads, through "
                        "the TMA)";
  // One ring for all (hint ring_slots = N): copies go out and are taken in
  // program order (the producer's walk, and the consumers' counter read
  // where each load stands), so a buffer stays taken from its load to the
  // end of that iteration. A load before a nested loop (or a branch) that
  // cycles the ring would hold its buffer while the producer needs it:
  // refused. Then at most the loads of one iteration are held at once, and
  // N above that leaves the producer room to run ahead.
  // `slots` buffers' `full` and `empty` mbarriers (the first of each).
  auto ringBarriers = [&](int64_t slots) {
    int64_t full = ringMbarriers(slots), empty = ringMbarriers(slots);
    for (int64_t j = 0; j < slots; ++j)
      mbarArrivals[empty + j] = numWarps; // one per consumer warp
    return std::make_pair(full, empty);
  };
  IntegerAttr sharedHint = kernelHint("ring_slots");
  int64_t shared = sharedHint ? sharedHint.getInt() : 0;
  if (shared > 0) {
    int64_t held = 0;
    std::string order;
    kernel.walk([&](scf::ForOp loop) {
      int64_t direct = 0;
      for (Operation &op : loop.getBody()->without_terminator()) {
        auto load = dyn_cast<tile::LoadOp>(op);
        if (load && wsRingOf.count(load))
          ++direct;
        else if (direct && order.empty() && holdsRingLoad(op))
          order = "a load the producer fills comes before a nested '" +
                  op.getName().getStringRef().str() +
                  "' that holds one too in the same loop body";
      }
      held = std::max(held, direct);
    });
    if (!order.empty())
      return problem() << "'ring_slots' shares one ring, but " << order;
    if (shared <= held)
      return problem() << "'ring_slots' is " << shared
                       << ", but a loop iteration holds " << held
                       << " of the ring's buffers at once (ask for more)";
    // Buffers of the largest load, each aligned as every load needs.
    int64_t bytes = 0;
    for (WsRing &ring : wsRings)
      bytes = std::max(bytes, ring.bytes);
    for (WsRing &ring : wsRings)
      bytes = alignFor(bytes, ring.layout);
    auto [full, empty] = ringBarriers(shared);
    for (WsRing &ring : wsRings) {
      ring.slots = shared;
      ring.bytes = bytes;
      ring.offset = 0;
      ring.full = full;
      ring.empty = empty;
      ring.counterOf = 0; // one counter, the first ring's
    }
    top = shared * bytes;
  } else {
    for (auto [i, ring] : llvm::enumerate(wsRings)) {
      ring.offset = alignFor(top, ring.layout);
      top = ring.offset + ring.slots * ring.bytes;
      std::tie(ring.full, ring.empty) = ringBarriers(ring.slots);
      ring.counterOf = i;
    }
  }
  if (top > kRingBudgetBytes)
    return problem() << "its rings take " << top << " bytes of the "
                     << kRingBudgetBytes
                     << " of shared memory available to rings";
  // The rings live as long as the kernel: everything else goes above them.
  dynamicTop = top;
  dynamicBytes = std::max(dynamicBytes, top);
  // The registers each thread starts with (.maxnreg: the occupancy hint's
  // share of the 64K-register file, else all of it); the producer warpgroup
  // keeps `producer_registers` (default 40) and gives the rest to the
  // consumers.
  IntegerAttr occupancy = kernelHint("occupancy");
  int64_t ctas = occupancy ? occupancy.getInt() : 1;
  int64_t threads = 32 * numWarps + 128;
  wsLaunchRegs = std::min<int64_t>(65536 / (ctas * threads) / 8 * 8, 248);
  if (wsLaunchRegs < 24)
    return kernel.emitError()
           << "'warp_specialize': " << ctas << " CTAs of " << threads
           << " threads per SM leave " << wsLaunchRegs
           << " registers per thread (setmaxnreg needs at least 24)";
  IntegerAttr producer = kernelHint("producer_registers");
  wsProducerRegs =
      std::min<int64_t>(producer ? producer.getInt() : 40, wsLaunchRegs);
  wsConsumerRegs = std::min<int64_t>(
      (wsLaunchRegs * threads - wsProducerRegs * 128) / (32 * numWarps) / 8 *
          8,
      256);
  return success();
}

void KernelEmitter::emitProducer(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    loc = op.getLoc();
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (!holdsRingLoad(op))
        continue;
      auto loop = scf::ForOp::create(b, loc, regs[forOp.getLowerBound()][0],
                                     regs[forOp.getUpperBound()][0],
                                     regs[forOp.getStep()][0]);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      regs[forOp.getInductionVar()] = {loop.getInductionVar()};
      emitProducer(*forOp.getBody());
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      // A scalar branch (producerBranch) whose condition the producer has,
      // evaluated as the kernel does: each side's scalar ops, then what it
      // yields (where a side leaves a yielded value unknown, so is the
      // branch: nothing the copies need reads it, planWarpSpecialization
      // checked).
      if (!holdsRingLoad(op) && producerBranch(ifOp) &&
          regs.count(ifOp.getCondition())) {
        bool known = true;
        SmallVector<Value> results = ifElse(
            regs[ifOp.getCondition()][0],
            SmallVector<Type>(ifOp.getResultTypes()),
            [&]() -> SmallVector<Value> {
              return producerYield(ifOp.getThenRegion().front(), known);
            },
            [&]() -> SmallVector<Value> {
              return producerYield(ifOp.getElseRegion().front(), known);
            });
        if (known)
          for (auto [result, value] : llvm::zip(ifOp.getResults(), results))
            regs[result] = {value};
        else {
          // (Nothing outside reads what either side computed: forget it
          // with the erased branch.)
          results.front().getDefiningOp()->erase();
          ifOp->walk([&](Operation *inner) {
            for (Value v : inner->getResults())
              regs.erase(v);
          });
        }
        continue;
      }
      if (!holdsRingLoad(op))
        continue;
      ifElse(
          regs[ifOp.getCondition()][0], {},
          [&]() -> SmallVector<Value> {
            emitProducer(ifOp.getThenRegion().front());
            return {};
          },
          [&]() -> SmallVector<Value> {
            if (!ifOp.getElseRegion().empty())
              emitProducer(ifOp.getElseRegion().front());
            return {};
          });
      continue;
    }
    if (auto load = dyn_cast<tile::LoadOp>(op)) {
      auto it = wsRingOf.find(load);
      if (it == wsRingOf.end())
        continue;
      // Copy k goes to buffer k mod n once the consumers freed it (phase
      // (k / n) - 1 of its `empty` barrier; for the first n copies the
      // phase before the first, which counts as complete).
      WsRing &ring = wsRings[it->second];
      Value slot = ringCounter(ring);
      Value k = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);
      auto [stage, phase] = wsStageAndPhase(ring, k);
      waitTma(MbarRef{ring.empty, stage, ring.slots,
                      arith::XOrIOp::create(b, loc, phase, i32(1))});
      issueTma(load, ringBuffer(ring.offset, ring.bytes, stage),
               MbarRef{ring.full, stage, ring.slots});
      LLVM::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, k, i32(1)),
                            slot);
      continue;
    }
    if (producerOp(&op) &&
        (isa<tile::DimOp>(op) ||
         llvm::all_of(op.getOperands(), [&](Value v) { return regs.count(v); })))
      (void)emitOp(op); // (scalar ops: cannot fail)
  }
}

SmallVector<Value> KernelEmitter::producerYield(Block &block, bool &known) {
  emitProducer(block);
  SmallVector<Value> out;
  for (Value v : block.getTerminator()->getOperands()) {
    auto it = regs.find(v);
    if (it == regs.end() || it->second.size() != 1 ||
        it->second[0].getType() != v.getType()) {
      known = false;
      out.push_back(LLVM::PoisonOp::create(b, loc, v.getType()));
      continue;
    }
    out.push_back(it->second[0]);
  }
  return out;
}

void KernelEmitter::takeRingCopy(WsRing &ring) {
  // Buffer and phase from the count of copies taken so far (of this ring,
  // or of the one ring all loads share).
  Value k = LLVM::LoadOp::create(b, loc, b.getI32Type(), ringCounter(ring));
  auto [stage, phase] = wsStageAndPhase(ring, k);
  prefetchedAt[ring.load.getResult()] =
      ringBuffer(ring.offset, ring.bytes, stage);
  MbarRef full{ring.full, stage, ring.slots, phase};
  prefetchedMbar[ring.load.getResult()] = full;
  LLVM::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, k, i32(1)),
                        ringCounter(ring));
  wsTaken->push_back({&ring, full});
}

} // namespace tessel::codegen::emitter
