//===- PipelinePlan.cpp - which loads a loop issues ahead -----------------===//

#include "passes/PipelinePlan.h"
#include "passes/Match.h"
#include "passes/TmaPlan.h"

#include "dialect/tilegpu/TileGPUDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace tessel {

bool isScalarIndexOp(Operation *op) {
  if (op->getNumRegions() || op->getNumResults() != 1 ||
      isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (isa<tile::DimOp, tile::ProgramIdOp, tile::NumProgramsOp>(op))
    return true;
  Dialect *dialect = op->getDialect();
  return dialect &&
         (dialect->getNamespace() == "arith" ||
          dialect->getNamespace() == "math") &&
         llvm::none_of(op->getOperandTypes(),
                       [](Type t) { return isa<RankedTensorType>(t); });
}

bool laterIterationSlice(scf::ForOp loop, ValueRange roots,
                         SmallVectorImpl<Operation *> &ops) {
  Block *body = loop.getBody();
  SmallVector<Value> work(roots.begin(), roots.end());
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == loop.getInductionVar())
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body)
        return false; // a loop-carried value
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isAncestor(def))
      continue; // defined before the loop
    if (def->getBlock() != body || !isScalarIndexOp(def))
      return false;
    if (seen.insert(def).second)
      llvm::append_range(work, def->getOperands());
  }
  for (Operation &op : body->without_terminator())
    if (seen.contains(&op))
      ops.push_back(&op);
  return true;
}

bool laterIterationSlice(scf::ForOp loop, tile::LoadOp load,
                         SmallVectorImpl<Operation *> &ops) {
  return laterIterationSlice(loop, load.getIndices(), ops);
}

int64_t mmaOperandUses(tile::LoadOp load) {
  int64_t n = 0;
  for (OpOperand &use : load.getResult().getUses()) {
    if (auto permute = dyn_cast<tile::PermuteOp>(use.getOwner()))
      n += std::distance(permute.getResult().use_begin(),
                         permute.getResult().use_end());
    else
      ++n;
  }
  return n;
}

/// Whether a store in `loop` writes `view`.
static bool writesView(scf::ForOp loop, Value view) {
  bool written = false;
  loop.walk([&](tile::StoreOp store) { written |= store.getView() == view; });
  return written;
}

/// Why `loop` cannot issue `load` (in its body) for a later iteration, or
/// "": it is a persistent kernel's program loop, it writes the view, or the
/// indices depend on what it carries.
std::string laterIterationProblem(scf::ForOp loop, tile::LoadOp load) {
  // Issuing the next program's loads directly in the program loop would hold
  // their buffers (or registers) across the whole program. (A loop inside
  // it may issue its prologue for the next program as it ends: hint
  // prologue_ahead.)
  if (loop->hasAttr(kProgramLoopAttr))
    return "the loop is the persistent program loop (not pipelined across "
           "programs)";
  if (writesView(loop, load.getView()))
    return "the loop writes the view";
  SmallVector<Operation *> ops;
  if (!laterIterationSlice(loop, load, ops))
    return "its indices depend on a value the loop carries";
  return "";
}

std::string pipelineProblem(tile::LoadOp load) {
  auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
  if (!loop)
    return "the load is not directly in a loop's body";
  if (!stagedLoad(load))
    return "the tile is not only mma operands loaded in the loop's body";
  if (std::string problem = laterIterationProblem(loop, load);
      !problem.empty())
    return problem;
  // (One read of the copy into registers serves every use of a fragment
  // load, or of one read into registers.)
  if (load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()) &&
      !loadsIntoFragments(load) && !loadsThroughShared(load) &&
      mmaOperandUses(load) > 1)
    return "a TMA copy that is more than one mma operand";
  return "";
}

/// The loads `loop` issues ahead (directly in its body).
static SmallVector<tile::LoadOp> loadsAhead(scf::ForOp loop) {
  SmallVector<tile::LoadOp> ahead;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto load = dyn_cast<tile::LoadOp>(op))
      if (load->hasAttr(kDistanceAttr))
        ahead.push_back(load);
  return ahead;
}

/// Why a prologue of `ahead` cannot be issued away from its loop, or "":
/// a load into registers (its registers would be carried), or a cp.async
/// copy (its groups are counted per loop).
static std::string aheadCopyProblem(ArrayRef<tile::LoadOp> ahead) {
  StringRef tma = tilegpu::TileGPUDialect::getTmaAttrName();
  for (tile::LoadOp load : ahead) {
    if (!stagedLoad(load))
      return "it carries a load into registers ahead";
    if (!load->hasAttr(tma))
      return "it issues a cp.async copy ahead (its groups are counted per "
             "loop)";
  }
  return "";
}

std::string prologueAheadProblem(scf::ForOp inner,
                                 SmallVectorImpl<Operation *> *outerSlice) {
  auto outer = dyn_cast<scf::ForOp>(inner->getParentOp());
  if (!outer)
    return "the loop is not directly in another loop's body";
  SmallVector<tile::LoadOp> ahead = loadsAhead(inner);
  if (ahead.empty())
    return kNoLoadAhead.str();
  if (std::string problem = aheadCopyProblem(ahead); !problem.empty())
    return problem;
  StringRef tma = tilegpu::TileGPUDialect::getTmaAttrName();
  // Nothing before it in the enclosing body may take the dynamic shared
  // memory its early copies land in: the rings are a stack, and the
  // lowering keeps the buffers of the loop's prologue taken from where the
  // loop ends to the end of the enclosing body, so that whatever comes
  // after it there (another loop's rings, a loop-invariant TMA buffer)
  // goes above them; but a loop's rings before it, or a loop-invariant TMA
  // buffer in a nested region before it (freed where the region ends),
  // would lie where the copies for the next iteration wait. A
  // loop-invariant TMA buffer directly in the body before the loop lies
  // below the rings.
  std::string problem;
  for (Operation &op : outer.getBody()->without_terminator()) {
    if (&op == inner.getOperation())
      break;
    op.walk([&](Operation *nested) {
      if (!problem.empty())
        return;
      auto load = dyn_cast<tile::LoadOp>(nested);
      if (!load)
        return;
      if (load->hasAttr(kDistanceAttr) &&
          load->getParentOfType<scf::ForOp>() != outer)
        problem = "a loop before it in the enclosing body has rings";
      else if (load->hasAttr(tma) && residentOperand(load) &&
               load->getBlock() != outer.getBody())
        problem = "a loop-invariant TMA buffer is allocated in a nested "
                  "region before it in the enclosing body";
    });
    if (!problem.empty())
      return problem;
  }
  for (tile::LoadOp load : ahead)
    if (writesView(outer, load.getView()))
      return "the enclosing loop writes a view the loop reads ahead";
  // What the next enclosing iteration's prologue needs: the bounds, and the
  // loads' indices (through the loop's own slice).
  SmallVector<Value> roots = {inner.getLowerBound(), inner.getUpperBound(),
                              inner.getStep()};
  for (tile::LoadOp load : ahead) {
    SmallVector<Operation *> ops;
    if (!laterIterationSlice(inner, load, ops))
      return "a load's indices depend on a value the loop carries";
    llvm::append_range(roots, load.getIndices());
    for (Operation *op : ops)
      llvm::append_range(roots, op->getOperands());
  }
  SmallVector<Value> outside;
  for (Value v : roots)
    if (!inner->isAncestor(v.getParentRegion()->getParentOp()))
      outside.push_back(v);
  SmallVector<Operation *> ops;
  if (!laterIterationSlice(outer, outside, ops))
    return "its bounds or indices depend on a value the enclosing loop "
           "carries or computes from tiles";
  if (outerSlice)
    *outerSlice = std::move(ops);
  return "";
}

std::string earlyAnchorProblem(scf::ForOp loop, EarlyPrologue *early) {
  if (loop->hasAttr(kProgramLoopAttr))
    return "the loop is the persistent program loop";
  if (loop->hasAttr(kPrologueAheadAttr))
    return "its prologue is issued during the enclosing loop's previous "
           "iteration (prologue_ahead)";
  // The anchor: the nearest loop before it on its path, through branches
  // only; what stands between them runs between the early prologue and the
  // loop.
  EarlyPrologue found;
  SmallVector<Operation *> between;
  Operation *at = loop;
  while (!found.anchor) {
    for (Operation *prev = at->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (auto before = dyn_cast<scf::ForOp>(prev)) {
        found.anchor = before;
        break;
      }
      bool loops = false;
      prev->walk([&](scf::ForOp) { loops = true; });
      if (loops)
        return "a region with loops stands between it and the loop before it";
      between.push_back(prev);
    }
    if (found.anchor)
      break;
    auto branch = dyn_cast<scf::IfOp>(at->getParentOp());
    if (!branch)
      return "no loop comes before it in its block or in the blocks of the "
             "branches around it";
    found.conditions.push_back(
        {branch.getCondition(), at->getParentRegion() == &branch.getThenRegion()});
    at = branch;
  }
  scf::ForOp anchor = found.anchor;
  if (anchor->hasAttr(kProgramLoopAttr) || anchor->hasAttr(kPrologueAheadAttr))
    return "the loop before it is a persistent program loop or issues its "
           "prologue ahead";
  // Nothing between them may write memory (the copies would read before
  // the write) or take shared memory that lives on to the loop (its
  // buffers above the early prologue's would be where the loop's later
  // stages go).
  StringRef tma = tilegpu::TileGPUDialect::getTmaAttrName();
  std::string problem;
  for (Operation *op : between)
    op->walk([&](Operation *nested) {
      if (!problem.empty())
        return;
      if (isa<tile::StoreOp, tile::SignalOp, tile::WaitOp>(nested) ||
          (!isa<tile::LoadOp, tile::PrefetchOp>(nested) &&
           !isMemoryEffectFree(nested) &&
           !nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()))
        problem = "something between it and the loop before it writes memory";
      else if (auto load = dyn_cast<tile::LoadOp>(nested);
               load && load->hasAttr(tma) && residentOperand(load))
        problem = "a loop-invariant TMA buffer is allocated between it and "
                  "the loop before it";
    });
  if (!problem.empty())
    return problem;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto load = dyn_cast<tile::LoadOp>(op))
      if (writesView(anchor, load.getView()))
        return "the loop before it writes a view it loads";
  // The bounds, the loads' indices (through the loop's own slice) and the
  // branches' conditions, computed before the anchor starts.
  SmallVector<Value> roots = {loop.getLowerBound(), loop.getUpperBound(),
                              loop.getStep()};
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<tile::LoadOp>(op);
    if (!load)
      continue;
    SmallVector<Operation *> ops;
    if (!laterIterationSlice(loop, load, ops))
      continue; // (not issued ahead: prologueEarlyProblem)
    llvm::append_range(roots, load.getIndices());
    for (Operation *o : ops)
      llvm::append_range(roots, o->getOperands());
  }
  for (auto [condition, then] : found.conditions)
    roots.push_back(condition);
  // (Scalar index ops after the anchor whose operands are, or can be,
  // computed before it are evaluated early too: found.outerSlice.)
  DominanceInfo dominance(anchor->getParentOfType<func::FuncOp>());
  llvm::DenseSet<Operation *> outer;
  while (!roots.empty()) {
    Value v = roots.pop_back_val();
    if (loop->isAncestor(v.getParentRegion()->getParentOp()))
      continue; // (the loop's own slice)
    if (dominance.properlyDominates(v, anchor))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !isScalarIndexOp(def))
      return "its bounds, its loads' indices or the conditions of the "
             "branches around it are computed after the loop before it "
             "starts, from more than scalar arithmetic";
    if (outer.insert(def).second)
      llvm::append_range(roots, def->getOperands());
  }
  anchor->getParentOfType<func::FuncOp>().walk<WalkOrder::PreOrder>(
      [&](Operation *op) {
        if (outer.contains(op))
          found.outerSlice.push_back(op);
      });
  if (early)
    *early = std::move(found);
  return "";
}

std::string prologueEarlyProblem(scf::ForOp loop, EarlyPrologue *early) {
  SmallVector<tile::LoadOp> ahead = loadsAhead(loop);
  if (ahead.empty())
    return kNoLoadAhead.str();
  if (std::string problem = aheadCopyProblem(ahead); !problem.empty())
    return problem;
  int64_t distance = ahead.front()->getAttrOfType<IntegerAttr>(kDistanceAttr)
                         .getInt();
  for (tile::LoadOp load : ahead) {
    if (load->hasAttr(tilegpu::TileGPUDialect::getMulticastAttrName()))
      return "it multicasts a copy to the cluster";
    if (load->getAttrOfType<IntegerAttr>(kDistanceAttr).getInt() != distance)
      return "it issues loads at different distances (its rings are laid "
             "out stage by stage)";
  }
  auto kernel = loop->getParentOfType<func::FuncOp>();
  auto hinted = [&](StringRef name) {
    IntegerAttr v = kernelHint(kernel, targetOf(kernel), name);
    return v && v.getInt() != 0;
  };
  if (hinted("wgmma_defer_wait"))
    return "the kernel may defer its wgmma waits (wgmma_defer_wait: rings "
           "with a spare buffer)";
  if (hinted("warp_specialize"))
    return "a producer warpgroup issues the copies (warp_specialize)";
  if (hinted("prologue_ahead"))
    return "the kernel issues loops' prologues ahead (prologue_ahead)";
  return earlyAnchorProblem(loop, early);
}

std::string registerPipelineProblem(tile::LoadOp load) {
  auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
  if (!loop)
    return "the load is not directly in a loop's body";
  if (load.getResult().use_empty())
    return "the tile is not used";
  if (stagedLoad(load))
    return "the tile only feeds mma operands (copied to shared memory)";
  if (load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()))
    return "the TMA copies it (a loop-invariant mma operand)";
  if (!tilegpu::getLayout(load.getType()))
    return "the tile has no layout yet (tilegpu-assign-layouts)";
  return laterIterationProblem(loop, load);
}

int64_t storageBytes(Type element) {
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

int64_t accessVector(tile::ViewType view, RankedTensorType tile,
                     std::optional<ArrayRef<int64_t>> squeeze,
                     const tilegpu::Distribution &dist) {
  int64_t rank = view.getRank();
  ArrayRef<int64_t> sq = squeeze ? *squeeze : ArrayRef<int64_t>();
  Type element = tile.getElementType();
  if (tile.getRank() == 0 || element.isInteger(1) ||
      llvm::is_contained(sq, rank - 1))
    return 1;
  return std::max<int64_t>(1, std::min<int64_t>({dist.vectorWidth,
                                                 16 / storageBytes(element),
                                                 dist.shape.back()}));
}

bool packsIntoWords(tile::LoadOp load) {
  RankedTensorType type = load.getType();
  if (storageBytes(type.getElementType()) != 2 ||
      type.getElementType().isInteger(1))
    return false;
  tilegpu::Distribution dist(type.getShape(), tilegpu::getLayout(type));
  return accessVector(load.getView().getType(), type, load.getSqueeze(),
                      dist) %
             2 ==
         0;
}

int64_t carriedWords(tile::LoadOp load) {
  RankedTensorType type = load.getType();
  int64_t n =
      tilegpu::Distribution(type.getShape(), tilegpu::getLayout(type))
          .numRegisters;
  return packsIntoWords(load) ? n / 2 : n;
}

int64_t ringBufferBytes(tile::LoadOp load) {
  RankedTensorType type = load.getType();
  int64_t eb = storageBytes(type.getElementType());
  int64_t n = type.getNumElements();
  if (loadsThroughShared(load))
    return (n * eb + 127) / 128 * 128;
  if (load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()))
    return (n * eb + 1023) / 1024 * 1024;
  int64_t rows = type.getRank() ? n / type.getShape().back() : 1;
  return ((n + rows * 8) * eb + 15) / 16 * 16;
}

} // namespace tessel
