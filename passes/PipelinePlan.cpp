//===- PipelinePlan.cpp - which loads a loop issues ahead -----------------===//

#include "passes/PipelinePlan.h"
#include "passes/Match.h"
#include "passes/TmaPlan.h"

#include "dialect/tilegpu/TileGPUDialect.h"
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

std::string prologueAheadProblem(scf::ForOp inner,
                                 SmallVectorImpl<Operation *> *outerSlice) {
  auto outer = dyn_cast<scf::ForOp>(inner->getParentOp());
  if (!outer)
    return "the loop is not directly in another loop's body";
  SmallVector<tile::LoadOp> ahead;
  for (Operation &op : inner.getBody()->without_terminator())
    if (auto load = dyn_cast<tile::LoadOp>(op))
      if (load->hasAttr(kDistanceAttr))
        ahead.push_back(load);
  if (ahead.empty())
    return kNoLoadAhead.str();
  StringRef tma = tilegpu::TileGPUDialect::getTmaAttrName();
  for (tile::LoadOp load : ahead) {
    if (!stagedLoad(load))
      return "it carries a load into registers ahead";
    if (!load->hasAttr(tma))
      return "it issues a cp.async copy ahead (its groups are counted per "
             "loop)";
  }
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
