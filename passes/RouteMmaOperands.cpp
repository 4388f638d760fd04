//===- RouteMmaOperands.cpp - --tile-route-mma-operands -------------------===//
//
// The transpose identity (A·B)ᵀ = Bᵀ·Aᵀ, used to move the mma operand that
// is computed in registers out of the B slot (which the tensor cores read
// only from shared memory) into the A slot (which wgmma reads from
// registers and tcgen05 from tensor memory), and the operand that comes
// from memory into B. The pass description in Passes.td has the rules; in
// short:
//
//   %r = tile.mma %mem, %reg, %acc          (A loaded, B computed)
// becomes
//   %m = tile.mma T(%reg), T(%mem), T(%acc)
//   %r = T(%m)                              (T: tile.permute [1, 0])
//
// and the T's fold away: T(load) is a permute the mma lowering stages for
// free (it reads the staged source the other way round), T(T(x)) = x, a
// transposed splat is a splat, and a transpose pushed into the computation of
// %reg (elementwise ops, per-row/per-column vectors, iotas, an mma of loaded
// operands) stays free. A loop-carried accumulator is carried transposed, so
// nothing is permuted inside the loop; the one transpose left is that of the
// loop's result.
//
// Upstream has no pass for this: linalg's transpose folding works on linalg
// ops and memrefs, not on tile.mma's operand slots and tile.permute.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Match.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_TILEROUTEMMAOPERANDS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

RankedTensorType transposedType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get({tensor.getDimSize(1), tensor.getDimSize(0)},
                               tensor.getElementType());
}

/// An operand the mma lowering stages from memory (TMA or cp.async) without
/// the threads computing it: a load, or a transposed load.
bool isMemoryOperand(Value v) {
  if (v.getDefiningOp<tile::LoadOp>())
    return true;
  auto permute = v.getDefiningOp<tile::PermuteOp>();
  return isTranspose(permute) &&
         permute.getSource().getDefiningOp<tile::LoadOp>();
}

bool isSplat(Value v) {
  DenseElementsAttr value;
  return matchPattern(v, m_Constant(&value)) && value.isSplat();
}

/// An operand the threads compute (neither loaded nor a constant).
bool isRegisterOperand(Value v) { return !isMemoryOperand(v) && !isSplat(v); }

/// An elementwise op on tiles of one shape (every operand a tile).
bool isTileElementwise(Operation *op) {
  if (!isElementwise(op))
    return false;
  auto shape = cast<ShapedType>(op->getResult(0).getType()).getShape();
  return llvm::all_of(op->getOperandTypes(), [&](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.getShape() == shape;
  });
}

/// Whether an M x N mma result keeps, routed (N x M), the 64-row blocks of
/// wgmma and tcgen05 and at most 256 columns.
bool routedShapeFits(ArrayRef<int64_t> shape) {
  return !(shape[0] % 64 == 0 && shape[1] % 64 != 0) && shape[0] <= 256;
}

/// Rewrites transposes of values into values computed transposed, where
/// that costs no more than the original computation.
class Transposer {
public:
  explicit Transposer(MLIRContext *ctx) : builder(ctx) {}

  /// Whether T(v) can be computed without a permute of a register tile:
  /// v is a transpose, a splat, an iota, a vector given a unit dimension,
  /// a broadcast of such, an mma of loaded operands (whose routed shape
  /// fits), or an elementwise op of such (the ops used only here: a shared
  /// value is not recomputed).
  bool isFree(Value v) {
    if (!isa<RankedTensorType>(v.getType()) ||
        cast<RankedTensorType>(v.getType()).getRank() != 2)
      return false;
    Operation *op = v.getDefiningOp();
    if (!op)
      return false;
    if (isTranspose(dyn_cast<tile::PermuteOp>(op)) || isSplat(v) ||
        isa<tile::IotaOp>(op))
      return true;
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    // A vector given a unit dimension (64 -> 64x1): T moves the unit.
    if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
      return cast<RankedTensorType>(reshape.getSource().getType()).getRank() ==
                 1 &&
             (shape[0] == 1 || shape[1] == 1);
    if (!v.hasOneUse())
      return false;
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(op))
      return cast<RankedTensorType>(broadcast.getSource().getType())
                     .getRank() == 2 &&
             isFree(broadcast.getSource());
    if (auto mma = dyn_cast<tile::MmaOp>(op))
      return isMemoryOperand(mma.getA()) && isMemoryOperand(mma.getB()) &&
             routedShapeFits(shape) &&
             (isSplat(mma.getAcc()) || isFree(mma.getAcc()));
    if (isTileElementwise(op))
      return llvm::all_of(op->getOperands(),
                          [&](Value operand) { return isFree(operand); });
    return false;
  }

  /// T(v), built next to v's definition: pushed into v's computation where
  /// isFree(v), else a tile.permute.
  Value transpose(Value v) {
    if (!isFree(v))
      return permute(v);
    Operation *op = v.getDefiningOp();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    Location loc = op->getLoc();
    RankedTensorType type = transposedType(v.getType());
    if (auto permuteOp = dyn_cast<tile::PermuteOp>(op))
      return permuteOp.getSource();
    DenseElementsAttr value;
    if (matchPattern(v, m_Constant(&value))) // a splat (isFree)
      return arith::ConstantOp::create(
          builder, loc, type,
          DenseElementsAttr::get(type, value.getSplatValue<Attribute>()));
    if (auto iota = dyn_cast<tile::IotaOp>(op))
      return tile::IotaOp::create(builder, loc, type,
                                  builder.getI64IntegerAttr(1 - iota.getAxis()));
    if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
      return tile::ReshapeOp::create(builder, loc, type, reshape.getSource());
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(op))
      return tile::BroadcastOp::create(builder, loc, type,
                                       transpose(broadcast.getSource()));
    if (auto mma = dyn_cast<tile::MmaOp>(op))
      return tile::MmaOp::create(builder, loc, type, transpose(mma.getB()),
                                 transpose(mma.getA()), transpose(mma.getAcc()),
                                 mma.getPrecisionAttr());
    // Elementwise: the same op on transposed operands.
    IRMapping mapping;
    for (Value operand : op->getOperands())
      mapping.map(operand, transpose(operand));
    Operation *clone = builder.clone(*op, mapping);
    clone->getResult(0).setType(transposedType(v.getType()));
    return clone->getResult(0);
  }

  /// A tile.permute [1, 0] of v, placed after v's definition (or at the top
  /// of v's block for a block argument); T(T(x)) is x.
  Value permute(Value v) {
    if (auto permuteOp = v.getDefiningOp<tile::PermuteOp>();
        isTranspose(permuteOp))
      return permuteOp.getSource();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(v);
    return tile::PermuteOp::create(builder, v.getLoc(),
                                   transposedType(v.getType()), v,
                                   builder.getDenseI64ArrayAttr({1, 0}));
  }

private:
  OpBuilder builder;
};

/// The loop and iteration-argument index when `mma` accumulates into a
/// value a scf.for carries: its accumulator is the iteration argument, used
/// only here, and its result is what the loop yields for that argument,
/// used only there.
std::optional<std::pair<scf::ForOp, unsigned>> loopAccumulator(
    tile::MmaOp mma) {
  auto arg = dyn_cast<BlockArgument>(mma.getAcc());
  if (!arg || !arg.hasOneUse() || !mma.getResult().hasOneUse())
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getOwner() != loop.getBody() ||
      arg.getArgNumber() < loop.getNumInductionVars())
    return std::nullopt;
  unsigned index = arg.getArgNumber() - loop.getNumInductionVars();
  OpOperand &use = *mma.getResult().getUses().begin();
  if (use.getOwner() != loop.getBody()->getTerminator() ||
      use.getOperandNumber() != index)
    return std::nullopt;
  return std::make_pair(loop, index);
}

struct RouteMmaOperands
    : public tessel::impl::TileRouteMmaOperandsBase<RouteMmaOperands> {
  using TileRouteMmaOperandsBase::TileRouteMmaOperandsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto targetAttr = module->getAttrOfType<StringAttr>(
        tilegpu::TileGPUDialect::getTargetAttrName());
    StringRef target = targetAttr ? targetAttr.getValue() : "default";
    bool changed = false;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      IntegerAttr hint = kernelHint(kernel, target, "route_mma_operands");
      SmallVector<tile::MmaOp> candidates;
      kernel.walk([&](tile::MmaOp mma) { candidates.push_back(mma); });
      for (tile::MmaOp mma : candidates) {
        std::string problem =
            hint && hint.getInt() == 0
                ? "the kernel's hint 'route_mma_operands' is 0"
                : whyNot(mma);
        if (remarks && problem.empty())
          mma.emitRemark("routed: the operand computed in registers moves "
                         "to the A slot");
        else if (remarks)
          mma.emitRemark("not routed: ") << problem;
        if (problem.empty()) {
          rewrite(mma);
          changed = true;
        }
      }
    }
    if (!changed)
      return;
    // The operations the rewrite left unused, and folds of what it built.
    RewritePatternSet patterns(&getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }

  /// Why `mma` is not routed, or "" when it is: its B is computed, its A
  /// loaded, the routed shape keeps what the tensor cores need, and its
  /// accumulator transposes for free (a splat, or a loop-carried
  /// accumulator).
  static std::string whyNot(tile::MmaOp mma) {
    for (Value v : {mma.getA(), mma.getB(), mma.getAcc()})
      if (cast<RankedTensorType>(v.getType()).getEncoding())
        return "the tiles already have layouts";
    if (!isRegisterOperand(mma.getB()))
      return "B is loaded (or a constant): it is where it belongs";
    if (!isMemoryOperand(mma.getA()))
      return "A is computed in registers too: nothing to gain";
    // tf32 never goes from registers, but wgmma and tcgen05 take it only
    // K-major (A as loaded, B a transpose): routing pays when it turns
    // the mma into that form, i.e. A is not transposed and B is not already
    // a transpose (then T(B) is computed in place and T(A) is one).
    if (mma.getPrecision() == tile::Precision::tf32) {
      if (mma.getA().getDefiningOp<tile::PermuteOp>())
        return "tf32 with a transposed A: routed, B would be M-major, which "
               "the warpgroup and tensor-memory MMAs do not take either";
      if (isTranspose(mma.getB().getDefiningOp<tile::PermuteOp>()))
        return "tf32 with B a transpose: already K-major";
    }
    // The routed mma is N x M: not when that loses the 64-row blocks that
    // wgmma and tcgen05 need, or gives more columns than one takes.
    auto shape = cast<RankedTensorType>(mma.getType()).getShape();
    if (shape[0] % 64 == 0 && shape[1] % 64 != 0)
      return "the routed " + std::to_string(shape[1]) + "x" +
             std::to_string(shape[0]) +
             " result would lose the 64-row blocks of wgmma and tcgen05";
    if (shape[0] > 256)
      return "the routed result would have " + std::to_string(shape[0]) +
             " columns, more than one mma takes (256)";
    // What pays: B's transpose computed in registers without a permute (so
    // that the routed A can go to the tensor cores from registers or tensor
    // memory); otherwise the A slot would stage a transposed tile, as the B
    // slot stages this one, and the result's transpose would be extra.
    Transposer t(mma.getContext());
    if (!t.isFree(mma.getB()))
      return "B's transpose is not computed for free (its computation "
             "reaches a load, a shared value or an op that is not "
             "elementwise): the A slot would stage it as B's does";
    auto absorbed = [](Value result) {
      return llvm::all_of(result.getUsers(), [](Operation *user) {
        return isTranspose(dyn_cast<tile::PermuteOp>(user));
      });
    };
    if (auto carried = loopAccumulator(mma)) {
      auto [loop, index] = *carried;
      Value init = loop.getInitArgs()[index];
      if (!isSplat(init) && !t.isFree(init))
        return "the loop's initial accumulator would need a register "
               "permute";
      if (!absorbed(loop->getResult(index)) &&
          loop->getParentOfType<scf::ForOp>())
        return "the loop's result would need a register permute in every "
               "iteration of the loop around it";
      return "";
    }
    if (!isSplat(mma.getAcc()))
      return "the accumulator is a computed tile (neither a splat nor "
             "carried by a loop only through this mma): its transposes "
             "would permute registers";
    if (!absorbed(mma.getResult()))
      return "the routed result would need a register permute (its uses "
             "are not transposes)";
    return "";
  }

  /// The rewrite, where whyNot(mma) is "".
  static void rewrite(tile::MmaOp mma) {
    auto carried = loopAccumulator(mma);
    Transposer t(mma.getContext());
    Value a = t.transpose(mma.getB()), b = t.transpose(mma.getA());
    OpBuilder builder(mma);
    RankedTensorType type = transposedType(mma.getType());
    if (!carried) {
      Value acc = t.transpose(mma.getAcc());
      auto routed = tile::MmaOp::create(builder, mma.getLoc(), type, a, b, acc,
                                        mma.getPrecisionAttr());
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : mma.getResult().getUses())
        uses.push_back(&use);
      transposeUses(uses, routed.getResult(), t);
      mma.erase();
      return;
    }
    // The loop carries the accumulator transposed: T(init) enters it, its
    // result leaves it through a T.
    auto [loop, index] = *carried;
    OpOperand &init = loop.getInitArgsMutable()[index];
    init.set(t.transpose(init.get()));
    BlockArgument arg = loop.getRegionIterArgs()[index];
    arg.setType(type);
    auto routed = tile::MmaOp::create(builder, mma.getLoc(), type, a, b, arg,
                                      mma.getPrecisionAttr());
    mma.getResult().replaceAllUsesWith(routed.getResult());
    mma.erase();
    OpResult result = loop->getResult(index);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : result.getUses())
      uses.push_back(&use);
    result.setType(type);
    transposeUses(uses, result, t);
  }

  /// Makes `uses` (of an M x N value being replaced) use T(`routed`), its
  /// N x M transpose, and folds the transposes among them right away (they
  /// take `routed` itself), so that the mmas routed after this one see the
  /// IR as it will be: no T(T(x)) left that would look free.
  static void transposeUses(ArrayRef<OpOperand *> uses, Value routed,
                            Transposer &t) {
    if (uses.empty())
      return;
    Value back = t.permute(routed);
    for (OpOperand *use : uses)
      use->set(back);
    SmallVector<tile::PermuteOp> twice;
    for (Operation *user : back.getUsers())
      if (auto permute = dyn_cast<tile::PermuteOp>(user); isTranspose(permute))
        twice.push_back(permute);
    for (tile::PermuteOp permute : twice) {
      permute.getResult().replaceAllUsesWith(routed);
      permute.erase();
    }
    if (back.use_empty())
      back.getDefiningOp()->erase();
  }
};

} // namespace
