//===- EmitTiles.cpp - registers and staged tiles -------------------------===//
//
// Which tile elements the running thread holds (threadBase, coordsOf,
// ownsRegister), and tiles written to and read from shared memory (writeTile
// with st.shared or stmatrix, readTile).
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

namespace tessel::codegen::emitter {

using namespace mlir;

std::pair<SmallVector<Value>, SmallVector<Value>>
KernelEmitter::threadIds(const Distribution &dist) {
  SmallVector<Value> laneC(dist.order.size()), warpC(dist.order.size());
  Value l = lane, w = warp;
  for (unsigned d : dist.order) {
    unsigned t = dist.threadsPerWarp[d];
    laneC[d] = arith::RemUIOp::create(b, loc, l, i32(t));
    l = arith::DivUIOp::create(b, loc, l, i32(t));
    unsigned wp = dist.warpsPerCTA[d];
    warpC[d] = arith::RemUIOp::create(b, loc, w, i32(wp));
    w = arith::DivUIOp::create(b, loc, w, i32(wp));
  }
  return {laneC, warpC};
}

SmallVector<Value> KernelEmitter::threadBase(const Distribution &dist) {
  size_t rank = dist.shape.size(), rootRank = dist.order.size();
  if (rank == 0 || rootRank == 0)
    return SmallVector<Value>(rank, i32(0));
  auto [laneC, warpC] = threadIds(dist);
  SmallVector<Value> base(rank);
  for (size_t d = 0; d < rank; ++d) {
    unsigned rd = dist.dimMap[d];
    base[d] = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, warpC[rd], i32(dist.warpScale[rd])),
        arith::MulIOp::create(b, loc, laneC[rd], i32(dist.laneScale[rd])));
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
  auto both = [&](Value c) {
    owns = owns ? Value(arith::AndIOp::create(b, loc, owns, c)) : c;
  };
  for (size_t d = 0; d < dist.shape.size(); ++d) {
    if (dist.ctaTile[d] <= dist.shape[d])
      continue;
    Value unwrapped =
        arith::AddIOp::create(b, loc, base[d], i32(dist.regOffsets[r][d]));
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, unwrapped,
                               i32(dist.shape[d])));
  }
  // A sliced layout: the threads that differ only along a removed root
  // dimension hold the same elements; the first of them owns them.
  SmallVector<bool> kept(dist.order.size(), false);
  for (unsigned rd : dist.dimMap)
    kept[rd] = true;
  auto [laneC, warpC] = threadIds(dist);
  for (unsigned d : dist.order) {
    if (kept[d])
      continue;
    if (dist.threadsPerWarp[d] > 1)
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneC[d],
                                 i32(0)));
    if (dist.warpsPerCTA[d] > 1)
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpC[d],
                                 i32(0)));
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

Value KernelEmitter::stagedIndex(ArrayRef<Value> coords,
                                 ArrayRef<int64_t> shape, StageLayout layout,
                                 int64_t elementBytes) {
  if (layout.swizzled) {
    // The TMA's 128-byte swizzle: 128-byte panels of all `rows` rows, one
    // after the other; in row r the 16-byte chunk c of the panel sits at
    // chunk c ^ (r % 8) (an XOR of the element index's chunk bits).
    int64_t panel = 128 / elementBytes, chunk = 16 / elementBytes;
    Value row = coords[0], col = coords[1];
    Value inPanel = arith::AndIOp::create(b, loc, col, i32(panel - 1));
    Value swizzle = arith::MulIOp::create(
        b, loc, arith::AndIOp::create(b, loc, row, i32(7)), i32(chunk));
    Value start = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, col, i32(panel)),
            i32(shape[0] * panel)),
        arith::MulIOp::create(b, loc, row, i32(panel)));
    return arith::AddIOp::create(
        b, loc, start, arith::XOrIOp::create(b, loc, inPanel, swizzle));
  }
  if (!layout.core)
    return linearIndex(coords, shape, layout.rowPad);
  // The tile's 8 x cw blocks row-major (cw = 16 bytes of elements: 8
  // 16-bit, 4 f32), each block row-major: block (row / 8, col / cw), row
  // row % 8, element col % cw. Whether K runs
  // along the columns (K-major) or the rows (M/N-major) only changes which
  // block distance the descriptor calls LBO and which SBO (emitAsyncMma).
  Value row = coords[0], col = coords[1];
  int64_t cols = shape[1], cw = 16 / elementBytes;
  auto shr = [&](Value v, int64_t bits) {
    return arith::ShRUIOp::create(b, loc, v, i32(bits));
  };
  auto mask = [&](Value v, int64_t m) {
    return arith::AndIOp::create(b, loc, v, i32(m));
  };
  auto mul = [&](Value v, int64_t c) {
    return arith::MulIOp::create(b, loc, v, i32(c));
  };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); };
  Value core = add(mul(shr(row, 3), cols / cw), shr(col, llvm::Log2_64(cw)));
  return add(mul(core, 8 * cw), add(mul(mask(row, 7), cw), mask(col, cw - 1)));
}

Value KernelEmitter::sharedAddress(Value linear, Type element,
                                   int64_t byteOffset) {
  return elementAddress(scratch(byteOffset), linear, element);
}

Value KernelEmitter::loadShared(Value linear, Type element,
                                int64_t byteOffset) {
  return loadSharedAt(sharedAddress(linear, element, byteOffset), element);
}

Value KernelEmitter::loadSharedAt(Value address, Type element) {
  Type storage = element.isInteger(1) ? b.getI8Type() : element;
  Value v = LLVM::LoadOp::create(b, loc, storage, address);
  if (element.isInteger(1))
    v = arith::TruncIOp::create(b, loc, element, v);
  return v;
}

void KernelEmitter::storeShared(Value linear, Value value, int64_t byteOffset) {
  storeSharedAt(sharedAddress(linear, value.getType(), byteOffset), value);
}

void KernelEmitter::storeSharedAt(Value address, Value value) {
  if (value.getType().isInteger(1))
    value = arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, address);
}

int64_t KernelEmitter::sharedVector(RankedTensorType type,
                                    const Distribution &dist,
                                    int64_t byteOffset, StageLayout layout) {
  Type element = type.getElementType();
  if (type.getRank() == 0 || element.isInteger(1))
    return 1;
  int64_t eb = storageBytes(element),
          pitch = type.getShape().back() + layout.rowPad;
  int64_t v = dist.vectorWidth;
  // Core matrices: a run of 16 bytes of consecutive columns is contiguous
  // (8 16-bit elements, 4 f32; the loop below caps v at 16 bytes).
  if (layout.core)
    v = std::min<int64_t>(v, 8);
  while (v > 1 && (v * eb > 16 || (pitch * eb) % (v * eb) ||
                   byteOffset % (v * eb) || type.getShape().back() % v))
    v /= 2;
  return v;
}

void KernelEmitter::writeTile(Value tile, int64_t byteOffset,
                              StageLayout layout, Value at) {
  auto type = cast<RankedTensorType>(tile.getType());
  int64_t elements = layout.elements(type.getShape());
  if (!at) {
    int64_t &bytes = stagingInRings ? dynamicBytes : sharedBytes;
    bytes = std::max(
        bytes, byteOffset + elements * storageBytes(type.getElementType()));
  }
  Type element = type.getElementType();
  auto address = [&](Value index) {
    return tileElementAddress(at, index, element, byteOffset);
  };
  if (type.getRank() == 0) {
    storeSharedAt(address(i32(0)), regs[tile][0]);
    return;
  }
  Distribution dist = distributionOf(type);
  if (!at && stmatrixFits(type, dist, byteOffset, layout)) {
    writeTileMatrices(tile, dist, byteOffset, layout);
    return;
  }
  SmallVector<Value> base = threadBase(dist);
  // Groups of consecutive registers are consecutive elements of a row: one
  // vector store each where the alignment allows.
  int64_t v = sharedVector(type, dist, byteOffset, layout);
  for (int64_t r = 0; r < dist.numRegisters; r += v) {
    Value index =
        stagedIndex(coordsOf(dist, base, r), type.getShape(), layout,
                    storageBytes(element));
    auto store = [&]() {
      if (v == 1) {
        storeSharedAt(address(index), regs[tile][r]);
        return;
      }
      auto vecType = VectorType::get({v}, element);
      Value vec = LLVM::UndefOp::create(b, loc, vecType);
      for (int64_t k = 0; k < v; ++k)
        vec = LLVM::InsertElementOp::create(b, loc, vec, regs[tile][r + k],
                                            i32(k));
      LLVM::StoreOp::create(b, loc, vec, address(index),
                            v * storageBytes(element));
    };
    // Where several threads hold an element, its owner writes it (the same
    // value from every holder would still be a write-write race).
    storeOwned(dist, base, r, store);
  }
}

bool KernelEmitter::heldOnce(const Distribution &dist) {
  int64_t warps = 1;
  for (unsigned w : dist.warpsPerCTA)
    warps *= w;
  if (warps != numWarps)
    return false;
  for (size_t d = 0; d < dist.shape.size(); ++d)
    if (dist.ctaTile[d] > dist.shape[d])
      return false;
  return true;
}

bool KernelEmitter::stmatrixFits(RankedTensorType type,
                                 const Distribution &dist, int64_t byteOffset,
                                 StageLayout layout) {
  IntegerAttr hint = kernelHint("stmatrix");
  if (!hint || hint.getInt() == 0 || type.getRank() != 2 ||
      type.getElementType().isInteger(1) ||
      storageBytes(type.getElementType()) != 2 || byteOffset % 16)
    return false;
  // Rows of the staged tile: 16-byte chunks swizzled (TMA) or in core
  // matrices, else row-major rows whose pitch keeps each row 16-byte aligned.
  if (!layout.swizzled && !layout.core &&
      ((type.getDimSize(1) + layout.rowPad) * 2) % 16)
    return false;
  // The lane's part of the pattern is stmatrix's fragment: (l / 4, 2 (l % 4)).
  auto is = [](ArrayRef<unsigned> v, unsigned a, unsigned b) {
    return v.size() == 2 && v[0] == a && v[1] == b;
  };
  if (!is(dist.dimMap, 0, 1) || !is(dist.order, 1, 0) ||
      !is(dist.threadsPerWarp, 8, 4) || dist.laneScale.size() != 2 ||
      dist.laneScale[0] != 1 || dist.laneScale[1] != 2 ||
      dist.warpScale[0] % 8 || dist.warpScale[1] % 8)
    return false;
  if (!heldOnce(dist) || dist.numRegisters % 2)
    return false;
  for (int64_t r = 0; r < dist.numRegisters; r += 2) {
    ArrayRef<int64_t> first = dist.regOffsets[r],
                      second = dist.regOffsets[r + 1];
    if (first[0] % 8 || first[1] % 8 || second[0] != first[0] ||
        second[1] != first[1] + 1)
      return false;
  }
  return true;
}

void KernelEmitter::writeTileMatrices(Value tile, const Distribution &dist,
                                      int64_t byteOffset, StageLayout layout) {
  auto type = cast<RankedTensorType>(tile.getType());
  Type element = type.getElementType();
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  auto mul = [&](Value x, int64_t c) {
    return arith::MulIOp::create(b, loc, x, i32(c)).getResult();
  };
  auto bit = [&](int64_t shift) {
    return arith::AndIOp::create(
               b, loc, arith::ShRUIOp::create(b, loc, lane, i32(shift)), i32(1))
        .getResult();
  };
  // The warp's origin: the thread's base less the lane's (l / 4, 2 (l % 4)).
  SmallVector<Value> base = threadBase(dist);
  Value warpRow = arith::SubIOp::create(
      b, loc, base[0], arith::DivUIOp::create(b, loc, lane, i32(4)));
  Value warpCol = arith::SubIOp::create(
      b, loc, base[1], mul(arith::RemUIOp::create(b, loc, lane, i32(4)), 2));
  Value laneRow = arith::AndIOp::create(b, loc, lane, i32(7));
  Value x0 = bit(3), x1 = bit(4), x01 = arith::AndIOp::create(b, loc, x0, x1);
  int64_t pairs = dist.numRegisters / 2;
  for (int64_t q = 0; q < pairs;) {
    int64_t count = pairs - q >= 4 ? 4 : pairs - q >= 2 ? 2 : 1;
    // Along dimension d, the origin of the block lane l addresses, pair
    // q + (l / 8) % count: of the lane bits x0 = (l / 8) % 2 and x1 =
    // (l / 16) % 2, a + b x0 + c x1 + d x0 x1 (fits any four values).
    auto origin = [&](int64_t d) {
      int64_t o[4];
      for (int64_t i = 0; i < 4; ++i)
        o[i] = dist.regOffsets[2 * (q + i % count)][d];
      Value v = i32(o[0]);
      if (int64_t c = o[1] - o[0])
        v = add(v, mul(x0, c));
      if (int64_t c = o[2] - o[0])
        v = add(v, mul(x1, c));
      if (int64_t c = o[3] - o[2] - o[1] + o[0])
        v = add(v, mul(x01, c));
      return v;
    };
    Value row = add(add(warpRow, origin(0)), laneRow);
    Value col = add(warpCol, origin(1));
    Value address =
        sharedAddress(stagedIndex({row, col}, type.getShape(), layout, 2),
                      element, byteOffset);
    SmallVector<Value> words;
    auto pairType = VectorType::get({2}, element);
    for (int64_t i = 0; i < count; ++i) {
      Value v = LLVM::UndefOp::create(b, loc, pairType);
      v = LLVM::InsertElementOp::create(b, loc, v, regs[tile][2 * (q + i)],
                                        i32(0));
      v = LLVM::InsertElementOp::create(b, loc, v, regs[tile][2 * (q + i) + 1],
                                        i32(1));
      words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v));
    }
    NVVM::StMatrixOp::create(
        b, loc, address, words, NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    q += count;
  }
}

SmallVector<Value> KernelEmitter::readTile(RankedTensorType type,
                                           int64_t byteOffset,
                                           StageLayout layout, Value at) {
  Distribution dist = distributionOf(type);
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> out;
  int64_t v = sharedVector(type, dist, byteOffset, layout);
  Type element = type.getElementType();
  auto address = [&](Value index) {
    return tileElementAddress(at, index, element, byteOffset);
  };
  for (int64_t r = 0; r < dist.numRegisters; r += v) {
    Value index = stagedIndex(coordsOf(dist, base, r), type.getShape(),
                              layout, storageBytes(element));
    if (v == 1) {
      out.push_back(loadSharedAt(address(index), element));
      continue;
    }
    auto vecType = VectorType::get({v}, element);
    Value vec = LLVM::LoadOp::create(b, loc, vecType, address(index),
                                     v * storageBytes(element));
    for (int64_t k = 0; k < v; ++k)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, vec, i32(k)));
  }
  return out;
}

void KernelEmitter::tileToShared(Value tile) {
  barrierBeforeScratchWrite();
  writeTile(tile, 0);
  barrier();
}

} // namespace tessel::codegen::emitter
