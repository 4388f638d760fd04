//===- EmitMemory.cpp - global memory -------------------------------------===//
//
// tile.load, tile.store (the TMA store: EmitTma.cpp), tile.prefetch and the
// counters: per-register addresses and bounds (accessOf, planAccess), the
// interior fast path (wholeTileFits) and 16-bit loads kept as packed words.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

#include <cmath>

namespace tessel::codegen::emitter {

using namespace mlir;

/// `base` is where the running thread's pattern starts in the tile,
/// `coordsOf(r)` the (wrapped) tile coordinates of register r.
static Access planAccess(OpBuilder &b, Location loc, const ViewParts &view,
                         ValueRange indices, RankedTensorType tile,
                         std::optional<ArrayRef<int64_t>> squeeze,
                         ArrayRef<Value> base,
                         function_ref<SmallVector<Value>(int64_t)> coordsOf,
                         const Distribution &dist, bool interior) {
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
  int64_t width = accessVector(view.type, tile, squeeze, dist);
  access.vector = width;
  bool checkStride = !view.type.getUnitStride();
  bool checkAlign = view.type.getAssumedAlignment() < width * bytes;
  Value unitStride;
  if (access.vector > 1 && checkStride)
    unitStride = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       view.strides[rank - 1], c64(1));
  Type ptrType = view.ptr.getType();
  Type storage = element.isInteger(1) ? b.getI8Type() : element;
  // Inside interior tiles, vector accesses have checked the unit stride.
  Value unit = c64(1);
  auto strideOf = [&](int64_t d) {
    return interior && access.vector > 1 && d == rank - 1 ? unit
                                                          : view.strides[d];
  };
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
          arith::MulIOp::create(b, loc, first[d], strideOf(d)));
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
        step = arith::MulIOp::create(b, loc, strideOf(d), c64(delta));
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
          b, loc, offset, arith::MulIOp::create(b, loc, g, strideOf(d)));
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

Access KernelEmitter::accessOf(Value view, ValueRange indices,
                               RankedTensorType type,
                               std::optional<ArrayRef<int64_t>> squeeze,
                               const Distribution &dist, bool interior) {
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> idx;
  for (Value i : indices)
    idx.push_back(regs[i][0]);
  ViewParts parts = views[view];
  if (!interior) {
    // Border tiles are the rare case. Their per-element offsets are loop
    // invariant, and hoisted out of the loops they sit in (by LLVM, or by
    // ptxas) they would hold a register each for the whole loop: computed
    // from an opaque zero (a shuffle the compilers cannot see through, one
    // per border access), they stay in the branch that uses them.
    Value zero = NVVM::ShflOp::create(
        b, loc, b.getI32Type(), i32(-1), i32(0), lane, i32(31),
        NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::idx),
        UnitAttr());
    for (Value &v : base)
      v = arith::AddIOp::create(b, loc, v, zero);
    Value zero64 = arith::ExtUIOp::create(b, loc, b.getI64Type(), zero);
    for (Value &v : parts.strides)
      v = arith::AddIOp::create(b, loc, v, zero64);
  }
  return planAccess(
      b, loc, parts, idx, type, squeeze, base,
      [&](int64_t r) { return coordsOf(dist, base, r); }, dist, interior);
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
  Value result = op.getResult();
  if (packsIntoWords(op)) {
    // The first user in the load's block (an ancestor of any nested use).
    Operation *first = nullptr;
    for (Operation *user : result.getUsers())
      if (Operation *at = op->getBlock()->findAncestorOpInBlock(*user))
        if (!first || at->isBeforeInBlock(first))
          first = at;
    if (first && first != op->getNextNode()) {
      packedWords[result] = loadRegisters(op, /*packed=*/true);
      unpackBefore[first].push_back(result);
      return success();
    }
  }
  regs[result] = loadRegisters(op, /*packed=*/false);
  return success();
}

void KernelEmitter::unpackPending(ArrayRef<Value> values) {
  for (Value v : values) {
    auto it = packedWords.find(v);
    if (it == packedWords.end())
      continue;
    regs[v] = unpackWords(
        cast<RankedTensorType>(v.getType()).getElementType(), it->second);
    packedWords.erase(it);
  }
}

/// The box's cache lines, shared out over the threads of the CTA's last
/// warps: a row along a unit-stride last dimension is ceil(row bytes / 128)
/// lines from its first element (each line's address its first element's),
/// any other element a line of its own. As few warps as give each lane at
/// most 4 lines take part (the others branch around, warp-uniformly: the
/// address and bounds arithmetic is most of the cost), the last ones, away
/// from warp 0, which issues the TMA copies. Lane t of them takes lines t,
/// t + T, ...; each prefetch is guarded by its element lying in the view (an
/// address outside it would be undefined behaviour for prefetch).
LogicalResult KernelEmitter::emitPrefetch(tile::PrefetchOp op) {
  const ViewParts &view = views[op.getView()];
  ArrayRef<int64_t> box = op.getBox();
  int64_t rank = box.size();
  Type element = view.type.getElementType();
  int64_t eb = storageBytes(element);
  bool rows = view.type.getUnitStride();
  int64_t perLine = rows ? std::max<int64_t>(1, 128 / eb) : 1;
  // Coordinates walked one line at a time along the last dimension (rows) or
  // one element at a time everywhere.
  SmallVector<int64_t> steps(box.begin(), box.end());
  if (rows)
    steps[rank - 1] = box[rank - 1] / perLine + (box[rank - 1] % perLine != 0);
  // Every prefetch is an instruction of its own, unrolled: a box of more
  // than kMaxLinesPerLane lines for each of the CTA's lanes is refused (the
  // product saturates there, so that no extents overflow it).
  constexpr int64_t kMaxLinesPerLane = 64;
  const int64_t maxLines = kMaxLinesPerLane * 32 * numWarps;
  int64_t lines = 1;
  for (int64_t n : steps)
    lines = n > maxLines / lines ? maxLines + 1 : lines * n;
  if (lines > maxLines)
    return op.emitOpError()
           << "box covers more than " << maxLines << " cache lines ("
           << kMaxLinesPerLane << " per thread of the " << numWarps
           << "-warp program, each a prefetch instruction): prefetch it in "
              "smaller boxes";
  int64_t warps = std::clamp<int64_t>((lines + 127) / 128, 1, numWarps);
  int64_t threads = 32 * warps, firstWarp = numWarps - warps;
  Value taking = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warp,
                                       i32(firstWarp));
  onlyWhere(taking, [&] {
    SmallVector<Value> origin;
    for (int64_t d = 0; d < rank; ++d)
      origin.push_back(arith::MulIOp::create(
          b, loc, toI64(regs[op.getIndices()[d]][0]), i64(box[d])));
    Value thread = arith::ExtUIOp::create(
        b, loc, b.getI64Type(),
        arith::SubIOp::create(b, loc, tid, i32(32 * firstWarp)));
    for (int64_t first = 0; first < lines; first += threads) {
      Value line = arith::AddIOp::create(b, loc, thread, i64(first));
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, line,
                                       i64(lines));
      Value offset = i64(0), rest = line;
      for (int64_t d = rank - 1; d >= 0; --d) {
        Value step = arith::RemUIOp::create(b, loc, rest, i64(steps[d]));
        rest = arith::DivUIOp::create(b, loc, rest, i64(steps[d]));
        Value local = rows && d == rank - 1
                          ? arith::MulIOp::create(b, loc, step, i64(perLine))
                          : step;
        Value at = arith::AddIOp::create(b, loc, origin[d], local);
        ok = arith::AndIOp::create(
            b, loc, ok,
            arith::AndIOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at,
                                      i64(0)),
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at,
                                      view.sizes[d])));
        offset = arith::AddIOp::create(
            b, loc, offset, arith::MulIOp::create(b, loc, at, view.strides[d]));
      }
      // (nvvm.prefetch takes a predicate only with a tensor map: a branch,
      // which ptxas predicates.)
      onlyWhere(ok, [&] {
        Value address = LLVM::GEPOp::create(b, loc, view.ptr.getType(), element,
                                            view.ptr, ValueRange{offset});
        NVVM::PrefetchOp::create(
            b, loc,
            NVVM::PrefetchCacheLevelAttr::get(b.getContext(),
                                              NVVM::PrefetchCacheLevel::L2),
            NVVM::CacheEvictionPriorityAttr(), address, Value(),
            /*tensormap=*/false, /*uniform=*/false, /*in_param_space=*/false);
      });
    }
  });
  return success();
}

/// Each value as `type` (32-bit values, bitcast where their type differs):
/// packWords' and unpackWords' 32-bit case.
static SmallVector<Value> bitcastEach(OpBuilder &b, Location loc, Type type,
                                      ArrayRef<Value> values) {
  SmallVector<Value> out;
  for (Value v : values)
    out.push_back(v.getType() == type
                      ? v
                      : Value(LLVM::BitcastOp::create(b, loc, type, v)));
  return out;
}

SmallVector<Value> KernelEmitter::packWords(ArrayRef<Value> values) {
  SmallVector<Value> words;
  if (values.empty())
    return words;
  Type element = values.front().getType(), word = b.getI32Type();
  if (element.getIntOrFloatBitWidth() == 32)
    return bitcastEach(b, loc, word, values);
  auto pairType = VectorType::get({2}, element);
  for (size_t i = 0; i < values.size(); i += 2) {
    Value pair = LLVM::ZeroOp::create(b, loc, pairType);
    for (size_t k = 0; k < 2 && i + k < values.size(); ++k)
      pair = LLVM::InsertElementOp::create(b, loc, pair, values[i + k],
                                           i32(k));
    words.push_back(LLVM::BitcastOp::create(b, loc, word, pair));
  }
  return words;
}

SmallVector<Value> KernelEmitter::unpackWords(Type element,
                                              ArrayRef<Value> words) {
  if (element.getIntOrFloatBitWidth() == 32)
    return bitcastEach(b, loc, element, words);
  SmallVector<Value> out;
  auto pairType = VectorType::get({2}, element);
  for (Value w : words) {
    Value pair = LLVM::BitcastOp::create(b, loc, pairType, w);
    for (int64_t k = 0; k < 2; ++k)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, pair, i32(k)));
  }
  return out;
}

SmallVector<Value> KernelEmitter::loadRegisters(tile::LoadOp op,
                                                bool packed) {
  if (storedViews.contains(op.getView()))
    barrier();
  loadedViews.insert(op.getView());
  auto type = cast<RankedTensorType>(op.getType());
  Distribution dist = distributionOf(type);
  // Planned inside each branch (see accessOf).
  Access access;
  auto plan = [&](bool interior) {
    access = accessOf(op.getView(), op.getIndices(), type, op.getSqueeze(),
                      dist, interior);
  };
  Type element = type.getElementType();
  double padValue = 0;
  if (op.getPadding() == tile::Padding::neg_inf)
    padValue = -INFINITY;
  else if (op.getPadding() == tile::Padding::nan)
    padValue = NAN;
  int64_t v =
      accessVector(views[op.getView()].type, type, op.getSqueeze(), dist);
  int64_t bytes = storageBytes(element);
  // Packed: each group of v 16-bit elements as v / 2 words (see
  // packsIntoWords).
  auto vecType = VectorType::get({v}, element);
  auto wordsOf = [&](Value vec) -> SmallVector<Value> {
    auto wordsType = VectorType::get({v / 2}, b.getI32Type());
    Value w = LLVM::BitcastOp::create(b, loc, wordsType, vec);
    SmallVector<Value> parts;
    for (int64_t k = 0; k < v / 2; ++k)
      parts.push_back(LLVM::ExtractElementOp::create(b, loc, w, i32(k)));
    return parts;
  };
  auto vectorLoad = [&](int64_t g) -> SmallVector<Value> {
    Value vec =
        LLVM::LoadOp::create(b, loc, vecType, access.address[g * v], v * bytes);
    if (packed)
      return wordsOf(vec);
    SmallVector<Value> parts;
    for (int64_t k = 0; k < v; ++k)
      parts.push_back(LLVM::ExtractElementOp::create(b, loc, vec, i32(k)));
    return parts;
  };
  int64_t perGroup = packed ? v / 2 : v;
  Type regType = packed ? Type(b.getI32Type()) : element;
  // Interior tiles: every access unconditional.
  auto fast = [&]() -> SmallVector<Value> {
    plan(/*interior=*/true);
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
    plan(/*interior=*/false);
    SmallVector<Value> out(dist.numRegisters / v * perGroup);
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
      auto scalarGroup = [&]() -> SmallVector<Value> {
        SmallVector<Value> vals = scalarLoads();
        if (!packed)
          return vals;
        Value vec = LLVM::UndefOp::create(b, loc, vecType);
        for (int64_t k = 0; k < v; ++k)
          vec = LLVM::InsertElementOp::create(b, loc, vec, vals[k], i32(k));
        return wordsOf(vec);
      };
      SmallVector<Value> vals =
          v == 1 ? scalarLoads()
                 : ifElse(
                       access.groupInBounds[g],
                       SmallVector<Type>(perGroup, regType),
                       [&] { return vectorLoad(g); }, scalarGroup);
      for (int64_t k = 0; k < perGroup; ++k)
        out[g * perGroup + k] = vals[k];
    }
    return out;
  };
  Value fits =
      wholeTileFits(op.getView(), op.getIndices(), type, op.getSqueeze(), v);
  return ifElse(fits,
                SmallVector<Type>(dist.numRegisters / v * perGroup, regType),
                fast, slow);
}

/// The address of a counter (element `indices` of the 32-bit `viewValue`),
/// and in `inBounds` whether it lies in the view.
Value KernelEmitter::counterAddress(Value viewValue, ValueRange indices,
                                    Value &inBounds) {
  const ViewParts &view = views[viewValue];
  inBounds = arith::ConstantIntOp::create(b, loc, 1, 1);
  Value offset = i64(0);
  for (auto [d, index] : llvm::enumerate(indices)) {
    Value i = arith::ExtSIOp::create(b, loc, b.getI64Type(), regs[index][0]);
    Value ok = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, i64(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                              view.sizes[d]));
    inBounds = arith::AndIOp::create(b, loc, inBounds, ok);
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, i, view.strides[d]));
  }
  return LLVM::GEPOp::create(b, loc, view.ptr.getType(), b.getI32Type(),
                             view.ptr, ValueRange{offset});
}

/// tile.ticket: thread 0 adds 1 to the counter (relaxed, GPU scope: the
/// ticket orders programs, it publishes nothing) and writes the value it
/// had to the scratch buffer (0 out of bounds), which every thread reads
/// after a CTA barrier.
LogicalResult KernelEmitter::emitTicket(tile::TicketOp op) {
  if (warpSpecialized || producerMode)
    return op->emitError() << "is not supported in a warp-specialised kernel";
  Value inBounds;
  Value address = counterAddress(op.getView(), op.getIndices(), inBounds);
  barrierBeforeScratchWrite();
  Value slot = scratch(0);
  sharedBytes = std::max<int64_t>(sharedBytes, 4);
  onlyWhere(isZero(tid), [&] {
    Value taken = ifElse(
        inBounds, {b.getI32Type()},
        [&]() -> SmallVector<Value> {
          return {LLVM::AtomicRMWOp::create(
              b, loc, LLVM::AtomicBinOp::add, address, i32(1),
              LLVM::AtomicOrdering::monotonic, "device")};
        },
        [&]() -> SmallVector<Value> { return {i32(0)}; })[0];
    LLVM::StoreOp::create(b, loc, taken, slot);
  });
  barrier();
  regs[op.getResult()] = {LLVM::LoadOp::create(b, loc, b.getI32Type(), slot)};
  return success();
}

/// tile.signal: a CTA barrier (every thread's writes before it), then thread
/// 0 releases them at GPU scope and adds to the counter (the release
/// pattern of a split-K semaphore: barrier, fence, relaxed atomic). TMA
/// stores, issued by thread 0, are waited for first (writes done, not only
/// read from shared memory) and ordered before the fence.
/// tile.wait: thread 0 polls the counter with acquire loads (backing off
/// with nanosleep) until it reaches the count, then a CTA barrier hands the
/// acquired writes to every thread, and a proxy fence orders them before
/// the TMA copies that follow; with no count (<= 0) or the counter out of
/// bounds, griddepcontrol.wait, the kernel's usual dependency wait. A wait
/// for earlier programs of the kernel (earlier_programs) polls the same
/// way, and with no count does not wait.
LogicalResult KernelEmitter::emitCounter(Operation *op) {
  auto signal = dyn_cast<tile::SignalOp>(op);
  auto wait = dyn_cast<tile::WaitOp>(op);
  if (warpSpecialized || producerMode)
    return op->emitError() << "is not supported in a warp-specialised kernel "
                              "(its producer's copies would not wait)";
  Value amount = regs[signal ? signal.getValue() : wait.getExpected()][0];
  Value inBounds;
  Value address =
      counterAddress(signal ? signal.getView() : wait.getView(),
                     signal ? signal.getIndices() : wait.getIndices(),
                     inBounds);
  if (signal) {
    bool tmaStores = false;
    kernel.walk([&](tile::StoreOp store) {
      tmaStores |= tmaOf.count(store.getOperation()) > 0;
    });
    if (tmaStores)
      onlyWhere(isZero(tid), [&] {
        NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                             UnitAttr());
        NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_global,
                                   NVVM::SharedSpaceAttr());
      });
    barrier();
    onlyWhere(arith::AndIOp::create(b, loc, isZero(tid), inBounds), [&] {
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
      LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, address,
                                amount, LLVM::AtomicOrdering::monotonic,
                                "device");
    });
    return success();
  }
  Value counted = arith::AndIOp::create(
      b, loc, inBounds,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, amount,
                            i32(0)));
  // Thread 0 polls the counter (where `polls`), then the CTA barrier hands
  // what it acquired to every thread, and a proxy fence orders it before the
  // TMA copies that follow.
  auto poll = [&](Value polls) {
    onlyWhere(arith::AndIOp::create(b, loc, isZero(tid), polls), [&] {
      auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(b.createBlock(&loop.getBefore()));
      Value have = LLVM::LoadOp::create(
          b, loc, b.getI32Type(), address, /*alignment=*/4,
          /*isVolatile=*/false, /*isNonTemporal=*/false,
          /*isInvariant=*/false, /*isInvariantGroup=*/false,
          LLVM::AtomicOrdering::acquire, "device");
      Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          have, amount);
      scf::ConditionOp::create(b, loc, below, ValueRange{});
      b.setInsertionPointToEnd(b.createBlock(&loop.getAfter()));
      NVVM::NanosleepOp::create(b, loc, i32(64));
      scf::YieldOp::create(b, loc);
    });
    barrier();
    NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_global,
                               NVVM::SharedSpaceAttr());
  };
  // A wait for earlier programs of this kernel (not its dependency point):
  // polled only where the count is asked for, the barrier reached either way
  // (the condition is the program's, so every thread reaches it).
  if (wait.getEarlierPrograms()) {
    poll(counted);
    return success();
  }
  ifElse(
      counted, {},
      [&]() -> SmallVector<Value> {
        poll(arith::ConstantIntOp::create(b, loc, 1, 1));
        return {};
      },
      [&]() -> SmallVector<Value> {
        NVVM::GriddepcontrolOp::create(b, loc,
                                       NVVM::GridDepActionKind::wait);
        return {};
      });
  return success();
}

LogicalResult KernelEmitter::emitStore(tile::StoreOp op) {
  if (tmaOf.count(op))
    return emitTmaStore(op);
  if (loadedViews.contains(op.getView()) ||
      (storedViews.contains(op.getView()) && !sameGrid(op)))
    barrier();
  noteStore(op);
  auto type = cast<RankedTensorType>(op.getValue().getType());
  Distribution dist = distributionOf(type);
  // Only one copy of a duplicated element is written.
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> owners(dist.numRegisters);
  bool duplicated = false;
  for (int64_t r = 0; r < dist.numRegisters; ++r) {
    owners[r] = ownsRegister(dist, base, r);
    duplicated |= bool(owners[r]);
  }
  int64_t v =
      accessVector(views[op.getView()].type, type, op.getSqueeze(), dist);
  // Planned inside each branch (see accessOf).
  Access access;
  auto plan = [&](bool interior) {
    access = accessOf(op.getView(), op.getIndices(), type, op.getSqueeze(),
                      dist, interior);
    for (int64_t r = 0; r < dist.numRegisters; ++r) {
      if (!owners[r])
        continue;
      access.inBounds[r] =
          arith::AndIOp::create(b, loc, access.inBounds[r], owners[r]);
      if (v > 1 && r % v == 0)
        access.groupInBounds[r / v] = arith::AndIOp::create(
            b, loc, access.groupInBounds[r / v], owners[r]);
    }
  };
  Type element = type.getElementType();
  int64_t bytes = storageBytes(element);
  ArrayRef<Value> values = regs[op.getValue()];
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
    plan(/*interior=*/true);
    for (int64_t g = 0; g < dist.numRegisters / v; ++g) {
      if (v > 1)
        vectorStore(g);
      else
        LLVM::StoreOp::create(b, loc, values[g], access.address[g], bytes);
    }
    return {};
  };
  auto slow = [&]() -> SmallVector<Value> {
    plan(/*interior=*/false);
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

} // namespace tessel::codegen::emitter
