//===- TileGPUDialect.cpp - layouts and their distribution
//-----------------===//

#include "dialect/tilegpu/TileGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <set>

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

LogicalResult TileGPUDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto positive = [&](StringRef what) -> LogicalResult {
    auto integer = dyn_cast<IntegerAttr>(value);
    if (integer && integer.getType().isSignlessInteger() &&
        integer.getValue().sgt(0))
      return success();
    InFlightDiagnostic error = op->emitError()
                               << "'" << name << "' must be a positive "
                               << "integer (" << what << "), got ";
    if (isa<UnitAttr>(value))
      error << "unit";
    else
      error << value;
    return error;
  };
  if (name == "tilegpu.distance")
    return positive("loop iterations a copy is issued ahead");
  if (name == "tilegpu.latency")
    return positive("a load's latency class");
  if (name == getNumWarpsAttrName()) {
    auto integer = dyn_cast<IntegerAttr>(value);
    if (integer && integer.getType().isSignlessInteger() &&
        integer.getValue().getSignificantBits() <= 8) {
      int64_t warps = integer.getInt();
      if (warps >= 1 && warps <= 32 && llvm::isPowerOf2_64(warps))
        return success();
    }
    return op->emitError() << "'" << name << "' must be a power of two from 1 "
                           << "to 32 (warps per CTA), got " << value;
  }
  if (name == getTargetAttrName() && !isa<StringAttr>(value))
    return op->emitError() << "'" << name << "' must be a string (the "
                           << "target's name, e.g. \"sm_90a\"), got " << value;
  // The others (unit markers, the lowering's reports) are the passes' own.
  return success();
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

Attribute tessel::tilegpu::getLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  Attribute encoding = tensor.getEncoding();
  return isa_and_nonnull<BlockedLayoutAttr, MmaLayoutAttr, SliceLayoutAttr>(
             encoding)
             ? encoding
             : Attribute();
}

BlockedLayoutAttr tessel::tilegpu::getBlockedLayout(Type type) {
  return dyn_cast_or_null<BlockedLayoutAttr>(getLayout(type));
}

unsigned tessel::tilegpu::getNumWarps(Attribute layout) {
  if (auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout))
    return blocked.getNumWarps();
  if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(layout))
    return mma.getNumWarps();
  if (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layout))
    return getNumWarps(slice.getParent());
  return 0;
}

int64_t tessel::tilegpu::getLayoutRank(Attribute layout) {
  if (auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout))
    return blocked.getRank();
  if (isa_and_nonnull<MmaLayoutAttr>(layout))
    return 2;
  if (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layout)) {
    int64_t parent = getLayoutRank(slice.getParent());
    return parent > 0 ? parent - 1 : -1;
  }
  return -1;
}

std::optional<SmallVector<int64_t>>
tessel::tilegpu::alignUnitDims(ArrayRef<int64_t> source,
                               ArrayRef<int64_t> result) {
  SmallVector<int64_t> out;
  size_t i = 0;
  for (int64_t size : result) {
    // Skip source unit dimensions the result drops.
    while (i < source.size() && source[i] == 1 && size != 1)
      ++i;
    if (i < source.size() && source[i] == size) {
      out.push_back(i++);
      continue;
    }
    if (size != 1)
      return std::nullopt;
    out.push_back(-1);
  }
  while (i < source.size() && source[i] == 1)
    ++i;
  if (i != source.size())
    return std::nullopt;
  return out;
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  if (!isa<BlockedLayoutAttr, MmaLayoutAttr, SliceLayoutAttr>(parent))
    return emitError() << "slice layout needs a tilegpu layout as its parent";
  if (int64_t(dim) >= getLayoutRank(parent))
    return emitError() << "slice dimension " << dim
                       << " is not a dimension of the parent";
  return success();
}

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<unsigned> warpsPerCTA, bool transposed) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma layout is 2-D: warpsPerCTA needs 2 entries";
  for (unsigned w : warpsPerCTA)
    if (w == 0 || !llvm::isPowerOf2_32(w))
      return emitError() << "mma layout warps must be powers of two";
  if (warpsPerCTA[0] * warpsPerCTA[1] > 32)
    return emitError() << "mma layout spreads over more than 32 warps";
  return success();
}

MmaLayoutAttr MmaLayoutAttr::choose(MLIRContext *ctx, int64_t M, int64_t N,
                                    unsigned numWarps, bool warpgroups) {
  if (warpgroups) {
    auto wg = MmaLayoutAttr::get(ctx, {numWarps, 1});
    if (wg.fitsWgmma(M, N))
      return wg;
  }
  // Each warp reads the A rows and B columns of its blocks: spreading warps
  // along M re-reads B, along N re-reads A. Pick the split reading least.
  MmaLayoutAttr best;
  int64_t bestCost = 0;
  for (unsigned wm = numWarps; wm >= 1; wm /= 2) {
    unsigned wn = numWarps / wm;
    if (M % (16 * wm) || N % (8 * wn))
      continue;
    int64_t cost = M * wn + N * wm;
    if (!best || cost < bestCost) {
      best = MmaLayoutAttr::get(ctx, {wm, wn});
      bestCost = cost;
    }
  }
  return best;
}

Distribution::Distribution(ArrayRef<int64_t> tileShape, Attribute layoutAttr)
    : shape(tileShape.begin(), tileShape.end()), layout(layoutAttr) {
  size_t rank = shape.size();
  blocked = dyn_cast_or_null<BlockedLayoutAttr>(layoutAttr);
  if (auto slice = dyn_cast_or_null<SliceLayoutAttr>(layoutAttr)) {
    // The parent's distribution of the tile with a unit dimension put back;
    // its coordinate along that dimension is dropped and registers holding
    // the same element merged.
    unsigned cut = slice.getDim();
    SmallVector<int64_t> parentShape(shape);
    parentShape.insert(parentShape.begin() + cut, 1);
    Distribution parent(parentShape, slice.getParent());
    root = parent.root;
    threadsPerWarp = parent.threadsPerWarp;
    warpsPerCTA = parent.warpsPerCTA;
    order = parent.order;
    laneScale = parent.laneScale;
    warpScale = parent.warpScale;
    for (size_t d = 0; d < rank; ++d) {
      size_t pd = d < cut ? d : d + 1;
      dimMap.push_back(parent.dimMap[pd]);
      ctaTile.push_back(parent.ctaTile[pd]);
    }
    vectorWidth = cut + 1 == parentShape.size() ? 1 : parent.vectorWidth;
    std::set<SmallVector<int64_t>> seen;
    for (const SmallVector<int64_t> &offset : parent.regOffsets) {
      SmallVector<int64_t> kept(offset);
      kept.erase(kept.begin() + cut);
      if (seen.insert(kept).second)
        regOffsets.push_back(kept);
    }
    numRegisters = regOffsets.size();
    return;
  }
  root = layoutAttr;
  for (size_t d = 0; d < rank; ++d)
    dimMap.push_back(d);
  // Per dimension: registers of one pattern (`inner`), with offsets
  // `innerOffset(d, e)`; the pattern repeats every CTA tile.
  SmallVector<int64_t> inner(rank);
  std::function<int64_t(size_t, int64_t)> innerOffset;
  if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(layoutAttr)) {
    threadsPerWarp = {8, 4};
    warpsPerCTA = llvm::to_vector(mma.getWarpsPerCTA());
    order = {1, 0};
    laneScale = {1, 2};
    warpScale = {16, 8};
    ctaTile = {16 * int64_t(warpsPerCTA[0]), 8 * int64_t(warpsPerCTA[1])};
    inner = {2, 2};
    // Rows g and g + 8; columns 2t and 2t + 1.
    innerOffset = [](size_t d, int64_t e) { return d == 0 ? 8 * e : e; };
    vectorWidth = 2;
    if (mma.getTransposed()) {
      // Every per-dimension fact swapped: rows 2t and 2t + 1, columns g and
      // g + 8 (lane ids split over dimension 0 first, as the columns are
      // above); no two registers are neighbours along the last dimension.
      std::swap(threadsPerWarp[0], threadsPerWarp[1]);
      std::swap(warpsPerCTA[0], warpsPerCTA[1]);
      order = {0, 1};
      std::swap(laneScale[0], laneScale[1]);
      std::swap(warpScale[0], warpScale[1]);
      std::swap(ctaTile[0], ctaTile[1]);
      innerOffset = [](size_t d, int64_t e) { return d == 1 ? 8 * e : e; };
      vectorWidth = 1;
    }
  } else if (blocked) {
    threadsPerWarp = llvm::to_vector(blocked.getThreadsPerWarp());
    warpsPerCTA = llvm::to_vector(blocked.getWarpsPerCTA());
    order = llvm::to_vector(blocked.getOrder());
    for (size_t d = 0; d < rank; ++d) {
      int64_t spt = blocked.getSizePerThread()[d];
      laneScale.push_back(spt);
      warpScale.push_back(spt * threadsPerWarp[d]);
      ctaTile.push_back(spt * threadsPerWarp[d] * warpsPerCTA[d]);
      inner[d] = spt;
    }
    innerOffset = [](size_t, int64_t e) { return e; };
    vectorWidth = rank ? blocked.getSizePerThread().back() : 1;
  } else {
    // No layout (a rank-0 tile): one register, the same in every thread.
    numRegisters = 1;
    regOffsets.push_back(SmallVector<int64_t>(rank, 0));
    return;
  }
  SmallVector<int64_t> regShape(rank);
  for (size_t d = 0; d < rank; ++d)
    regShape[d] = std::max<int64_t>(1, shape[d] / ctaTile[d]) * inner[d];
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
      offset[d] = (rd / inner[d]) * ctaTile[d] + innerOffset(d, rd % inner[d]);
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
