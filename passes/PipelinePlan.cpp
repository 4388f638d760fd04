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

bool laterIterationSlice(scf::ForOp loop, tile::LoadOp load,
                         SmallVectorImpl<Operation *> &ops) {
  Block *body = loop.getBody();
  SmallVector<Value> work(load.getIndices());
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
    if (seen.insert(def).second) {
      ops.push_back(def);
      llvm::append_range(work, def->getOperands());
    }
  }
  return true;
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

/// Why `loop` cannot issue `load` (in its body) for a later iteration, or
/// "": it writes the view, or the indices depend on what it carries.
static std::string laterIterationProblem(scf::ForOp loop, tile::LoadOp load) {
  // Issuing the next program's loads during this one would hold their
  // buffers (or registers) across the whole program.
  if (loop->hasAttr(kTileLoopAttr))
    return "the loop is the persistent tile loop (not pipelined across "
           "programs)";
  bool written = false;
  loop.walk([&](tile::StoreOp store) {
    written |= store.getView() == load.getView();
  });
  if (written)
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
  if (!loadsIntoMma(load))
    return "the tile is not only mma operands loaded in the loop's body";
  if (std::string problem = laterIterationProblem(loop, load);
      !problem.empty())
    return problem;
  if (load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()) &&
      mmaOperandUses(load) > 1)
    return "a TMA copy that is more than one mma operand";
  return "";
}

std::string registerPipelineProblem(tile::LoadOp load) {
  auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
  if (!loop)
    return "the load is not directly in a loop's body";
  if (load.getResult().use_empty())
    return "the tile is not used";
  if (loadsIntoMma(load))
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
  if (load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()))
    return (n * eb + 1023) / 1024 * 1024;
  int64_t rows = type.getRank() ? n / type.getShape().back() : 1;
  return ((n + rows * 8) * eb + 15) / 16 * 16;
}

} // namespace tessel
