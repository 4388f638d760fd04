//===- ConvertToLLVM.cpp - --convert-tilegpu-to-llvm
//-----------------------===//
//
// Lowers kernels whose tiles carry layouts (after --tilegpu-assign-layouts)
// into llvm.func kernels. This is an emitter rather than a pattern-based
// dialect conversion: every tile value becomes the list of scalars that the
// running thread holds (Distribution tells which tile coordinates those are),
// and each op is re-emitted on those scalars. Structured control flow is kept
// (scf.for/scf.if with the scalars as iter args and results) and lowered by the
// upstream scf -> cf -> llvm conversions that follow.
//
// Layout changes (permute, broadcast, reshape, cumsum, reduce) go through one
// shared-memory buffer: the portable baseline that later passes replace with
// shuffles and register-level layout conversions.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/tile/TileOps.h"
#include "dialect/tilegpu/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>

namespace tessel {
#define GEN_PASS_DEF_CONVERTTILEGPUTOLLVM
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using tilegpu::Distribution;

namespace {

constexpr StringLiteral kSharedName = "tessel_smem";

struct ViewParts {
  Value ptr;
  SmallVector<Value> sizes, strides; // i64
  tile::ViewType type;
};

Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

/// Bytes an element takes in memory (i1 is stored as a byte).
int64_t storageBytes(Type element) {
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

/// The part of load/store addressing shared by both: per register, whether it
/// is in bounds and its address; plus the vector groups that may be accessed
/// as one 16-byte (or narrower) access.
struct Access {
  SmallVector<Value> inBounds;      // i1 per register
  SmallVector<Value> address;       // ptr<1> per register
  int64_t vector = 1;               // registers per vector access
  SmallVector<Value> groupInBounds; // i1 per group of `vector` registers
};

class KernelEmitter {
public:
  KernelEmitter(func::FuncOp kernel, LLVM::GlobalOp shared)
      : kernel(kernel), shared(shared), b(kernel.getContext()) {}

  /// Builds the llvm.func; returns failure after reporting an error.
  FailureOr<LLVM::LLVMFuncOp> run();
  int64_t sharedBytesNeeded() const { return sharedBytes; }

private:
  func::FuncOp kernel;
  LLVM::GlobalOp shared;
  OpBuilder b;
  Location loc = UnknownLoc::get(kernel.getContext());
  DenseMap<Value, SmallVector<Value>> regs;
  DenseMap<Value, ViewParts> views;
  Value lane, warp; // i32
  int64_t sharedBytes = 0;
  int numWarps = 4;
  /// Views read and written since the last barrier: a thread may read or
  /// write an element another thread wrote or read, so a store after an
  /// access to the same view (or a load after a store) waits for the CTA.
  /// Distinct view arguments are assumed not to overlap.
  DenseSet<Value> loadedViews, storedViews;

  // Constants and small helpers.
  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value constantOf(Type type, double v) {
    if (auto ft = dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(b, loc, FloatAttr::get(ft, v));
    return arith::ConstantOp::create(
        b, loc, IntegerAttr::get(type, static_cast<int64_t>(v)));
  }
  Value toI64(Value v) {
    if (v.getType().isInteger(64))
      return v;
    return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
  }
  Value intrinsic(StringRef name, Type result, ValueRange args) {
    return LLVM::CallIntrinsicOp::create(b, loc, result, b.getStringAttr(name),
                                         args)
        .getResult(0);
  }

  LogicalResult fail(Operation *op, const Twine &message) {
    return op->emitOpError() << "cannot be lowered to the GPU yet: " << message;
  }

  Distribution distributionOf(Type type) {
    auto tensor = cast<RankedTensorType>(type);
    return Distribution(tensor.getShape(), tilegpu::getLayout(type));
  }

  /// Per dimension, where the running thread's pattern starts (i32).
  SmallVector<Value> threadBase(const Distribution &dist);
  /// The tile coordinates (i32) of register `r` of the running thread.
  SmallVector<Value> coordsOf(const Distribution &dist, ArrayRef<Value> base,
                              int64_t r);
  int64_t numRegisters(Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return 1;
    if (tensor.getRank() == 0)
      return 1;
    return distributionOf(type).numRegisters;
  }

  // Shared memory.
  Value sharedAddress(Value linear, Type element, int64_t byteOffset = 0);
  void barrier() {
    NVVM::Barrier0Op::create(b, loc);
    loadedViews.clear();
    storedViews.clear();
  }
  /// Marks the views a region reads and writes as accessed (for a loop body,
  /// whose next iteration follows its end).
  void noteAccesses(Operation *op) {
    op->walk([&](Operation *inner) {
      if (auto load = dyn_cast<tile::LoadOp>(inner))
        loadedViews.insert(load.getView());
      if (auto store = dyn_cast<tile::StoreOp>(inner))
        storedViews.insert(store.getView());
    });
  }
  /// True for the one thread copy of each element that stores it: where a
  /// CTA tile is larger than the tile, several threads hold each element.
  /// Null when every element has one holder.
  Value ownsRegister(const Distribution &dist, ArrayRef<Value> base, int64_t r);
  /// Writes a tile to shared memory in row-major order (after a barrier, so
  /// earlier readers are done), then waits for all writes.
  void tileToShared(Value tile);
  Value loadShared(Value linear, Type element, int64_t byteOffset = 0);
  void storeShared(Value linear, Value value, int64_t byteOffset = 0);
  /// Writes a tile row-major at `byteOffset` of shared memory (no barriers),
  /// rows `rowPad` elements longer than the shape says.
  void writeTile(Value tile, int64_t byteOffset, int64_t rowPad = 0);
  /// Reads the registers of a tile of `type` stored row-major at `byteOffset`.
  SmallVector<Value> readTile(RankedTensorType type, int64_t byteOffset,
                              int64_t rowPad = 0);
  /// Row-major position of `coords`; rows (the last dimension) are
  /// `rowPad` elements longer than the shape says when padding is asked for.
  Value linearIndex(ArrayRef<Value> coords, ArrayRef<int64_t> shape,
                    int64_t rowPad = 0);

  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation &op);
  /// Addresses and bounds of the elements a load or store touches.
  Access accessOf(Value view, ValueRange indices, RankedTensorType type,
                  std::optional<ArrayRef<int64_t>> squeeze,
                  const Distribution &dist);
  /// Whether the whole box of a load/store is inside the view (and, for
  /// vector accesses, has unit stride and aligned rows): one uniform test
  /// that lets interior tiles skip every per-element check.
  Value wholeTileFits(Value view, ValueRange indices, RankedTensorType tile,
                      std::optional<ArrayRef<int64_t>> squeeze, int64_t vector);
  LogicalResult emitLoad(tile::LoadOp op);
  LogicalResult emitStore(tile::StoreOp op);
  LogicalResult emitCumsum(tile::CumsumOp op);
  LogicalResult emitMma(tile::MmaOp op);
  LogicalResult emitCumsumInWarps(tile::CumsumOp op);
  LogicalResult emitReduce(tile::ReduceOp op);
  LogicalResult
  emitRemap(Operation *op,
            function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords);
  LogicalResult emitPermute(tile::PermuteOp op);
  LogicalResult emitRemapInWarp(
      Value source, Value result,
      function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords);
  LogicalResult emitElementwise(Operation &op);
  FailureOr<Value> emitMath(Operation &op, Value x);
  LogicalResult emitFor(scf::ForOp op);
  LogicalResult emitIf(scf::IfOp op);

  SmallVector<Value> flatten(ValueRange values) {
    SmallVector<Value> out;
    for (Value v : values)
      llvm::append_range(out, regs[v]);
    return out;
  }
  void unflatten(ValueRange values, ValueRange flat) {
    size_t k = 0;
    for (Value v : values) {
      int64_t n = numRegisters(v.getType());
      regs[v] = SmallVector<Value>(flat.begin() + k, flat.begin() + k + n);
      k += n;
    }
  }
  SmallVector<Type> flatTypes(TypeRange types) {
    SmallVector<Type> out;
    for (Type t : types)
      out.append(numRegisters(t), elementTypeOf(t));
    return out;
  }

  /// `cond ? thenValues : elseValues` as an scf.if (side effects allowed).
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            function_ref<SmallVector<Value>()> thenFn,
                            function_ref<SmallVector<Value>()> elseFn);
};

SmallVector<Value> KernelEmitter::threadBase(const Distribution &dist) {
  tilegpu::BlockedLayoutAttr layout = dist.layout;
  size_t rank = dist.shape.size();
  if (rank == 0 || layout.getRank() != rank)
    return SmallVector<Value>(rank, i32(0));
  SmallVector<Value> laneC(rank), warpC(rank);
  Value l = lane, w = warp;
  for (unsigned d : layout.getOrder()) {
    unsigned t = layout.getThreadsPerWarp()[d];
    laneC[d] = arith::RemUIOp::create(b, loc, l, i32(t));
    l = arith::DivUIOp::create(b, loc, l, i32(t));
    unsigned wp = layout.getWarpsPerCTA()[d];
    warpC[d] = arith::RemUIOp::create(b, loc, w, i32(wp));
    w = arith::DivUIOp::create(b, loc, w, i32(wp));
  }
  SmallVector<Value> base(rank);
  for (size_t d = 0; d < rank; ++d) {
    Value t = arith::MulIOp::create(b, loc, warpC[d],
                                    i32(layout.getThreadsPerWarp()[d]));
    t = arith::AddIOp::create(b, loc, t, laneC[d]);
    base[d] =
        arith::MulIOp::create(b, loc, t, i32(layout.getSizePerThread()[d]));
  }
  return base;
}

SmallVector<Value> KernelEmitter::coordsOf(const Distribution &dist,
                                           ArrayRef<Value> base, int64_t r) {
  SmallVector<Value> c;
  for (size_t d = 0; d < dist.shape.size(); ++d) {
    Value v =
        arith::AddIOp::create(b, loc, base[d], i32(dist.regOffsets[r][d]));
    // A CTA tile larger than the tile wraps around (shapes are powers of 2).
    if (dist.ctaTile[d] > dist.shape[d])
      v = arith::AndIOp::create(b, loc, v, i32(dist.shape[d] - 1));
    c.push_back(v);
  }
  return c;
}

Value KernelEmitter::ownsRegister(const Distribution &dist,
                                  ArrayRef<Value> base, int64_t r) {
  Value owns;
  for (size_t d = 0; d < dist.shape.size(); ++d) {
    if (dist.ctaTile[d] <= dist.shape[d])
      continue;
    Value unwrapped =
        arith::AddIOp::create(b, loc, base[d], i32(dist.regOffsets[r][d]));
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         unwrapped, i32(dist.shape[d]));
    owns = owns ? Value(arith::AndIOp::create(b, loc, owns, inside)) : inside;
  }
  return owns;
}

Value KernelEmitter::linearIndex(ArrayRef<Value> coords,
                                 ArrayRef<int64_t> shape, int64_t rowPad) {
  Value lin = i32(0);
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value term = arith::MulIOp::create(b, loc, coords[d], i32(stride));
    lin = arith::AddIOp::create(b, loc, lin, term);
    stride *= shape[d] + (d == int64_t(shape.size()) - 1 ? rowPad : 0);
  }
  return lin;
}

Value KernelEmitter::sharedAddress(Value linear, Type element,
                                   int64_t byteOffset) {
  Type storage = element.isInteger(1) ? b.getI8Type() : element;
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, shared);
  if (byteOffset)
    base = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{byteOffset});
  return LLVM::GEPOp::create(b, loc, ptrType, storage, base,
                             ValueRange{linear});
}

Value KernelEmitter::loadShared(Value linear, Type element,
                                int64_t byteOffset) {
  Type storage = element.isInteger(1) ? b.getI8Type() : element;
  Value v = LLVM::LoadOp::create(b, loc, storage,
                                 sharedAddress(linear, element, byteOffset));
  if (element.isInteger(1))
    v = arith::TruncIOp::create(b, loc, element, v);
  return v;
}

void KernelEmitter::storeShared(Value linear, Value value, int64_t byteOffset) {
  Type element = value.getType();
  Value addr = sharedAddress(linear, element, byteOffset);
  if (element.isInteger(1))
    value = arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, addr);
}

void KernelEmitter::writeTile(Value tile, int64_t byteOffset,
                              int64_t rowPad) {
  auto type = cast<RankedTensorType>(tile.getType());
  int64_t elements = type.getNumElements();
  if (rowPad && type.getRank() > 0)
    elements += elements / type.getShape().back() * rowPad;
  sharedBytes = std::max(sharedBytes,
                         byteOffset +
                             elements * storageBytes(type.getElementType()));
  if (type.getRank() == 0) {
    storeShared(i32(0), regs[tile][0], byteOffset);
    return;
  }
  Distribution dist = distributionOf(type);
  SmallVector<Value> base = threadBase(dist);
  for (int64_t r = 0; r < dist.numRegisters; ++r)
    storeShared(linearIndex(coordsOf(dist, base, r), type.getShape(), rowPad),
                regs[tile][r], byteOffset);
}

SmallVector<Value> KernelEmitter::readTile(RankedTensorType type,
                                           int64_t byteOffset, int64_t rowPad) {
  Distribution dist = distributionOf(type);
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> out;
  for (int64_t r = 0; r < dist.numRegisters; ++r)
    out.push_back(loadShared(
        linearIndex(coordsOf(dist, base, r), type.getShape(), rowPad),
        type.getElementType(), byteOffset));
  return out;
}

void KernelEmitter::tileToShared(Value tile) {
  barrier();
  writeTile(tile, 0);
  barrier();
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
  fill(ifOp.getThenRegion(), thenFn);
  fill(ifOp.getElseRegion(), elseFn);
  return SmallVector<Value>(ifOp.getResults());
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static Access planAccess(OpBuilder &, Location, const ViewParts &, ValueRange,
                         RankedTensorType, std::optional<ArrayRef<int64_t>>,
                         ArrayRef<Value>,
                         function_ref<SmallVector<Value>(int64_t)>,
                         const Distribution &);

Access KernelEmitter::accessOf(Value view, ValueRange indices,
                               RankedTensorType type,
                               std::optional<ArrayRef<int64_t>> squeeze,
                               const Distribution &dist) {
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> idx;
  for (Value i : indices)
    idx.push_back(regs[i][0]);
  return planAccess(
      b, loc, views[view], idx, type, squeeze, base,
      [&](int64_t r) { return coordsOf(dist, base, r); }, dist);
}

Value KernelEmitter::wholeTileFits(Value viewValue, ValueRange indices,
                                   RankedTensorType tile,
                                   std::optional<ArrayRef<int64_t>> squeeze,
                                   int64_t vector) {
  const ViewParts &view = views[viewValue];
  int64_t rank = view.type.getRank();
  ArrayRef<int64_t> sq = squeeze ? *squeeze : ArrayRef<int64_t>();
  int64_t bytes = storageBytes(tile.getElementType());
  Value ok = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  auto both = [&](Value c) { ok = arith::AndIOp::create(b, loc, ok, c); };
  Value offset = i64(0);
  int64_t t = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t box = llvm::is_contained(sq, d) ? 1 : tile.getDimSize(t++);
    Value origin =
        arith::MulIOp::create(b, loc, toI64(regs[indices[d]][0]), i64(box));
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, origin,
                               i64(0)));
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                               arith::AddIOp::create(b, loc, origin, i64(box)),
                               view.sizes[d]));
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, origin, view.strides[d]));
  }
  int64_t vb = vector * bytes;
  if (vector > 1) {
    if (!view.type.getUnitStride())
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                 view.strides[rank - 1], i64(1)));
    if (view.type.getAssumedAlignment() < vb) {
      Type storage = tile.getElementType();
      Value first = LLVM::GEPOp::create(b, loc, view.ptr.getType(), storage,
                                        view.ptr, ValueRange{offset});
      Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), first);
      both(arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(b, loc, address, i64(vb - 1)), i64(0)));
      for (int64_t d = 0; d + 1 < rank; ++d)
        both(arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::AndIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, view.strides[d], i64(bytes)),
                i64(vb - 1)),
            i64(0)));
    }
  }
  return ok;
}

LogicalResult KernelEmitter::emitLoad(tile::LoadOp op) {
  if (storedViews.contains(op.getView()))
    barrier();
  loadedViews.insert(op.getView());
  auto type = cast<RankedTensorType>(op.getType());
  Distribution dist = distributionOf(type);
  Access access =
      accessOf(op.getView(), op.getIndices(), type, op.getSqueeze(), dist);
  Type element = type.getElementType();
  double padValue = 0;
  if (op.getPadding() == tile::Padding::neg_inf)
    padValue = -INFINITY;
  else if (op.getPadding() == tile::Padding::nan)
    padValue = NAN;
  int64_t v = access.vector;
  int64_t bytes = storageBytes(element);
  auto vectorLoad = [&](int64_t g) -> SmallVector<Value> {
    auto vecType = VectorType::get({v}, element);
    Value vec =
        LLVM::LoadOp::create(b, loc, vecType, access.address[g * v], v * bytes);
    SmallVector<Value> parts;
    for (int64_t k = 0; k < v; ++k)
      parts.push_back(LLVM::ExtractElementOp::create(b, loc, vec, i32(k)));
    return parts;
  };
  // Interior tiles: every access unconditional.
  auto fast = [&]() -> SmallVector<Value> {
    SmallVector<Value> out;
    for (int64_t g = 0; g < dist.numRegisters / v; ++g) {
      if (v > 1) {
        llvm::append_range(out, vectorLoad(g));
        continue;
      }
      out.push_back(
          LLVM::LoadOp::create(b, loc, element, access.address[g], bytes));
    }
    return out;
  };
  // Border tiles: per element (or vector group) bounds and alignment.
  auto slow = [&]() -> SmallVector<Value> {
    SmallVector<Value> out(dist.numRegisters);
    for (int64_t g = 0; g < dist.numRegisters / v; ++g) {
      auto scalarLoads = [&]() {
        SmallVector<Value> vals;
        for (int64_t r = g * v; r < (g + 1) * v; ++r)
          vals.push_back(ifElse(
              access.inBounds[r], {element},
              [&]() -> SmallVector<Value> {
                return {LLVM::LoadOp::create(b, loc, element, access.address[r],
                                             bytes)};
              },
              [&]() -> SmallVector<Value> {
                return {constantOf(element, padValue)};
              })[0]);
        return vals;
      };
      SmallVector<Value> vals =
          v == 1 ? scalarLoads()
                 : ifElse(
                       access.groupInBounds[g], SmallVector<Type>(v, element),
                       [&] { return vectorLoad(g); }, scalarLoads);
      for (int64_t k = 0; k < v; ++k)
        out[g * v + k] = vals[k];
    }
    return out;
  };
  Value fits =
      wholeTileFits(op.getView(), op.getIndices(), type, op.getSqueeze(), v);
  regs[op.getResult()] =
      ifElse(fits, SmallVector<Type>(dist.numRegisters, element), fast, slow);
  return success();
}

LogicalResult KernelEmitter::emitStore(tile::StoreOp op) {
  if (storedViews.contains(op.getView()) || loadedViews.contains(op.getView()))
    barrier();
  storedViews.insert(op.getView());
  auto type = cast<RankedTensorType>(op.getValue().getType());
  Distribution dist = distributionOf(type);
  Access access =
      accessOf(op.getView(), op.getIndices(), type, op.getSqueeze(), dist);
  // Only one copy of a duplicated element is written.
  SmallVector<Value> base = threadBase(dist);
  bool duplicated = false;
  for (int64_t r = 0; r < dist.numRegisters; ++r) {
    Value owns = ownsRegister(dist, base, r);
    if (!owns)
      continue;
    duplicated = true;
    access.inBounds[r] =
        arith::AndIOp::create(b, loc, access.inBounds[r], owns);
    if (access.vector > 1 && r % access.vector == 0)
      access.groupInBounds[r / access.vector] = arith::AndIOp::create(
          b, loc, access.groupInBounds[r / access.vector], owns);
  }
  Type element = type.getElementType();
  int64_t bytes = storageBytes(element);
  ArrayRef<Value> values = regs[op.getValue()];
  int64_t v = access.vector;
  auto vectorStore = [&](int64_t g) {
    auto vecType = VectorType::get({v}, element);
    Value vec = LLVM::UndefOp::create(b, loc, vecType);
    for (int64_t k = 0; k < v; ++k)
      vec =
          LLVM::InsertElementOp::create(b, loc, vec, values[g * v + k], i32(k));
    LLVM::StoreOp::create(b, loc, vec, access.address[g * v], v * bytes);
  };
  // Interior tiles without duplicated elements: every access unconditional.
  auto fast = [&]() -> SmallVector<Value> {
    for (int64_t g = 0; g < dist.numRegisters / v; ++g) {
      if (v > 1)
        vectorStore(g);
      else
        LLVM::StoreOp::create(b, loc, values[g], access.address[g], bytes);
    }
    return {};
  };
  auto slow = [&]() -> SmallVector<Value> {
    for (int64_t g = 0; g < dist.numRegisters / v; ++g) {
      auto scalarStores = [&]() {
        for (int64_t r = g * v; r < (g + 1) * v; ++r)
          ifElse(
              access.inBounds[r], {},
              [&]() -> SmallVector<Value> {
                LLVM::StoreOp::create(b, loc, values[r], access.address[r],
                                      bytes);
                return {};
              },
              [&]() -> SmallVector<Value> { return {}; });
        return SmallVector<Value>{};
      };
      if (v == 1) {
        scalarStores();
        continue;
      }
      ifElse(
          access.groupInBounds[g], {},
          [&]() -> SmallVector<Value> {
            vectorStore(g);
            return {};
          },
          scalarStores);
    }
    return {};
  };
  if (duplicated) {
    slow();
    return success();
  }
  Value fits =
      wholeTileFits(op.getView(), op.getIndices(), type, op.getSqueeze(), v);
  ifElse(fits, {}, fast, slow);
  return success();
}

/// `base` is where the running thread's pattern starts in the tile,
/// `coordsOf(r)` the (wrapped) tile coordinates of register r.
static Access planAccess(OpBuilder &b, Location loc, const ViewParts &view,
                         ValueRange indices, RankedTensorType tile,
                         std::optional<ArrayRef<int64_t>> squeeze,
                         ArrayRef<Value> base,
                         function_ref<SmallVector<Value>(int64_t)> coordsOf,
                         const Distribution &dist) {
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  int64_t rank = view.type.getRank();
  ArrayRef<int64_t> sq = squeeze ? *squeeze : ArrayRef<int64_t>();
  // View dimension -> tile dimension (-1 when squeezed), and the box.
  SmallVector<int64_t> tileDim(rank, -1), box(rank, 1);
  int64_t t = 0;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(sq, d)) {
      tileDim[d] = t;
      box[d] = tile.getDimSize(t++);
    }
  Type element = tile.getElementType();
  int64_t bytes = storageBytes(element);
  // Origins of the box along each view dimension.
  SmallVector<Value> origin;
  for (int64_t d = 0; d < rank; ++d) {
    Value i = arith::ExtSIOp::create(b, loc, b.getI64Type(), indices[d]);
    origin.push_back(arith::MulIOp::create(b, loc, i, c64(box[d])));
  }
  Access access;
  // Vector accesses need the tile's last dimension along the view's last,
  // unit stride there and an aligned first element. What the view type
  // promises is used statically; what it does not is checked at run time,
  // per group, beside the bounds (one uniform compare, one AND on the
  // address), with element accesses as the fallback.
  bool lastIsTileDim =
      tile.getRank() > 0 && tileDim[rank - 1] == tile.getRank() - 1;
  int64_t width = 1;
  if (lastIsTileDim)
    width = std::min<int64_t>({int64_t(dist.layout.getSizePerThread().back()),
                               16 / bytes, dist.shape.back()});
  if (width > 1 && !element.isInteger(1))
    access.vector = width;
  bool checkStride = !view.type.getUnitStride();
  bool checkAlign = view.type.getAssumedAlignment() < width * bytes;
  Value unitStride;
  if (access.vector > 1 && checkStride)
    unitStride = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       view.strides[rank - 1], c64(1));
  Type ptrType = view.ptr.getType();
  Type storage = element.isInteger(1) ? b.getI8Type() : element;
  // Without wrap-around, register r sits at a constant offset from the
  // thread's first element: the bounds and the address are computed once per
  // thread, plus one compare and one constant multiple of a stride per
  // (dimension, offset) that actually varies.
  bool wraps = false;
  for (int64_t d = 0; d < tile.getRank(); ++d)
    wraps |= dist.ctaTile[d] > dist.shape[d];
  SmallVector<Value> first(rank), room(rank);
  Value threadInBounds, threadPtr;
  if (!wraps) {
    Value offset = c64(0);
    threadInBounds = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    for (int64_t d = 0; d < rank; ++d) {
      first[d] = origin[d];
      if (tileDim[d] >= 0)
        first[d] = arith::AddIOp::create(
            b, loc, first[d],
            arith::ExtSIOp::create(b, loc, b.getI64Type(), base[tileDim[d]]));
      threadInBounds = arith::AndIOp::create(
          b, loc, threadInBounds,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, first[d],
                                c64(0)));
      room[d] = arith::SubIOp::create(b, loc, view.sizes[d], first[d]);
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, first[d], view.strides[d]));
    }
    threadPtr = LLVM::GEPOp::create(b, loc, ptrType, storage, view.ptr,
                                    ValueRange{offset});
  }
  // A vector group: in bounds, and, where the view type does not promise
  // them, unit stride and an aligned first element (run-time checks).
  auto groupOk = [&](Value inb, Value lastOk) -> Value {
    Value ok = arith::AndIOp::create(b, loc, inb, lastOk);
    if (unitStride)
      ok = arith::AndIOp::create(b, loc, ok, unitStride);
    if (checkAlign) {
      Value address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                               access.address.back());
      Value low = arith::AndIOp::create(b, loc, address,
                                        c64(access.vector * bytes - 1));
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, c64(0)));
    }
    return ok;
  };
  DenseMap<std::pair<int64_t, int64_t>, Value> fits, steps;
  for (int64_t r = 0; r < dist.numRegisters && !wraps; ++r) {
    Value inb = threadInBounds, offset;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t delta = tileDim[d] >= 0 ? dist.regOffsets[r][tileDim[d]] : 0;
      Value &fit = fits[{d, delta}];
      if (!fit)
        fit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, room[d],
                                    c64(delta));
      inb = arith::AndIOp::create(b, loc, inb, fit);
      if (delta == 0)
        continue;
      Value &step = steps[{d, delta}];
      if (!step)
        step = arith::MulIOp::create(b, loc, view.strides[d], c64(delta));
      offset =
          offset ? Value(arith::AddIOp::create(b, loc, offset, step)) : step;
    }
    access.inBounds.push_back(inb);
    access.address.push_back(
        offset ? Value(LLVM::GEPOp::create(b, loc, ptrType, storage, threadPtr,
                                           ValueRange{offset}))
               : threadPtr);
    if (access.vector > 1 && r % access.vector == 0) {
      int64_t delta = dist.regOffsets[r][tile.getRank() - 1];
      Value lastOk =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                room[rank - 1], c64(delta + access.vector - 1));
      access.groupInBounds.push_back(groupOk(inb, lastOk));
    }
  }
  for (int64_t r = 0; r < dist.numRegisters && wraps; ++r) {
    SmallVector<Value> coords = coordsOf(r);
    Value inb = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value offset = c64(0);
    Value lastGlobal;
    for (int64_t d = 0; d < rank; ++d) {
      Value g = origin[d];
      if (tileDim[d] >= 0)
        g = arith::AddIOp::create(
            b, loc, g,
            arith::ExtSIOp::create(b, loc, b.getI64Type(), coords[tileDim[d]]));
      if (d == rank - 1)
        lastGlobal = g;
      Value lo =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, g, c64(0));
      Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, g,
                                       view.sizes[d]);
      inb = arith::AndIOp::create(b, loc, inb, lo);
      inb = arith::AndIOp::create(b, loc, inb, hi);
      offset = arith::AddIOp::create(
          b, loc, offset, arith::MulIOp::create(b, loc, g, view.strides[d]));
    }
    access.inBounds.push_back(inb);
    access.address.push_back(LLVM::GEPOp::create(b, loc, ptrType, storage,
                                                 view.ptr, ValueRange{offset}));
    if (access.vector > 1 && r % access.vector == 0) {
      // The group is in bounds when its first and last elements are (only
      // the last coordinate varies inside a group).
      Value lastOk = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::slt,
          arith::AddIOp::create(b, loc, lastGlobal, c64(access.vector - 1)),
          view.sizes[rank - 1]);
      access.groupInBounds.push_back(groupOk(inb, lastOk));
    }
  }
  return access;
}

//===----------------------------------------------------------------------===//
// Scans, reductions, shape changes
//===----------------------------------------------------------------------===//

/// tile.mma on the portable path: mma.sync.aligned (m16n8k16 for bf16/f16,
/// m16n8k8 for tf32) on every target. Operands and accumulator are staged
/// row-major in shared memory; warp w computes the 16x8 sub-tiles w, w + W,
/// ... of the result, reading its fragments from shared memory in the
/// register layout the PTX ISA specifies (groupID = lane / 4, threadID_in_group
/// = lane % 4), and writes the result back for the blocked layout to read.
LogicalResult KernelEmitter::emitMma(tile::MmaOp op) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
          N = bType.getDimSize(1);
  Type element = aType.getElementType();
  bool tf32 = op.getPrecision() == tile::Precision::tf32;
  int64_t kStep = tf32 ? 8 : 16;
  if (M % 16 || N % 8 || K % kStep)
    return fail(op, "the mma.sync path needs M % 16 == 0, N % 8 == 0 and K % " +
                        Twine(kStep) + " == 0, got " + Twine(M) + "x" +
                        Twine(N) + "x" + Twine(K));
  int64_t eb = storageBytes(element);
  auto align16 = [](int64_t v) { return (v + 15) / 16 * 16; };
  // 16-bit operands: rows padded by 16 bytes, so that the eight 16-byte rows
  // each ldmatrix phase reads fall in distinct banks (and stay 16-byte
  // aligned, as ldmatrix requires).
  int64_t pad = tf32 ? 0 : 8;
  int64_t pitchA = K + pad, pitchB = N + pad;
  int64_t offB = align16(M * pitchA * eb),
          offC = align16(offB + K * pitchB * eb);
  barrier();
  writeTile(op.getA(), 0, pad);
  writeTile(op.getB(), offB, pad);
  writeTile(op.getAcc(), offC);
  barrier();

  Type f32Type = b.getF32Type(), i32Type = b.getI32Type();
  int64_t subN = N / 8, numSub = (M / 16) * subN;
  int64_t rounds = (numSub + numWarps - 1) / numWarps;
  Value g = arith::ShRUIOp::create(b, loc, lane, i32(2));
  Value t = arith::AndIOp::create(b, loc, lane, i32(3));
  Value laneMod16 = arith::AndIOp::create(b, loc, lane, i32(15));
  Value laneHalf8 = arith::MulIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, lane, i32(4)), i32(8));
  auto loop = scf::ForOp::create(b, loc, i32(0), i32(rounds), i32(1));
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = loop.getBody();
    if (!body->empty())
      body->back().erase();
    b.setInsertionPointToEnd(body);
    Value sub = arith::AddIOp::create(
        b, loc, warp,
        arith::MulIOp::create(b, loc, loop.getInductionVar(), i32(numWarps)));
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, sub,
                                         i32(numSub));
    ifElse(
        active, {},
        [&]() -> SmallVector<Value> {
          Value m0 = arith::MulIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, sub, i32(subN)), i32(16));
          Value n0 = arith::MulIOp::create(
              b, loc, arith::RemUIOp::create(b, loc, sub, i32(subN)), i32(8));
          auto at = [&](Value row, Value col, int64_t cols) -> Value {
            return arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, row, i32(cols)), col);
          };
          auto plus = [&](Value v, int64_t c) -> Value {
            return c ? Value(arith::AddIOp::create(b, loc, v, i32(c))) : v;
          };
          Value rowLo = arith::AddIOp::create(b, loc, m0, g),
                rowHi = plus(rowLo, 8);
          Value col2 = arith::AddIOp::create(
              b, loc, n0, arith::MulIOp::create(b, loc, t, i32(2)));
          SmallVector<Value> cIdx = {
              at(rowLo, col2, N), at(rowLo, plus(col2, 1), N),
              at(rowHi, col2, N), at(rowHi, plus(col2, 1), N)};
          SmallVector<Value> acc;
          for (Value idx : cIdx)
            acc.push_back(loadShared(idx, f32Type, offC));
          // A operand element (row, k) and B operand element (k, col).
          auto aAt = [&](Value row, Value k) {
            return loadShared(at(row, k, pitchA), element, 0);
          };
          auto bAt = [&](Value k, Value col) {
            return loadShared(at(k, col, pitchB), element, offB);
          };
          // `count` 8x8 b16 matrices from the rows whose element index
          // (at byte offset `off`) each lane gives, as mma operand registers.
          auto ldmatrix = [&](Value index, int64_t off, int count,
                              bool trans) {
            auto structType = LLVM::LLVMStructType::getLiteral(
                b.getContext(), SmallVector<Type>(count, i32Type));
            Value m = NVVM::LdMatrixOp::create(
                b, loc, structType, sharedAddress(index, element, off), count,
                trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
                NVVM::LdStMatrixEltType::B16);
            SmallVector<Value> out;
            for (int i = 0; i < count; ++i) {
              Value v = LLVM::ExtractValueOp::create(b, loc, m, i);
              if (element.isF16()) // NVVM takes f16 pairs as vector<2xf16>
                v = LLVM::BitcastOp::create(
                    b, loc, VectorType::get({2}, element), v);
              out.push_back(v);
            }
            return out;
          };
          auto toTf32 = [&](Value x) {
            return intrinsic("llvm.nvvm.f2tf32.rna", i32Type, {x});
          };
          Value colB = arith::AddIOp::create(b, loc, n0, g);
          for (int64_t k0 = 0; k0 < K; k0 += kStep) {
            SmallVector<Value> aFrag, bFrag;
            if (tf32) {
              Value k = plus(t, k0);
              aFrag = {toTf32(aAt(rowLo, k)), toTf32(aAt(rowHi, k)),
                       toTf32(aAt(rowLo, plus(k, 4))),
                       toTf32(aAt(rowHi, plus(k, 4)))};
              bFrag = {toTf32(bAt(k, colB)), toTf32(bAt(plus(k, 4), colB))};
            } else {
              // ldmatrix: lane i names row i % 16 of the 16x16 A block (its
              // left or right half for i < 16 or not): four 8x8 matrices in
              // the order of the mma's a0..a3. B (k x n, row-major) is read
              // transposed: lanes 0..15 name rows k0..k0+15 at column n0.
              Value aRow = arith::AddIOp::create(b, loc, m0, laneMod16);
              Value aCol = plus(laneHalf8, k0);
              aFrag = ldmatrix(at(aRow, aCol, pitchA), 0, 4, false);
              Value bRow = plus(laneMod16, k0);
              bFrag = ldmatrix(at(bRow, n0, pitchB), offB, 2, true);
            }
            auto resultType = LLVM::LLVMStructType::getLiteral(
                b.getContext(), {f32Type, f32Type, f32Type, f32Type});
            NVVM::MMATypes ptx = tf32               ? NVVM::MMATypes::tf32
                                 : element.isBF16() ? NVVM::MMATypes::bf16
                                                    : NVVM::MMATypes::f16;
            Value d = NVVM::MmaOp::create(
                b, loc, resultType, aFrag, bFrag, acc, {16, 8, kStep},
                std::nullopt, std::nullopt,
                std::array<NVVM::MMATypes, 2>{ptx, ptx},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            for (int64_t i = 0; i < 4; ++i)
              acc[i] = LLVM::ExtractValueOp::create(b, loc, d, i);
          }
          for (auto [idx, v] : llvm::zip(cIdx, acc))
            storeShared(idx, v, offC);
          return {};
        },
        [&]() -> SmallVector<Value> { return {}; });
    scf::YieldOp::create(b, loc);
  }
  barrier();
  regs[op.getResult()] = readTile(cType, offC);
  return success();
}

/// A scan along the layout's fastest lane dimension, when one warp spans the
/// whole axis per CTA tile: each thread scans its own contiguous elements,
/// lanes combine their totals with shfl.sync.up (Kogge-Stone), and the CTA
/// tiles repeating along the axis carry their totals forward, broadcast from
/// the last lane. No shared memory, no barriers.
LogicalResult KernelEmitter::emitCumsumInWarps(tile::CumsumOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  Type element = type.getElementType();
  Distribution dist = distributionOf(type);
  int64_t axis = op.getAxis(), rank = type.getRank();
  tilegpu::BlockedLayoutAttr layout = dist.layout;
  bool reverse = op.getReverse();
  int64_t spt = layout.getSizePerThread()[axis];
  int64_t lanes = layout.getThreadsPerWarp()[axis];
  int64_t reps =
      std::max<int64_t>(1, type.getDimSize(axis) / dist.ctaTile[axis]);
  bool isFloat = element.isF32();
  auto add = [&](Value x, Value y) -> Value {
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  };
  Value zero = constantOf(element, 0);
  Value fullMask = i32(-1);
  // Lane coordinate along the axis (the axis is the fastest lane dimension).
  Value laneC = arith::RemUIOp::create(b, loc, lane, i32(lanes));
  // Registers of a line along the axis: row-major over the register shape,
  // the axis split into (rep, element) with stride `axisStride`.
  SmallVector<int64_t> regShape(rank);
  for (int64_t d = 0; d < rank; ++d)
    regShape[d] = std::max<int64_t>(1, type.getDimSize(d) / dist.ctaTile[d]) *
                  layout.getSizePerThread()[d];
  int64_t axisStride = 1;
  for (int64_t d = rank - 1; d > axis; --d)
    axisStride *= regShape[d];
  SmallVector<Value> values(regs[op.getSource()]);
  SmallVector<Value> out(values.size());
  for (int64_t r0 = 0; r0 < dist.numRegisters; ++r0) {
    if ((r0 / axisStride) % regShape[axis] != 0)
      continue; // not the start of a line
    Value carry = zero;
    for (int64_t jj = 0; jj < reps; ++jj) {
      int64_t j = reverse ? reps - 1 - jj : jj;
      // 1. This thread's elements of CTA tile j, scanned in order.
      SmallVector<int64_t> idx;
      for (int64_t e = 0; e < spt; ++e)
        idx.push_back(r0 +
                      (j * spt + (reverse ? spt - 1 - e : e)) * axisStride);
      Value running = zero;
      SmallVector<Value> local;
      for (int64_t k : idx) {
        running = add(running, values[k]);
        local.push_back(running);
      }
      // 2. Inclusive scan of the thread totals across the lanes.
      Value incl = running;
      for (int64_t d = 1; d < lanes; d *= 2) {
        auto kind = NVVM::ShflKindAttr::get(b.getContext(),
                                            reverse ? NVVM::ShflKind::down
                                                    : NVVM::ShflKind::up);
        Value clamp = i32(reverse ? 31 : 0);
        Value other = NVVM::ShflOp::create(b, loc, element, fullMask, incl,
                                           i32(d), clamp, kind, UnitAttr());
        Value has =
            reverse ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            laneC, i32(lanes - d))
                    : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                            laneC, i32(d));
        incl = arith::SelectOp::create(b, loc, has, add(incl, other), incl);
      }
      // 3. Everything before this thread: the inclusive sum of the previous
      // lane (not incl - running: that cancels, and inf - inf is NaN).
      auto stepKind = NVVM::ShflKindAttr::get(
          b.getContext(), reverse ? NVVM::ShflKind::down : NVVM::ShflKind::up);
      Value previous =
          NVVM::ShflOp::create(b, loc, element, fullMask, incl, i32(1),
                               i32(reverse ? 31 : 0), stepKind, UnitAttr());
      Value isFirst =
          reverse ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          laneC, i32(lanes - 1))
                  : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          laneC, i32(0));
      Value exclusive =
          arith::SelectOp::create(b, loc, isFirst, zero, previous);
      Value prefix = add(exclusive, carry);
      for (auto [e, k] : llvm::enumerate(idx))
        out[k] = add(local[e], prefix);
      // 4. The tile's total, from the lane at the end of the axis.
      Value lastLane = arith::AddIOp::create(
          b, loc, arith::SubIOp::create(b, loc, lane, laneC),
          i32(reverse ? 0 : lanes - 1));
      auto idxKind =
          NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::idx);
      Value total =
          NVVM::ShflOp::create(b, loc, element, fullMask, incl, lastLane,
                               i32(31), idxKind, UnitAttr());
      carry = add(carry, total);
    }
  }
  regs[op.getResult()] = out;
  return success();
}

LogicalResult KernelEmitter::emitCumsum(tile::CumsumOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  {
    Distribution dist = distributionOf(type);
    int64_t axis = op.getAxis();
    tilegpu::BlockedLayoutAttr layout = dist.layout;
    Type element = type.getElementType();
    if (layout.getOrder()[0] == axis && layout.getWarpsPerCTA()[axis] == 1 &&
        dist.ctaTile[axis] <= type.getDimSize(axis) &&
        (element.isF32() || element.isInteger(32)))
      return emitCumsumInWarps(op);
  }
  Type element = type.getElementType();
  Distribution dist = distributionOf(type);
  int64_t axis = op.getAxis(), len = type.getDimSize(axis);
  tileToShared(op.getSource());
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> values(regs[op.getSource()]);
  SmallVector<SmallVector<Value>> coords;
  SmallVector<Value> linear;
  for (int64_t r = 0; r < dist.numRegisters; ++r) {
    coords.push_back(coordsOf(dist, base, r));
    linear.push_back(linearIndex(coords.back(), type.getShape()));
  }
  int64_t axisStride = 1;
  for (int64_t d = type.getRank() - 1; d > axis; --d)
    axisStride *= type.getDimSize(d);
  bool isFloat = isa<FloatType>(element);
  // Hillis-Steele: after the step with offset k, each element holds the sum
  // of the 2k elements ending at it. All threads read, then all write.
  for (int64_t k = 1; k < len; k *= 2) {
    SmallVector<Value> next;
    for (int64_t r = 0; r < dist.numRegisters; ++r) {
      Value c = coords[r][axis];
      Value has = op.getReverse()
                      ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              c, i32(len - k))
                      : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                              c, i32(k));
      Value delta = i32(op.getReverse() ? k * axisStride : -k * axisStride);
      Value src = arith::AddIOp::create(b, loc, linear[r], delta);
      src = arith::SelectOp::create(b, loc, has, src, linear[r]);
      Value other = loadShared(src, element);
      Value sum = isFloat
                      ? Value(arith::AddFOp::create(b, loc, values[r], other))
                      : Value(arith::AddIOp::create(b, loc, values[r], other));
      next.push_back(arith::SelectOp::create(b, loc, has, sum, values[r]));
    }
    values = next;
    barrier();
    for (int64_t r = 0; r < dist.numRegisters; ++r)
      storeShared(linear[r], values[r]);
    barrier();
  }
  regs[op.getResult()] = values;
  return success();
}

LogicalResult KernelEmitter::emitReduce(tile::ReduceOp op) {
  auto source = cast<RankedTensorType>(op.getSource().getType());
  auto result = cast<RankedTensorType>(op.getType());
  Type element = source.getElementType();
  int64_t axis = op.getAxis(), len = source.getDimSize(axis);
  tileToShared(op.getSource());
  bool isFloat = isa<FloatType>(element);
  auto combine = [&](Value a, Value c) -> Value {
    switch (op.getKind()) {
    case tile::ReduceKind::sum:
      return isFloat ? Value(arith::AddFOp::create(b, loc, a, c))
                     : Value(arith::AddIOp::create(b, loc, a, c));
    case tile::ReduceKind::max:
      return isFloat ? Value(arith::MaximumFOp::create(b, loc, a, c))
                     : Value(arith::MaxSIOp::create(b, loc, a, c));
    case tile::ReduceKind::min:
      return isFloat ? Value(arith::MinimumFOp::create(b, loc, a, c))
                     : Value(arith::MinSIOp::create(b, loc, a, c));
    }
    return a;
  };
  int64_t axisStride = 1;
  for (int64_t d = source.getRank() - 1; d > axis; --d)
    axisStride *= source.getDimSize(d);
  auto reduceAt = [&](ArrayRef<Value> outCoords) {
    SmallVector<Value> srcCoords(outCoords);
    srcCoords.insert(srcCoords.begin() + axis, i32(0));
    Value start = linearIndex(srcCoords, source.getShape());
    Value init = loadShared(start, element);
    auto loop =
        scf::ForOp::create(b, loc, i32(1), i32(len), i32(1), ValueRange{init});
    OpBuilder::InsertionGuard guard(b);
    Block *body = loop.getBody();
    if (!body->empty())
      body->back().erase();
    b.setInsertionPointToEnd(body);
    Value offset =
        arith::MulIOp::create(b, loc, loop.getInductionVar(), i32(axisStride));
    Value x = loadShared(arith::AddIOp::create(b, loc, start, offset), element);
    scf::YieldOp::create(b, loc, combine(loop.getRegionIterArgs()[0], x));
    return loop.getResult(0);
  };
  SmallVector<Value> out;
  if (result.getRank() == 0) {
    out.push_back(reduceAt({}));
  } else {
    Distribution dist = distributionOf(result);
    SmallVector<Value> base = threadBase(dist);
    for (int64_t r = 0; r < dist.numRegisters; ++r)
      out.push_back(reduceAt(coordsOf(dist, base, r)));
  }
  regs[op.getResult()] = out;
  return success();
}

/// A shape change whose source fits in one warp (every warp holds all of
/// it, a few registers per lane) needs no shared memory: each result element
/// is fetched from the lane that holds it with shfl.sync.idx, one shuffle per
/// source register, and the right register selected. Small tiles such as a
/// row of per-head constants broadcast over a block take this path.
LogicalResult KernelEmitter::emitRemapInWarp(
    Value source, Value result,
    function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords) {
  auto srcType = cast<RankedTensorType>(source.getType());
  auto type = cast<RankedTensorType>(result.getType());
  Type element = type.getElementType();
  if (srcType.getRank() == 0 || type.getRank() == 0 ||
      !(element.isF32() || element.isInteger(32)))
    return failure();
  Distribution src = distributionOf(srcType);
  tilegpu::BlockedLayoutAttr layout = src.layout;
  int64_t rank = srcType.getRank();
  for (int64_t d = 0; d < rank; ++d)
    if (int64_t(layout.getSizePerThread()[d]) * layout.getThreadsPerWarp()[d] <
        srcType.getDimSize(d))
      return failure(); // a warp does not hold the whole tile
  if (src.numRegisters > 8)
    return failure();
  // Lane strides along each dimension (lanes are split in `order`).
  SmallVector<int64_t> laneStride(rank);
  int64_t stride = 1;
  for (unsigned d : layout.getOrder()) {
    laneStride[d] = stride;
    stride *= layout.getThreadsPerWarp()[d];
  }
  Distribution dist = distributionOf(type);
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> out;
  auto idxKind = NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::idx);
  for (int64_t r = 0; r < dist.numRegisters; ++r) {
    SmallVector<Value> c = sourceCoords(coordsOf(dist, base, r));
    Value srcLane = i32(0), which = i32(0);
    int64_t regStride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t spt = layout.getSizePerThread()[d];
      Value laneC = arith::RemUIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, c[d], i32(spt)),
          i32(layout.getThreadsPerWarp()[d]));
      srcLane = arith::AddIOp::create(
          b, loc, srcLane,
          arith::MulIOp::create(b, loc, laneC, i32(laneStride[d])));
      Value e = arith::RemUIOp::create(b, loc, c[d], i32(spt));
      which = arith::AddIOp::create(
          b, loc, which, arith::MulIOp::create(b, loc, e, i32(regStride)));
      regStride *= spt;
    }
    Value v;
    for (int64_t j = 0; j < src.numRegisters; ++j) {
      Value shuffled =
          NVVM::ShflOp::create(b, loc, element, i32(-1), regs[source][j],
                               srcLane, i32(31), idxKind, UnitAttr());
      if (!v) {
        v = shuffled;
        continue;
      }
      Value isJ = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, which,
                                        i32(j));
      v = arith::SelectOp::create(b, loc, isJ, shuffled, v);
    }
    out.push_back(v);
  }
  regs[result] = out;
  return success();
}

LogicalResult KernelEmitter::emitRemap(
    Operation *op,
    function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords) {
  Value source = op->getOperand(0), result = op->getResult(0);
  auto srcType = cast<RankedTensorType>(source.getType());
  auto type = cast<RankedTensorType>(result.getType());
  if (succeeded(emitRemapInWarp(source, result, sourceCoords)))
    return success();
  tileToShared(source);
  SmallVector<Value> out;
  if (type.getRank() == 0) {
    out.push_back(loadShared(i32(0), type.getElementType()));
  } else {
    Distribution dist = distributionOf(type);
    SmallVector<Value> base = threadBase(dist);
    for (int64_t r = 0; r < dist.numRegisters; ++r) {
      SmallVector<Value> src = sourceCoords(coordsOf(dist, base, r));
      out.push_back(loadShared(linearIndex(src, srcType.getShape()),
                               type.getElementType()));
    }
  }
  regs[result] = out;
  return success();
}

/// A permute writes the source into shared memory in the *result's*
/// row-major order, so that the reads, where each thread takes consecutive
/// elements of the result's fastest dimension, are consecutive addresses:
/// bank-conflict free and merged into vector loads. (Writing in source order
/// makes a transpose's reads stride by a whole row: a 32-way bank conflict.)
LogicalResult KernelEmitter::emitPermute(tile::PermuteOp op) {
  auto srcType = cast<RankedTensorType>(op.getSource().getType());
  auto type = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> perm = op.getPerm();
  // Rows whose length is a multiple of the 32 banks would put the elements
  // a warp writes (consecutive along the source's fast dimension, i.e. down
  // a column here) into few banks; two extra words per row spread them.
  int64_t bytes = storageBytes(type.getElementType());
  int64_t rowBytes = type.getShape().back() * bytes;
  int64_t rowPad =
      type.getRank() >= 2 && bytes == 4 && rowBytes % 128 == 0 ? 2 : 0;
  int64_t rows = type.getNumElements() / type.getShape().back();
  sharedBytes =
      std::max(sharedBytes, rows * (type.getShape().back() + rowPad) * bytes);
  barrier();
  Distribution srcDist = distributionOf(srcType);
  SmallVector<Value> srcBase = threadBase(srcDist);
  for (int64_t r = 0; r < srcDist.numRegisters; ++r) {
    SmallVector<Value> c = coordsOf(srcDist, srcBase, r), out(c.size());
    for (size_t k = 0; k < c.size(); ++k)
      out[k] = c[perm[k]];
    storeShared(linearIndex(out, type.getShape(), rowPad),
                regs[op.getSource()][r]);
  }
  barrier();
  regs[op.getResult()] = readTile(type, 0, rowPad);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

FailureOr<Value> KernelEmitter::emitMath(Operation &op, Value x) {
  Type type = x.getType();
  if (!isa<FloatType>(type)) {
    if (isa<math::AbsIOp>(op))
      return Value(math::AbsIOp::create(b, loc, x));
    return fail(&op, "integer operand");
  }
  // bf16/f16/f64 compute in f32 (f64 loses precision: reported below).
  if (type.isF64())
    return fail(&op, "f64 transcendental functions are not supported");
  Type f32Type = b.getF32Type();
  if (!type.isF32())
    x = arith::ExtFOp::create(b, loc, f32Type, x);
  const double log2e = 1.4426950408889634;
  auto ex2 = [&](Value v) {
    return intrinsic("llvm.nvvm.ex2.approx.f32", f32Type, {v});
  };
  auto i32c = [&](int64_t v) -> Value { return i32(v); };
  auto fma = [&](Value a, Value m, Value c) -> Value {
    return math::FmaOp::create(b, loc, a, m, c);
  };
  // Divisions inside these expansions need ~1 ulp, not IEEE rounding:
  // div.approx.f32 (afn) is a few instructions where div.rn.f32 is a
  // subroutine with a slow path.
  auto fastDiv = [&](Value num, Value den) -> Value {
    return arith::DivFOp::create(b, loc, num, den, arith::FastMathFlags::afn);
  };
  auto polynomial = [&](Value x, ArrayRef<double> coeffs) -> Value {
    // Horner, highest degree first.
    Value acc = f32(coeffs.front());
    for (double c : coeffs.drop_front())
      acc = fma(acc, x, f32(c));
    return acc;
  };
  auto expf = [&](Value v) -> Value {
    // 2^(v log2 e) with ex2.approx (2 ulp); the rounding error of the
    // product, recovered exactly by an FMA, is applied to first order.
    Value p = arith::MulFOp::create(b, loc, v, f32(log2e));
    Value err = fma(v, f32(log2e), arith::NegFOp::create(b, loc, p));
    Value e = ex2(p);
    // At +-inf and on overflow the correction is NaN or would turn inf into
    // NaN: use the plain power there.
    Value c = arith::MulFOp::create(b, loc, err, f32(0.6931471805599453));
    Value cNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, c, c);
    c = arith::SelectOp::create(b, loc, cNaN, f32(0.0), c);
    Value eInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, e,
                                       f32(INFINITY));
    return arith::SelectOp::create(b, loc, eInf, e, fma(e, c, e));
  };
  // log(v) to ~1 ulp: v = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) =
  // 2 atanh(s), s = (m - 1)/(m + 1), |s| < 0.172, by its odd series.
  auto logf = [&](Value v) -> Value {
    // Subnormals: scale into the normal range first.
    Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v,
                                       f32(1.1754943508222875e-38));
    Value scaled = arith::SelectOp::create(
        b, loc, tiny, arith::MulFOp::create(b, loc, v, f32(8388608.0)), v);
    Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), scaled);
    Value e = arith::SubIOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, bits, i32c(23)), i32c(255)),
        i32c(127));
    e = arith::SubIOp::create(
        b, loc, e, arith::SelectOp::create(b, loc, tiny, i32c(23), i32c(0)));
    Value m = arith::BitcastOp::create(
        b, loc, f32Type,
        arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, bits, i32c(0x7fffff)),
            i32c(0x3f800000)));
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, m,
                                      f32(1.4142135623730951));
    m = arith::SelectOp::create(b, loc, big,
                                arith::MulFOp::create(b, loc, m, f32(0.5)), m);
    e = arith::AddIOp::create(
        b, loc, e, arith::SelectOp::create(b, loc, big, i32c(1), i32c(0)));
    Value sNum = arith::SubFOp::create(b, loc, m, f32(1.0));
    Value sDen = arith::AddFOp::create(b, loc, m, f32(1.0));
    Value sv = fastDiv(sNum, sDen);
    Value s2 = arith::MulFOp::create(b, loc, sv, sv);
    Value series =
        polynomial(s2, {2.0 / 11, 2.0 / 9, 2.0 / 7, 2.0 / 5, 2.0 / 3, 2.0});
    Value logm = arith::MulFOp::create(b, loc, series, sv);
    Value ef = arith::SIToFPOp::create(b, loc, f32Type, e);
    Value y = fma(ef, f32(0.693145751953125), logm);
    y = fma(ef, f32(1.428606765330187e-06), y);
    // log(0) = -inf, log(negative) = NaN, log(inf) = inf, log(NaN) = NaN.
    Value zero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v, f32(0.0));
    Value neg =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULT, v, f32(0.0));
    Value inf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v,
                                      f32(INFINITY));
    y = arith::SelectOp::create(b, loc, inf, v, y);
    y = arith::SelectOp::create(b, loc, zero, f32(-INFINITY), y);
    return arith::SelectOp::create(b, loc, neg, f32(NAN), y);
  };
  Value y;
  if (isa<math::Exp2Op>(op))
    y = ex2(x);
  else if (isa<math::ExpOp>(op))
    y = expf(x);
  else if (isa<math::Log2Op>(op))
    y = arith::MulFOp::create(b, loc, logf(x), f32(log2e));
  else if (isa<math::LogOp>(op))
    y = logf(x);
  else if (isa<math::Log1pOp>(op)) {
    // On [-1/2, 1]: log1p(x) = 2 atanh(s), s = x / (2 + x), |s| <= 1/3, by
    // its odd series (no range reduction, no special cases). Elsewhere
    // log(u) * x / (u - 1) with u = 1 + x, exact when u == 1. A branch, not
    // both: arguments usually fall on one side (softplus: always (0, 1]).
    Value small = arith::AndIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, f32(-0.5)),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, f32(1.0)));
    y = ifElse(
        small, {f32Type},
        [&]() -> SmallVector<Value> {
          Value sv = fastDiv(x, arith::AddFOp::create(b, loc, f32(2.0), x));
          Value s2 = arith::MulFOp::create(b, loc, sv, sv);
          Value series = polynomial(s2, {2.0 / 13, 2.0 / 11, 2.0 / 9, 2.0 / 7,
                                         2.0 / 5, 2.0 / 3, 2.0});
          return {arith::MulFOp::create(b, loc, series, sv)};
        },
        [&]() -> SmallVector<Value> {
          Value u = arith::AddFOp::create(b, loc, f32(1.0), x);
          Value d = arith::SubFOp::create(b, loc, u, f32(1.0));
          // x / d is 1 when u - 1 recovers x exactly (large or infinite x,
          // where div.approx would not).
          Value exact =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d, x);
          Value ratio =
              arith::SelectOp::create(b, loc, exact, f32(1.0), fastDiv(x, d));
          Value scaled = arith::MulFOp::create(b, loc, logf(u), ratio);
          Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                             d, f32(0.0));
          return {arith::SelectOp::create(b, loc, same, x, scaled)};
        })[0];
  } else if (isa<math::SqrtOp>(op))
    y = LLVM::SqrtOp::create(b, loc, x);
  else if (isa<math::RsqrtOp>(op))
    y = arith::DivFOp::create(b, loc, f32(1.0),
                              LLVM::SqrtOp::create(b, loc, x));
  else if (isa<math::AbsFOp>(op))
    y = LLVM::FAbsOp::create(b, loc, x);
  else if (isa<math::TanhOp>(op)) {
    // |x| >= 0.3: sign(x) (1 - 2 / (exp(2|x|) + 1)), saturating at +-inf;
    // below, the odd Taylor series to x^11 (the subtraction would cancel).
    Value ax = LLVM::FAbsOp::create(b, loc, x);
    Value e = expf(arith::MulFOp::create(b, loc, ax, f32(2.0)));
    Value den = arith::AddFOp::create(b, loc, e, f32(1.0));
    Value big = arith::SubFOp::create(
        b, loc, f32(1.0), arith::DivFOp::create(b, loc, f32(2.0), den));
    big = LLVM::CopySignOp::create(b, loc, big, x);
    Value x2 = arith::MulFOp::create(b, loc, x, x);
    Value series = polynomial(x2, {-1382.0 / 155925, 62.0 / 2835, -17.0 / 315,
                                   2.0 / 15, -1.0 / 3, 1.0});
    Value smallY = arith::MulFOp::create(b, loc, series, x);
    Value isSmall =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, ax, f32(0.3));
    y = arith::SelectOp::create(b, loc, isSmall, smallY, big);
  } else if (isa<math::FmaOp>(op)) {
    return fail(&op, "fma with a single operand");
  } else {
    return fail(&op, "unsupported math function");
  }
  if (!type.isF32())
    y = arith::TruncFOp::create(b, loc, type, y);
  return y;
}

LogicalResult KernelEmitter::emitElementwise(Operation &op) {
  Value result = op.getResult(0);
  int64_t n = numRegisters(result.getType());
  Type element = elementTypeOf(result.getType());
  SmallVector<Value> out;
  for (int64_t r = 0; r < n; ++r) {
    SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      ArrayRef<Value> rs = regs[operand];
      operands.push_back(rs.size() == 1 ? rs[0] : rs[r]);
    }
    if (op.getDialect()->getNamespace() == "math") {
      FailureOr<Value> y = emitMath(op, operands[0]);
      if (failed(y))
        return failure();
      out.push_back(*y);
      continue;
    }
    OperationState state(loc, op.getName());
    state.addOperands(operands);
    state.addAttributes(op.getAttrs());
    state.addTypes(element);
    out.push_back(b.create(state)->getResult(0));
  }
  regs[result] = out;
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult KernelEmitter::emitFor(scf::ForOp op) {
  // The body follows itself: what it accesses counts as accessed at its
  // start, and after the loop.
  noteAccesses(op);
  auto loop = scf::ForOp::create(
      b, loc, regs[op.getLowerBound()][0], regs[op.getUpperBound()][0],
      regs[op.getStep()][0], flatten(op.getInitArgs()));
  OpBuilder::InsertionGuard guard(b);
  Block *body = loop.getBody();
  if (!body->empty())
    body->back().erase();
  b.setInsertionPointToEnd(body);
  regs[op.getInductionVar()] = {loop.getInductionVar()};
  unflatten(op.getRegionIterArgs(), loop.getRegionIterArgs());
  if (failed(emitBlock(*op.getBody())))
    return failure();
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  scf::YieldOp::create(b, loc, flatten(yield.getOperands()));
  b.setInsertionPointAfter(loop);
  noteAccesses(op);
  unflatten(op.getResults(), loop.getResults());
  return success();
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
  if (failed(fill(ifOp.getThenRegion(), op.getThenRegion())))
    return failure();
  if (hasElse) {
    if (failed(fill(ifOp.getElseRegion(), op.getElseRegion())))
      return failure();
  } else {
    Region empty;
    if (failed(fill(ifOp.getElseRegion(), empty)))
      return failure();
  }
  unflatten(op.getResults(), ifOp.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult KernelEmitter::emitBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue; // handled by the parent
    loc = op.getLoc();
    if (failed(emitOp(op)))
      return failure();
  }
  return success();
}

LogicalResult KernelEmitter::emitOp(Operation &op) {
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return emitLoad(load);
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return emitStore(store);
  if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
    Type t = b.getI32Type();
    Value v = pid.getDim() == 0   ? Value(NVVM::BlockIdXOp::create(b, loc, t))
              : pid.getDim() == 1 ? Value(NVVM::BlockIdYOp::create(b, loc, t))
                                  : Value(NVVM::BlockIdZOp::create(b, loc, t));
    regs[pid.getResult()] = {v};
    return success();
  }
  if (auto num = dyn_cast<tile::NumProgramsOp>(op)) {
    Type t = b.getI32Type();
    Value v = num.getDim() == 0   ? Value(NVVM::GridDimXOp::create(b, loc, t))
              : num.getDim() == 1 ? Value(NVVM::GridDimYOp::create(b, loc, t))
                                  : Value(NVVM::GridDimZOp::create(b, loc, t));
    regs[num.getResult()] = {v};
    return success();
  }
  if (auto dimOp = dyn_cast<tile::DimOp>(op)) {
    Value size = views[dimOp.getView()].sizes[dimOp.getDim()];
    regs[dimOp.getResult()] = {
        arith::TruncIOp::create(b, loc, b.getI32Type(), size)};
    return success();
  }
  if (auto cumsum = dyn_cast<tile::CumsumOp>(op))
    return emitCumsum(cumsum);
  if (auto reduce = dyn_cast<tile::ReduceOp>(op))
    return emitReduce(reduce);
  if (auto permute = dyn_cast<tile::PermuteOp>(op))
    return emitPermute(permute);
  if (auto bc = dyn_cast<tile::BroadcastOp>(op)) {
    auto srcType = cast<RankedTensorType>(bc.getSource().getType());
    int64_t offset =
        cast<RankedTensorType>(bc.getType()).getRank() - srcType.getRank();
    return emitRemap(&op, [&](ArrayRef<Value> out) {
      SmallVector<Value> src;
      for (int64_t d = 0; d < srcType.getRank(); ++d)
        src.push_back(srcType.getDimSize(d) == 1 ? i32(0) : out[d + offset]);
      return src;
    });
  }
  if (auto rs = dyn_cast<tile::ReshapeOp>(op)) {
    auto srcType = cast<RankedTensorType>(rs.getSource().getType());
    auto type = cast<RankedTensorType>(rs.getType());
    return emitRemap(&op, [&](ArrayRef<Value> out) {
      // Row-major linear index in the result, unflattened in the source.
      Value lin = linearIndex(out, type.getShape());
      SmallVector<Value> src(srcType.getRank());
      for (int64_t d = srcType.getRank() - 1; d >= 0; --d) {
        src[d] =
            arith::RemUIOp::create(b, loc, lin, i32(srcType.getDimSize(d)));
        lin = arith::DivUIOp::create(b, loc, lin, i32(srcType.getDimSize(d)));
      }
      return src;
    });
  }
  if (auto cvt = dyn_cast<tilegpu::ConvertLayoutOp>(op))
    return emitRemap(
        &op, [](ArrayRef<Value> out) { return SmallVector<Value>(out); });
  if (auto iota = dyn_cast<tile::IotaOp>(op)) {
    auto type = cast<RankedTensorType>(iota.getType());
    Distribution dist = distributionOf(type);
    SmallVector<Value> base = threadBase(dist);
    SmallVector<Value> out;
    for (int64_t r = 0; r < dist.numRegisters; ++r) {
      Value c = coordsOf(dist, base, r)[iota.getAxis()];
      Type element = type.getElementType();
      if (element.getIntOrFloatBitWidth() > 32)
        c = arith::ExtSIOp::create(b, loc, element, c);
      else if (element.getIntOrFloatBitWidth() < 32)
        c = arith::TruncIOp::create(b, loc, element, c);
      out.push_back(c);
    }
    regs[iota.getResult()] = out;
    return success();
  }
  if (auto mma = dyn_cast<tile::MmaOp>(op))
    return emitMma(mma);
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = constant.getValue();
    Type type = constant.getType();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (!dense.isSplat())
        return fail(&op, "non-splat tile constants");
      Value scalar = arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      regs[constant.getResult()] =
          SmallVector<Value>(numRegisters(type), scalar);
      return success();
    }
    regs[constant.getResult()] = {
        arith::ConstantOp::create(b, loc, cast<TypedAttr>(value))};
    return success();
  }
  if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    regs[splat.getResult()] = SmallVector<Value>(numRegisters(splat.getType()),
                                                 regs[splat.getInput()][0]);
    return success();
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    if (cast<RankedTensorType>(extract.getTensor().getType()).getRank() != 0)
      return fail(&op, "extracting from a tile of rank > 0");
    regs[extract.getResult()] = {regs[extract.getTensor()][0]};
    return success();
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return emitFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return emitIf(ifOp);
  if (op.getNumResults() == 1 && op.getNumRegions() == 0 && op.getDialect() &&
      (op.getDialect()->getNamespace() == "arith" ||
       op.getDialect()->getNamespace() == "math"))
    return emitElementwise(op);
  return fail(&op, "no lowering for this op");
}

FailureOr<LLVM::LLVMFuncOp> KernelEmitter::run() {
  MLIRContext *ctx = kernel.getContext();
  auto numWarpsAttr = kernel->getAttrOfType<IntegerAttr>(
      tilegpu::TileGPUDialect::getNumWarpsAttrName());
  if (!numWarpsAttr)
    return kernel.emitError("run --tilegpu-assign-layouts first: the kernel "
                            "has no tilegpu.num_warps");
  numWarps = static_cast<int>(numWarpsAttr.getInt());

  // Layouts must describe their tiles on this CTA: one entry per dimension,
  // all the kernel's warps, no thread holding more than a dimension.
  WalkResult checked = kernel.walk([&](Operation *op) -> WalkResult {
    for (Value v : op->getResults()) {
      auto tensor = dyn_cast<RankedTensorType>(v.getType());
      if (!tensor || tensor.getRank() == 0)
        continue;
      auto layout = tilegpu::getLayout(tensor);
      if (!layout) {
        op->emitOpError("has a tile without a layout; run "
                        "--tilegpu-assign-layouts first");
        return WalkResult::interrupt();
      }
      if (layout.getRank() != tensor.getRank() ||
          static_cast<int>(layout.getNumWarps()) != numWarps) {
        op->emitOpError() << "layout " << layout << " does not fit a "
                          << tensor.getRank() << "-D tile on " << numWarps
                          << " warps";
        return WalkResult::interrupt();
      }
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        if (layout.getSizePerThread()[d] > tensor.getDimSize(d)) {
          op->emitOpError()
              << "layout " << layout << " gives a thread "
              << layout.getSizePerThread()[d] << " elements of a dimension of "
              << tensor.getDimSize(d);
          return WalkResult::interrupt();
        }
    }
    return WalkResult::advance();
  });
  if (checked.wasInterrupted())
    return failure();

  // The ABI: a view is (pointer, sizes..., strides...), scalars as they are.
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
  SmallVector<Type> params;
  for (Type t : kernel.getArgumentTypes()) {
    if (auto view = dyn_cast<tile::ViewType>(t)) {
      params.push_back(globalPtr);
      params.append(2 * view.getRank(), IntegerType::get(ctx, 64));
    } else if (t.isIntOrFloat()) {
      params.push_back(t);
    } else {
      return kernel.emitError("kernel argument of type ")
             << t << " cannot be passed to the GPU";
    }
  }
  b.setInsertionPoint(kernel);
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params);
  auto fn =
      LLVM::LLVMFuncOp::create(b, kernel.getLoc(), kernel.getSymName(), fnType);
  fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  fn->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
              b.getDenseI32ArrayAttr({32 * numWarps, 1, 1}));
  // The occupancy hint becomes .minnctapersm: ptxas then limits registers so
  // that many CTAs fit on an SM.
  auto module = kernel->getParentOfType<ModuleOp>();
  auto targetAttr = module ? module->getAttrOfType<StringAttr>(
                                 tilegpu::TileGPUDialect::getTargetAttrName())
                           : StringAttr();
  if (auto hints = kernel->getAttrOfType<tile::HintsAttr>(
          tile::TileDialect::getHintsAttrName()))
    if (auto occupancy = dyn_cast_or_null<IntegerAttr>(hints.lookup(
            targetAttr ? targetAttr.getValue() : "sm_90a", "occupancy")))
      fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(occupancy.getInt()));
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  loc = kernel.getLoc();

  unsigned k = 0;
  for (BlockArgument arg : kernel.getArguments()) {
    if (auto view = dyn_cast<tile::ViewType>(arg.getType())) {
      ViewParts parts;
      parts.type = view;
      parts.ptr = entry->getArgument(k++);
      for (int64_t d = 0; d < view.getRank(); ++d)
        parts.sizes.push_back(entry->getArgument(k++));
      for (int64_t d = 0; d < view.getRank(); ++d)
        parts.strides.push_back(entry->getArgument(k++));
      views[arg] = parts;
    } else {
      regs[arg] = {entry->getArgument(k++)};
    }
  }
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  lane = arith::AndIOp::create(b, loc, tid, i32(31));
  warp = arith::ShRUIOp::create(b, loc, tid, i32(5));

  if (failed(emitBlock(kernel.getBody().front())))
    return failure();
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return fn;
}

struct ConvertTileGPUToLLVM
    : public tessel::impl::ConvertTileGPUToLLVMBase<ConvertTileGPUToLLVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    // One shared buffer per module, sized for the largest use.
    auto shared = LLVM::GlobalOp::create(
        b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 1),
        /*isConstant=*/false, LLVM::Linkage::Internal, kSharedName, Attribute(),
        /*alignment=*/16, /*addrSpace=*/3);
    int64_t sharedBytes = 0;
    SmallVector<func::FuncOp> kernels(module.getOps<func::FuncOp>());
    for (func::FuncOp kernel : kernels) {
      KernelEmitter emitter(kernel, shared);
      FailureOr<LLVM::LLVMFuncOp> fn = emitter.run();
      if (failed(fn))
        return signalPassFailure();
      sharedBytes = std::max(sharedBytes, emitter.sharedBytesNeeded());
      kernel.erase();
    }
    if (sharedBytes == 0) {
      shared.erase();
      return;
    }
    shared.setGlobalType(LLVM::LLVMArrayType::get(b.getI8Type(), sharedBytes));
    module->setAttr("tilegpu.shared_bytes", b.getI64IntegerAttr(sharedBytes));
  }
};

} // namespace
