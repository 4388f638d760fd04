//===- TileOps.cpp - tile dialect verifiers and folders ------------------===//
//
// Every rule a kernel author can break is checked here, with a message that
// names the shapes and types involved: these errors reach users at the DSL
// call that created the op.
//
//===----------------------------------------------------------------------===//

#include "dialect/tile/TileOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel::tile;

// `tile.reduce max %x`: the combiner as a bare keyword.
static ParseResult parseReduceKind(OpAsmParser &parser, ReduceKindAttr &kind) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(keyword);
  if (!value)
    return parser.emitError(loc, "expected reduction kind 'sum', 'max' or "
                                 "'min', got '")
           << keyword << "'";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReduceKind(OpAsmPrinter &printer, Operation *,
                            ReduceKindAttr kind) {
  printer << stringifyReduceKind(kind.getValue());
}

#define GET_OP_CLASSES
#include "dialect/tile/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// "64x32" (or "scalar" for rank 0), for messages.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      [&] { os << "x"; });
  return s;
}

/// Tiles have static shapes whose dimensions are powers of two: that is what
/// lets the compiler distribute them evenly over lanes, warps and registers.
static LogicalResult verifyTileType(Operation *op, Type type, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError()
           << what << " must be a ranked tensor, got " << type;
  if (!tensor.hasStaticShape())
    return op->emitOpError()
           << what << " must have a static shape, got " << type;
  for (int64_t d : tensor.getShape())
    if (d < 1 || !llvm::isPowerOf2_64(d))
      return op->emitOpError()
             << what << " dimensions must be powers of two, got "
             << shapeStr(tensor.getShape());
  // A layout is a tilegpu encoding (the passes assign them); another
  // dialect's would pass through them unassigned.
  if (Attribute encoding = tensor.getEncoding();
      encoding && encoding.getDialect().getNamespace() != "tilegpu")
    return op->emitOpError() << what << " has the encoding " << encoding
                             << ", which is not a tilegpu layout";
  // Element counts (reshape, folders) are int64_t products: keep them exact.
  int64_t count = 1;
  for (int64_t d : tensor.getShape())
    if (llvm::MulOverflow(count, d, count))
      return op->emitOpError() << what << " has too many elements, got "
                               << shapeStr(tensor.getShape());
  return success();
}

/// An op that changes a tile's shape only (broadcast, reshape): both types
/// tiles, one element type.
static LogicalResult verifyShapeChange(Operation *op, Type sourceType,
                                       Type resultType) {
  if (failed(verifyTileType(op, sourceType, "source tile")) ||
      failed(verifyTileType(op, resultType, "result tile")))
    return failure();
  Type from = cast<RankedTensorType>(sourceType).getElementType();
  Type to = cast<RankedTensorType>(resultType).getElementType();
  if (from != to)
    return op->emitOpError()
           << "cannot change the element type from " << from << " to " << to;
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "axis " << axis << " is out of range for a rank-" << rank
           << " tile";
  return success();
}

/// Checks the addressing shared by tile.load and tile.store and returns the
/// tile shape with the squeezed unit dimensions put back (the box in the view).
static LogicalResult
verifyViewAccess(Operation *op, ViewType view, size_t numIndices,
                 RankedTensorType tile,
                 std::optional<ArrayRef<int64_t>> squeeze) {
  int64_t viewRank = view.getRank();
  if (static_cast<int64_t>(numIndices) != viewRank)
    return op->emitOpError()
           << "expects " << viewRank << " tile indices for a rank-" << viewRank
           << " view, got " << numIndices;
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError()
           << "tile element type " << tile.getElementType()
           << " does not match view element type " << view.getElementType();
  ArrayRef<int64_t> squeezed = squeeze ? *squeeze : ArrayRef<int64_t>();
  int64_t prev = -1;
  for (int64_t d : squeezed) {
    if (d < 0 || d >= viewRank)
      return op->emitOpError()
             << "squeezed dimension " << d << " is out of range for a rank-"
             << viewRank << " view";
    if (d <= prev)
      return op->emitOpError()
             << "squeezed dimensions must be strictly increasing";
    prev = d;
  }
  int64_t tileRank = tile.getRank();
  if (tileRank + static_cast<int64_t>(squeezed.size()) != viewRank) {
    if (squeezed.empty())
      return op->emitOpError()
             << "tile rank " << tileRank << " differs from view rank "
             << viewRank
             << "; list the view dimensions the tile drops in 'squeeze'";
    return op->emitOpError()
           << "tile rank " << tileRank << " plus " << squeezed.size()
           << " squeezed dimension(s) differs from view rank " << viewRank;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// tile.dim
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  int64_t rank = getView().getType().getRank();
  if (static_cast<int64_t>(getDim()) >= rank)
    return emitOpError() << "dimension " << getDim()
                         << " is out of range for a rank-" << rank << " view";
  // The folder turns a static size into an i32 constant: it must fit.
  int64_t size = getView().getType().getShape()[getDim()];
  if (!ShapedType::isDynamic(size) && !llvm::isInt<32>(size))
    return emitOpError() << "static size " << size << " of dimension "
                         << getDim() << " does not fit the i32 result";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> shape = getView().getType().getShape();
  if (getDim() < shape.size() && !ShapedType::isDynamic(shape[getDim()]))
    return IntegerAttr::get(getType(), shape[getDim()]);
  return {};
}

//===----------------------------------------------------------------------===//
// tile.load / tile.store
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (failed(verifyTileType(*this, getType(), "result tile")))
    return failure();
  auto tile = cast<RankedTensorType>(getType());
  if (failed(verifyViewAccess(*this, getView().getType(), getIndices().size(),
                              tile, getSqueeze())))
    return failure();
  if (getPadding() != Padding::zero && !isa<FloatType>(tile.getElementType()))
    return emitOpError() << "padding '" << stringifyPadding(getPadding())
                         << "' needs a float element type, got "
                         << tile.getElementType();
  return success();
}

LogicalResult StoreOp::verify() {
  if (failed(verifyTileType(*this, getValue().getType(), "stored tile")))
    return failure();
  return verifyViewAccess(*this, getView().getType(), getIndices().size(),
                          cast<RankedTensorType>(getValue().getType()),
                          getSqueeze());
}

//===----------------------------------------------------------------------===//
// tile.signal, tile.wait
//===----------------------------------------------------------------------===//

/// A counter: a 32-bit integer element of `view`, one index per dimension.
static LogicalResult verifyCounter(Operation *op, Type viewType,
                                   size_t numIndices) {
  auto view = cast<ViewType>(viewType);
  if (!view.getElementType().isInteger(32))
    return op->emitOpError()
           << "counts in a view of 32-bit integers, got elements of type "
           << view.getElementType();
  if (static_cast<int64_t>(numIndices) != view.getRank())
    return op->emitOpError() << "takes one index per view dimension ("
                             << view.getRank() << "), got " << numIndices;
  return success();
}

LogicalResult PrefetchOp::verify() {
  int64_t rank = getView().getType().getRank();
  if (static_cast<int64_t>(getIndices().size()) != rank)
    return emitOpError() << "takes one tile index per view dimension ("
                         << rank << "), got " << getIndices().size();
  if (static_cast<int64_t>(getBox().size()) != rank)
    return emitOpError() << "box has " << getBox().size()
                         << " extents for a rank-" << rank << " view";
  for (int64_t e : getBox())
    if (e <= 0)
      return emitOpError() << "box extents must be positive, got " << e;
  return success();
}

LogicalResult SignalOp::verify() {
  return verifyCounter(*this, getView().getType(), getIndices().size());
}

LogicalResult TicketOp::verify() {
  return verifyCounter(*this, getView().getType(), getIndices().size());
}

LogicalResult WaitOp::verify() {
  if (failed(verifyCounter(*this, getView().getType(), getIndices().size())))
    return failure();
  if (getEarlierPrograms()) {
    // A wait for earlier programs of this kernel: anywhere.
    if (getEarlyLoads())
      return emitOpError() << "takes early_loads or earlier_programs, not "
                              "both: early_loads places the kernel's "
                              "dependency point, which a wait for earlier "
                              "programs is not";
    return success();
  }
  // The kernel's dependency point: in the kernel's body itself (or the
  // loop over programs tilegpu-persistent-grid wraps it in), so that it
  // always runs, and before every other access to memory.
  Operation *parent = (*this)->getParentOp();
  if (parent && parent->hasAttr("tilegpu.program_loop"))
    parent = parent->getParentOp();
  if (!parent || !parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return emitOpError() << "must be in the kernel's body itself, not in a "
                            "loop or branch: it is the kernel's dependency "
                            "point";
  // (With early_loads, loads may precede it: the author's promise that they
  // read only what was complete before the signalling kernel started.)
  Operation *first = nullptr;
  parent->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa<LoadOp, StoreOp, SignalOp, WaitOp>(op) ||
        (getEarlyLoads() && isa<LoadOp>(op)))
      return WalkResult::advance();
    first = op;
    return WalkResult::interrupt();
  });
  if (first != getOperation())
    return emitOpError()
               .append(getEarlyLoads()
                           ? "must come before every store, signal and wait "
                             "of the kernel (it is the kernel's dependency "
                             "point; early_loads lets only loads precede it)"
                           : "must come before every load, store, signal and "
                             "wait of the kernel (it is the kernel's "
                             "dependency point)")
               .attachNote(first->getLoc())
           << "this one comes first";
  return success();
}

//===----------------------------------------------------------------------===//
// tile.mma
//===----------------------------------------------------------------------===//

LogicalResult MmaOp::verify() {
  for (auto [value, name] :
       {std::pair{getA(), "operand a"}, std::pair{getB(), "operand b"},
        std::pair{getAcc(), "accumulator"}}) {
    if (failed(verifyTileType(*this, value.getType(), name)))
      return failure();
    if (cast<RankedTensorType>(value.getType()).getRank() != 2)
      return emitOpError() << name << " must be a 2-D tile, got "
                           << value.getType();
  }
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto acc = cast<RankedTensorType>(getAcc().getType());
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape(), cs = acc.getShape();
  if (as[1] != bs[0])
    return emitOpError() << "inner dimensions do not agree: a is "
                         << shapeStr(as) << " (MxK) and b is " << shapeStr(bs)
                         << " (KxN), K " << as[1] << " vs " << bs[0];
  if (cs[0] != as[0] || cs[1] != bs[1])
    return emitOpError() << "accumulator is " << shapeStr(cs) << " but a ("
                         << shapeStr(as) << ") times b (" << shapeStr(bs)
                         << ") is " << as[0] << "x" << bs[1];
  if (!acc.getElementType().isF32())
    return emitOpError() << "accumulator must be f32, got "
                         << acc.getElementType();
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "operand element types differ: a is "
                         << a.getElementType() << ", b is "
                         << b.getElementType();
  Type expected;
  Builder builder(getContext());
  switch (getPrecision()) {
  case Precision::bf16:
    expected = builder.getBF16Type();
    break;
  case Precision::f16:
    expected = builder.getF16Type();
    break;
  case Precision::tf32:
    expected = builder.getF32Type();
    break;
  }
  if (a.getElementType() != expected)
    return emitOpError() << "precision '" << stringifyPrecision(getPrecision())
                         << "' needs " << expected << " operands, got "
                         << a.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// tile.cumsum / tile.reduce
//===----------------------------------------------------------------------===//

static LogicalResult verifyArithElement(Operation *op, Type type) {
  Type element = cast<RankedTensorType>(type).getElementType();
  if (!isa<FloatType>(element) && !element.isSignlessInteger())
    return op->emitOpError() << "needs a float or integer tile, got " << type;
  if (element.isSignlessInteger(1))
    return op->emitOpError() << "cannot accumulate an i1 tile";
  return success();
}

LogicalResult CumsumOp::verify() {
  if (failed(verifyTileType(*this, getType(), "tile")) ||
      failed(verifyArithElement(*this, getType())))
    return failure();
  return verifyAxis(*this, getAxis(),
                    cast<RankedTensorType>(getType()).getRank());
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyTileType(*this, getSource().getType(), "source tile")) ||
      failed(verifyArithElement(*this, getSource().getType())))
    return failure();
  auto source = cast<RankedTensorType>(getSource().getType());
  if (failed(verifyAxis(*this, getAxis(), source.getRank())))
    return failure();
  SmallVector<int64_t> expected(source.getShape());
  expected.erase(expected.begin() + getAxis());
  auto result = cast<RankedTensorType>(getType());
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != source.getElementType())
    return emitOpError() << "reducing " << source << " along axis " << getAxis()
                         << " gives "
                         << RankedTensorType::get(expected,
                                                  source.getElementType())
                         << ", not " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// tile.permute
//===----------------------------------------------------------------------===//

LogicalResult PermuteOp::verify() {
  if (failed(verifyTileType(*this, getSource().getType(), "source tile")))
    return failure();
  auto source = cast<RankedTensorType>(getSource().getType());
  ArrayRef<int64_t> perm = getPerm();
  int64_t rank = source.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOpError() << "permutation has " << perm.size()
                         << " entries for a rank-" << rank << " tile";
  llvm::SmallBitVector seen(rank);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen.test(p))
      return emitOpError() << "[" << llvm::make_range(perm.begin(), perm.end())
                           << "] is not a permutation of 0.." << rank - 1;
    seen.set(p);
  }
  SmallVector<int64_t> expected;
  for (int64_t p : perm)
    expected.push_back(source.getDimSize(p));
  auto result = cast<RankedTensorType>(getType());
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != source.getElementType())
    return emitOpError() << "permuting " << source << " by ["
                         << llvm::make_range(perm.begin(), perm.end())
                         << "] gives "
                         << RankedTensorType::get(expected,
                                                  source.getElementType())
                         << ", not " << result;
  return success();
}

/// Reshapes a splat constant; any other constant is left alone.
static Attribute foldSplat(Attribute operand, Type resultType) {
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(operand))
    return splat.resizeSplat(cast<ShapedType>(resultType));
  return {};
}

OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  // (An identity permute folds to its source only where it keeps the
  // layout: with tilegpu layouts it may also change it.)
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())) &&
      getSource().getType() == getType())
    return getSource();
  if (Attribute splat = foldSplat(adaptor.getSource(), getType()))
    return splat;
  // permute(permute(x, p), q): result dim k is inner dim q[k], which is x's
  // dim p[q[k]].
  if (auto inner = getSource().getDefiningOp<PermuteOp>()) {
    ArrayRef<int64_t> p = inner.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t q : perm)
      composed.push_back(p[q]);
    getSourceMutable().assign(inner.getSource());
    setPerm(composed);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())) &&
        getSource().getType() == getType())
      return getSource();
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  if (failed(verifyShapeChange(*this, getSource().getType(), getType())))
    return failure();
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getType());
  int64_t offset = result.getRank() - source.getRank();
  if (offset < 0)
    return emitOpError() << "cannot broadcast " << shapeStr(source.getShape())
                         << " to the lower-rank shape "
                         << shapeStr(result.getShape());
  for (int64_t i = 0; i < source.getRank(); ++i) {
    int64_t s = source.getDimSize(i), r = result.getDimSize(i + offset);
    if (s != r && s != 1)
      return emitOpError() << "cannot broadcast " << shapeStr(source.getShape())
                           << " to " << shapeStr(result.getShape())
                           << ": dimension " << i << " is " << s
                           << ", neither 1 nor " << r;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSource().getType() == getType())
    return getSource();
  return foldSplat(adaptor.getSource(), getType());
}

namespace {
/// broadcast(broadcast(x)) is one broadcast of x: broadcasting composes.
struct ComposeBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSource().getDefiningOp<BroadcastOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "source is not a broadcast");
    rewriter.modifyOpInPlace(
        op, [&] { op.getSourceMutable().assign(inner.getSource()); });
    return success();
  }
};

/// A broadcast splat is a bigger splat: no data movement is needed.
struct BroadcastOfSplat : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSource().getDefiningOp<tensor::SplatOp>();
    if (!splat)
      return rewriter.notifyMatchFailure(op, "source is not a tensor.splat");
    rewriter.replaceOpWithNewOp<tensor::SplatOp>(op, op.getType(),
                                                 splat.getInput());
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeBroadcasts, BroadcastOfSplat>(context);
}

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (failed(verifyShapeChange(*this, getSource().getType(), getType())))
    return failure();
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getType());
  if (source.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot reshape " << shapeStr(source.getShape())
                         << " (" << source.getNumElements() << " elements) to "
                         << shapeStr(result.getShape()) << " ("
                         << result.getNumElements() << " elements)";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSource().getType() == getType())
    return getSource();
  if (Attribute splat = foldSplat(adaptor.getSource(), getType()))
    return splat;
  // Row-major order is preserved by both reshapes, so one is enough.
  if (auto inner = getSource().getDefiningOp<ReshapeOp>()) {
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// tile.iota
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  if (failed(verifyTileType(*this, getType(), "result tile")))
    return failure();
  auto result = cast<RankedTensorType>(getType());
  Type element = result.getElementType();
  if (!element.isSignlessInteger(8) && !element.isSignlessInteger(16) &&
      !element.isSignlessInteger(32) && !element.isSignlessInteger(64))
    return emitOpError() << "needs a signless integer tile (i8..i64), got "
                         << element;
  if (failed(verifyAxis(*this, getAxis(), result.getRank())))
    return failure();
  int64_t width = element.getIntOrFloatBitWidth();
  if (width < 63 && result.getDimSize(getAxis()) > (int64_t(1) << (width - 1)))
    return emitOpError() << "values up to " << result.getDimSize(getAxis()) - 1
                         << " do not fit in " << element;
  return success();
}
