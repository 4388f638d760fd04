//===- TileGPUDialect.cpp - layouts and their distribution
//-----------------===//

#include "dialect/tilegpu/TileGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel::tilegpu;

#include "dialect/tilegpu/TileGPUDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialect/tilegpu/TileGPUAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "dialect/tilegpu/TileGPUOps.cpp.inc"

void TileGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/tilegpu/TileGPUAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/tilegpu/TileGPUOps.cpp.inc"
      >();
}

LogicalResult BlockedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0 || sizePerThread.size() != rank ||
      threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "blocked layout arrays must all have the same "
                          "non-zero length";
  unsigned lanes = 1, warps = 1;
  SmallVector<bool> seen(rank, false);
  for (size_t d = 0; d < rank; ++d) {
    if (order[d] >= rank || seen[order[d]])
      return emitError() << "blocked layout 'order' must be a permutation";
    seen[order[d]] = true;
    for (unsigned v : {sizePerThread[d], threadsPerWarp[d], warpsPerCTA[d]})
      if (v == 0 || !llvm::isPowerOf2_32(v))
        return emitError() << "blocked layout sizes must be powers of two";
    lanes *= threadsPerWarp[d];
    warps *= warpsPerCTA[d];
  }
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32, got " << lanes;
  if (warps > 32)
    return emitError() << "warpsPerCTA multiplies to " << warps
                       << ", more than 32 warps";
  return success();
}

unsigned BlockedLayoutAttr::getNumWarps() const {
  unsigned n = 1;
  for (unsigned w : getWarpsPerCTA())
    n *= w;
  return n;
}

BlockedLayoutAttr BlockedLayoutAttr::getDefault(MLIRContext *ctx,
                                                ArrayRef<int64_t> shape,
                                                unsigned elementBytes,
                                                unsigned numWarps) {
  size_t rank = std::max<size_t>(shape.size(), 1);
  SmallVector<int64_t> dims(shape.begin(), shape.end());
  if (dims.empty())
    dims.push_back(1);
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
  for (size_t i = 0; i < rank; ++i)
    order.push_back(rank - 1 - i); // last dimension fastest
  size_t last = rank - 1;
  spt[last] = static_cast<unsigned>(std::min<int64_t>(
      std::max<unsigned>(1, 16 / std::max(1u, elementBytes)), dims[last]));
  // Lanes: fill dimensions from the fastest; leftovers replicate along the
  // slowest dimension.
  unsigned lanes = 32;
  for (unsigned d : order) {
    int64_t want = std::max<int64_t>(1, dims[d] / spt[d]);
    unsigned take = static_cast<unsigned>(std::min<int64_t>(lanes, want));
    take = llvm::PowerOf2Ceil(take) > lanes ? lanes : take;
    tpw[d] = take;
    lanes /= take;
  }
  tpw[order.back()] *= lanes;
  // Warps: fill dimensions from the slowest.
  unsigned warps = numWarps;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    unsigned d = *it;
    int64_t want = std::max<int64_t>(1, dims[d] / (spt[d] * tpw[d]));
    unsigned take = static_cast<unsigned>(std::min<int64_t>(warps, want));
    wpc[d] = take;
    warps /= take;
  }
  wpc[order.back()] *= warps;
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

BlockedLayoutAttr tessel::tilegpu::getLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_or_null<BlockedLayoutAttr>(tensor.getEncoding())
                : BlockedLayoutAttr();
}

Distribution::Distribution(ArrayRef<int64_t> tileShape,
                           BlockedLayoutAttr layout)
    : shape(tileShape.begin(), tileShape.end()), layout(layout) {
  size_t rank = shape.size();
  SmallVector<int64_t> regShape(rank);
  for (size_t d = 0; d < rank; ++d) {
    ctaTile.push_back(int64_t(layout.getSizePerThread()[d]) *
                      layout.getThreadsPerWarp()[d] *
                      layout.getWarpsPerCTA()[d]);
    int64_t reps = std::max<int64_t>(1, shape[d] / ctaTile[d]);
    regShape[d] = reps * layout.getSizePerThread()[d];
  }
  numRegisters = 1;
  for (int64_t r : regShape)
    numRegisters *= r;
  // Registers in row-major order of regShape: consecutive registers are
  // consecutive elements along the last dimension (vector accesses).
  for (int64_t r = 0; r < numRegisters; ++r) {
    SmallVector<int64_t> offset(rank);
    int64_t rest = r;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t rd = rest % regShape[d];
      rest /= regShape[d];
      unsigned spt = layout.getSizePerThread()[d];
      offset[d] = (rd / spt) * ctaTile[d] + rd % spt;
    }
    regOffsets.push_back(offset);
  }
}

LogicalResult ConvertLayoutOp::verify() {
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getType());
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError() << "changes the tile (" << source << " to " << result
                         << "), not only its layout";
  return success();
}
