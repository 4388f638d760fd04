//===- TmaPlan.cpp - which loads and stores the TMA copies ----------------===//

#include "passes/TmaPlan.h"
#include "passes/Match.h"
#include "passes/PipelinePlan.h"

#include "dialect/tilegpu/TileGPUDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tessel {

bool foldsIntoMma(tile::PermuteOp op) {
  if (!isTranspose(op) || op.getResult().use_empty())
    return false;
  // A source laid out as the transpose of an accumulator (assign-layouts
  // chose it for a register A): the transpose renames its registers.
  if (auto layout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
          tilegpu::getLayout(op.getSource().getType())))
    if (layout.getTransposed())
      return false;
  for (OpOperand &use : op.getResult().getUses()) {
    auto mma = dyn_cast<tile::MmaOp>(use.getOwner());
    if (!mma || use.get() == mma.getAcc())
      return false;
  }
  return true;
}

bool fragmentLoadCandidate(tile::LoadOp op) {
  auto layout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
      tilegpu::getLayout(op.getType()));
  if (!layout || op.getPadding() != tile::Padding::zero ||
      op.getResult().use_empty())
    return false;
  Type element = op.getType().getElementType();
  ArrayRef<int64_t> shape = op.getType().getShape();
  unsigned wm = layout.getWarpsPerCTA()[0];
  if (!(element.isBF16() || element.isF16()) || shape.size() != 2 ||
      layout.getWarpsPerCTA()[1] != 1)
    return false;
  // Rows of the tile are A's K, columns A's M: whole 16 x 16 blocks per
  // warp, warps along M only.
  if (layout.getTransposed())
    return shape[0] % 16 == 0 && shape[1] % (16 * wm) == 0;
  // Not transposed (rows A's M, columns A's K, as the accumulator): only
  // with the kernel hint row_fragments (read with ldmatrix, no .trans).
  auto kernel = op->getParentOfType<func::FuncOp>();
  if (!kernel)
    return false;
  IntegerAttr hint = kernelHint(kernel, targetOf(op), "row_fragments");
  return hint && hint.getInt() == 1 && shape[0] % (16 * wm) == 0 &&
         shape[1] % 16 == 0;
}

bool loadsIntoFragments(tile::LoadOp op) {
  return fragmentLoadCandidate(op) &&
         op->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName());
}

bool registerRingCandidate(tile::LoadOp op) {
  // (The box's rank and elements are tmaPlainBoxProblem's to judge: its
  // remark then says what keeps the TMA from copying it.)
  if (op.getPadding() != tile::Padding::zero || op.getResult().use_empty() ||
      !tilegpu::getLayout(op.getType()))
    return false;
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  auto kernel = op->getParentOfType<func::FuncOp>();
  auto module = op->getParentOfType<ModuleOp>();
  if (!loop || !kernel || !module)
    return false;
  auto target = module->getAttrOfType<StringAttr>(
      tilegpu::TileGPUDialect::getTargetAttrName());
  StringRef targetName = target ? target.getValue() : "sm_90a";
  IntegerAttr hint = kernelHint(kernel, targetName, "tma_register_loads");
  if (!hint || hint.getInt() != 1)
    return false;
  if (loadsIntoMma(op) || fragmentLoadCandidate(op) || residentOperand(op) ||
      computedOperandMma(op))
    return false;
  return laterIterationProblem(loop, op).empty();
}

bool loadsThroughShared(tile::LoadOp op) {
  return registerRingCandidate(op) &&
         op->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName());
}

tile::MmaOp computedOperandMma(tile::LoadOp op) {
  RankedTensorType type = op.getType();
  Type element = type.getElementType();
  if (op.getPadding() != tile::Padding::zero || type.getRank() != 2 ||
      !(element.isBF16() || element.isF16()) || !tilegpu::getLayout(type))
    return {};
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  auto kernel = op->getParentOfType<func::FuncOp>();
  if (!loop || !kernel)
    return {};
  auto on = [&](StringRef name) {
    IntegerAttr hint = kernelHint(kernel, targetOf(op), name);
    return hint && hint.getInt() == 1;
  };
  if (!on("operand_in_place") || !on("wgmma") || on("warp_specialize"))
    return {};
  if (loadsIntoMma(op) || fragmentLoadCandidate(op) || residentOperand(op))
    return {};
  // Follow the chain of elementwise ops to the mma.
  Block *block = op->getBlock();
  Value v = op.getResult();
  for (;;) {
    if (!v.hasOneUse())
      return {};
    Operation *user = *v.user_begin();
    if (user->getBlock() != block)
      return {};
    Value operand = v;
    if (auto permute = dyn_cast<tile::PermuteOp>(user)) {
      if (!foldsIntoMma(permute) || !permute.getResult().hasOneUse())
        return {};
      operand = permute.getResult();
      user = *operand.user_begin();
    }
    if (auto mma = dyn_cast<tile::MmaOp>(user)) {
      if (v == op.getResult() || v.getType() != type ||
          mma.getB() != operand || mma.getA() == operand ||
          mma->getBlock() != block)
        return {};
      return laterIterationProblem(loop, op).empty() ? mma : tile::MmaOp();
    }
    if (operand != v || !user->hasTrait<OpTrait::Elementwise>() ||
        user->getNumResults() != 1)
      return {};
    auto result = dyn_cast<RankedTensorType>(user->getResult(0).getType());
    if (!result || result.getShape() != type.getShape())
      return {};
    v = user->getResult(0);
  }
}

bool loadsIntoComputedOperand(tile::LoadOp op) {
  return op->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()) &&
         computedOperandMma(op);
}

bool stagedLoad(tile::LoadOp op) {
  return loadsIntoMma(op) || loadsIntoFragments(op) ||
         loadsThroughShared(op) || loadsIntoComputedOperand(op);
}

bool loadsIntoMma(tile::LoadOp op) {
  if (op.getPadding() != tile::Padding::zero || op.getResult().use_empty())
    return false;
  Type element = op.getType().getElementType();
  if (!(element.isBF16() || element.isF16() || element.isF32()))
    return false;
  // Every use an mma operand (maybe through a folded transpose), in the
  // load's block, with nothing in between that writes memory: copying at
  // the mma then reads what the load would have read.
  SmallVector<Operation *> users;
  for (OpOperand &use : op.getResult().getUses()) {
    Operation *user = use.getOwner();
    if (auto permute = dyn_cast<tile::PermuteOp>(user)) {
      if (!foldsIntoMma(permute))
        return false;
      for (Operation *mma : permute.getResult().getUsers())
        users.push_back(mma);
      continue;
    }
    auto mma = dyn_cast<tile::MmaOp>(user);
    if (!mma || use.get() == mma.getAcc())
      return false;
    users.push_back(mma);
  }
  for (Operation *user : users) {
    if (user->getBlock() != op->getBlock())
      return false;
    for (Operation *it = op->getNextNode(); it && it != user;
         it = it->getNextNode()) {
      bool writes = false;
      it->walk([&](tile::StoreOp) { writes = true; });
      if (writes)
        return false;
    }
  }
  return true;
}

bool residentOperand(tile::LoadOp load) {
  if (load.getPadding() != tile::Padding::zero || load.getResult().use_empty())
    return false;
  Block *home = load->getBlock();
  bool nested = false;
  auto asOperand = [&](OpOperand &use) {
    auto mma = dyn_cast<tile::MmaOp>(use.getOwner());
    if (!mma || use.get() == mma.getAcc())
      return false;
    nested |= mma->getBlock() != home;
    return true;
  };
  for (OpOperand &use : load.getResult().getUses()) {
    if (auto permute = dyn_cast<tile::PermuteOp>(use.getOwner())) {
      if (!foldsIntoMma(permute))
        return false;
      for (OpOperand &inner : permute.getResult().getUses())
        if (!asOperand(inner))
          return false;
      continue;
    }
    if (!asOperand(use))
      return false;
  }
  if (!nested)
    return false;
  // The copy stands for every later read: nothing after it in its block
  // (loops included) may write the view.
  for (Operation *it = load->getNextNode(); it; it = it->getNextNode()) {
    bool writes = false;
    it->walk([&](tile::StoreOp store) {
      writes |= store.getView() == load.getView();
    });
    if (writes)
      return false;
  }
  return true;
}

/// What every TMA box needs, swizzled or not: the target has the TMA, the
/// view is an argument of the kernel around `op`, of rank <= 5 with unit
/// stride and 16-byte alignment, 2- or 4-byte elements (`eb` is set to the
/// size), a 2-D tile (or, `oneD`, 1-D) along the view's last dimension.
static std::string tmaViewProblem(Operation *op, Value viewValue,
                                  RankedTensorType type,
                                  std::optional<ArrayRef<int64_t>> sq,
                                  bool oneD, int64_t &eb) {
  auto kernel = op->getParentOfType<func::FuncOp>();
  auto module = op->getParentOfType<ModuleOp>();
  if (!module ||
      !module->hasAttr(tilegpu::TileGPUDialect::getTmaAvailableAttrName()))
    return "the target has no TMA";
  auto arg = dyn_cast<BlockArgument>(viewValue);
  if (!kernel || !arg || arg.getOwner() != &kernel.getBody().front())
    return "the view is not a kernel argument";
  auto view = cast<tile::ViewType>(viewValue.getType());
  Type element = type.getElementType();
  eb = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() / 8 : 0;
  if (type.getRank() != 2 && !(oneD && type.getRank() == 1))
    return oneD ? "the tile is not 1-D or 2-D" : "the tile is not 2-D";
  if (view.getRank() > 5)
    return "the view has more than 5 dimensions";
  if (!view.getUnitStride() || view.getAssumedAlignment() < 16)
    return "the view does not promise unit stride and 16-byte alignment";
  if (eb != 2 && eb != 4)
    return "the elements are not 2 or 4 bytes";
  if (sq && llvm::is_contained(*sq, view.getRank() - 1))
    return "the tile squeezes the view's last dimension";
  return "";
}

std::string tmaBoxProblem(Operation *op, Value viewValue,
                          RankedTensorType type,
                          std::optional<ArrayRef<int64_t>> sq) {
  int64_t eb = 0;
  if (std::string problem =
          tmaViewProblem(op, viewValue, type, sq, /*oneD=*/false, eb);
      !problem.empty())
    return problem;
  // The tile's rows lie along the view's last dimension, in whole 128-byte
  // panels; a box dimension holds at most 256 elements, and whole 8-row
  // swizzle atoms keep every panel 1024-byte aligned.
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  if ((cols * eb) % 128 != 0)
    return "the tile's rows are not whole 128-byte panels";
  if (rows % 8 != 0 || rows > 256)
    return "the tile's rows are not a multiple of 8 up to 256";
  return "";
}

std::string tmaPlainBoxProblem(Operation *op, Value viewValue,
                               RankedTensorType type,
                               std::optional<ArrayRef<int64_t>> sq) {
  int64_t eb = 0;
  if (std::string problem =
          tmaViewProblem(op, viewValue, type, sq, /*oneD=*/true, eb);
      !problem.empty())
    return problem;
  if ((type.getShape().back() * eb) % 16 != 0)
    return "the tile's rows are not whole 16-byte chunks";
  for (int64_t n : type.getShape())
    if (n > 256)
      return "a box dimension holds more than 256 elements";
  return "";
}

std::string tmaCopyProblem(tile::LoadOp load) {
  if (BoolAttr allow = load.getAllowTmaAttr(); allow && !allow.getValue())
    return "the load says allow_tma = false";
  return tmaBoxProblem(load, load.getView(), load.getType(),
                       load.getSqueeze());
}

std::string tmaLoadProblem(tile::LoadOp load) {
  if (BoolAttr allow = load.getAllowTmaAttr(); allow && !allow.getValue())
    return "the load says allow_tma = false";
  if (registerRingCandidate(load))
    return tmaPlainBoxProblem(load, load.getView(), load.getType(),
                              load.getSqueeze());
  if (!loadsIntoMma(load) && !residentOperand(load) &&
      !fragmentLoadCandidate(load) && !computedOperandMma(load))
    return "the tile is not only an mma operand loaded where it is used, a "
           "loop-invariant one, one read as mma fragments, one a loop "
           "issues ahead into registers (hint tma_register_loads), or one "
           "an mma operand is computed from (hint operand_in_place)";
  return tmaCopyProblem(load);
}

std::string tmaStoreProblem(tile::StoreOp store) {
  if (!store.getTma())
    return "the store does not ask for the TMA (tma = true)";
  if (std::string problem = tmaBoxProblem(
          store, store.getView(),
          cast<RankedTensorType>(store.getValue().getType()),
          store.getSqueeze());
      !problem.empty())
    return problem;
  for (Operation *user : store.getView().getUsers())
    if (user != store.getOperation() && !isa<tile::DimOp>(user))
      return "the view has other loads or stores";
  return "";
}

int64_t clusterCtas(func::FuncOp kernel) {
  auto cluster =
      kernelHintAs<DenseI64ArrayAttr>(kernel, targetOf(kernel), "cluster");
  int64_t ctas = 1;
  if (cluster)
    for (int64_t size : cluster.asArrayRef())
      ctas *= size;
  return ctas;
}

/// Whether `v` has the same value in every thread of every CTA of a
/// cluster with `cluster` CTAs per grid dimension: built by arith ops from
/// constants, the kernel's scalar arguments, views' sizes, the grid's
/// sizes, program ids along dimensions the cluster does not span, and
/// program_id(d) divided by a constant multiple of cluster[d] (the cluster's
/// CTAs take neighbouring programs); a loop's induction variable with such
/// bounds and step, or a branch's result with such a condition and yields.
/// `memo` holds the values already judged.
static bool clusterUniform(Value v, ArrayRef<int64_t> cluster,
                           DenseMap<Value, bool> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  memo[v] = false; // (a cycle through loop-carried values: not uniform)
  auto all = [&](ValueRange values) {
    return llvm::all_of(values,
                        [&](Value u) { return clusterUniform(u, cluster, memo); });
  };
  auto clusterSize = [&](int64_t d) {
    return d < static_cast<int64_t>(cluster.size()) ? cluster[d] : 1;
  };
  bool uniform = false;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner))
      uniform = !isa<tile::ViewType>(arg.getType());
    else if (auto loop = dyn_cast<scf::ForOp>(owner))
      uniform = arg == loop.getInductionVar() &&
                all({loop.getLowerBound(), loop.getUpperBound(),
                     loop.getStep()});
  } else {
    Operation *op = v.getDefiningOp();
    if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
      uniform = clusterSize(pid.getDim()) == 1;
    } else if (isa<tile::DimOp, tile::NumProgramsOp, arith::ConstantOp>(op)) {
      uniform = true;
    } else if (isa<arith::DivSIOp, arith::DivUIOp>(op)) {
      // program_id(d) / c, c a multiple of the cluster's extent along d:
      // its CTAs take neighbouring program ids (c k .. c k + c - 1 share
      // the quotient), non-negative.
      auto pid = op->getOperand(0).getDefiningOp<tile::ProgramIdOp>();
      IntegerAttr c;
      if (pid && matchPattern(op->getOperand(1), m_Constant(&c)) &&
          c.getInt() > 0 && c.getInt() % clusterSize(pid.getDim()) == 0)
        uniform = true;
      else
        uniform = all(op->getOperands());
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      uniform = clusterUniform(branch.getCondition(), cluster, memo) &&
                clusterUniform(branch.thenYield().getOperand(i), cluster, memo) &&
                (!branch.elseBlock() ||
                 clusterUniform(branch.elseYield().getOperand(i), cluster, memo));
    } else if (op->getDialect() &&
               op->getDialect()->getNamespace() == "arith" &&
               op->getNumRegions() == 0 && isPure(op) &&
               !isa<ShapedType>(v.getType())) {
      uniform = all(op->getOperands());
    }
  }
  memo[v] = uniform;
  return uniform;
}

std::string multicastProblem(tile::LoadOp load) {
  auto kernel = load->getParentOfType<func::FuncOp>();
  if (!kernel)
    return "not in a kernel";
  IntegerAttr hint = kernelHint(kernel, targetOf(load), "multicast");
  if (!hint || hint.getInt() != 1)
    return "the kernel does not ask for multicast (hint multicast = 1)";
  auto clusterHint =
      kernelHintAs<DenseI64ArrayAttr>(kernel, targetOf(load), "cluster");
  int64_t ctas = clusterCtas(kernel);
  if (!clusterHint || ctas < 2)
    return "the kernel has no cluster of 2 CTAs or more (hint cluster)";
  if (IntegerAttr ws = kernelHint(kernel, targetOf(load), "warp_specialize");
      ws && ws.getInt() == 1)
    return "a producer warpgroup's rings are released per CTA";
  if (!load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()))
    return "the TMA does not copy it";
  if (loadsThroughShared(load))
    return "read unswizzled into registers";
  ArrayRef<int64_t> shape = load.getType().getShape();
  if (shape.size() != 2 || shape[0] % (8 * ctas))
    return "its rows are not a multiple of 8 per CTA of the cluster";
  ArrayRef<int64_t> cluster = clusterHint.asArrayRef();
  DenseMap<Value, bool> memo;
  for (Value index : load.getIndices())
    if (!clusterUniform(index, cluster, memo))
      return "an index may differ between the cluster's CTAs";
  for (Operation *op = load->getParentOp(); op && op != kernel;
       op = op->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (!clusterUniform(loop.getLowerBound(), cluster, memo) ||
          !clusterUniform(loop.getUpperBound(), cluster, memo) ||
          !clusterUniform(loop.getStep(), cluster, memo))
        return "a loop around it may run differently in the cluster's CTAs";
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (!clusterUniform(branch.getCondition(), cluster, memo))
        return "a branch around it may go differently in the cluster's CTAs";
    } else {
      return "inside an op other than a loop or a branch";
    }
  }
  return "";
}

} // namespace tessel
