//===- EmitLayout.cpp - scans, reductions, shape changes ------------------===//
//
// tile.cumsum (within warps, or through shared memory), tile.reduce,
// tile.permute, and the layout changes of broadcasts and reshapes: register
// remaps, warp shuffles, or a trip through shared memory.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

#include <map>
#include <set>

namespace tessel::codegen::emitter {

/// Register offset `offset` along tile dimension `d`, wrapped where the CTA
/// tile is wider than the tile (several threads, or registers, then hold
/// each element).
static int64_t wrappedOffset(const Distribution &dist, int64_t d,
                             int64_t offset) {
  return dist.ctaTile[d] > dist.shape[d] ? offset & (dist.shape[d] - 1)
                                         : offset;
}

using namespace mlir;

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
  tilegpu::BlockedLayoutAttr layout = dist.blocked;
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
    tilegpu::BlockedLayoutAttr layout = dist.blocked;
    Type element = type.getElementType();
    if (layout && layout.getOrder()[0] == axis && layout.getWarpsPerCTA()[axis] == 1 &&
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
      storeOwned(dist, base, r, [&] { storeShared(linear[r], values[r]); });
    barrier();
  }
  regs[op.getResult()] = values;
  return success();
}

SmallVector<Value> KernelEmitter::shuffleXor(ArrayRef<Value> values,
                                             int64_t laneMask) {
  auto shfl = [&](Value word) -> Value {
    return NVVM::ShflOp::create(
        b, loc, word.getType(), i32(-1), word, i32(laneMask), i32(31),
        NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::bfly),
        UnitAttr());
  };
  if (values.empty())
    return {};
  // 16-bit floats travel two to a word (packWords), unpacked as a load's
  // words are.
  SmallVector<Value> words;
  for (Value word : packWords(values))
    words.push_back(shfl(word));
  SmallVector<Value> out = unpackWords(values.front().getType(), words);
  out.resize(values.size());
  return out;
}

bool KernelEmitter::reduceInWarps(tile::ReduceOp op,
                                  function_ref<Value(Value, Value)> combine) {
  auto source = cast<RankedTensorType>(op.getSource().getType());
  auto result = cast<RankedTensorType>(op.getType());
  const int64_t axis = op.getAxis(), rank = source.getRank();
  Type element = result.getElementType();
  // (shfl moves 32-bit words: bf16 and f16 travel two to a word, the
  // first in the low half, their bits unchanged; the combines stay in the
  // element type. Other widths, and 16-bit integers, which no test kernel
  // reduces, take the shared-memory path.)
  const unsigned width = element.getIntOrFloatBitWidth();
  if (result.getRank() + 1 != rank ||
      !(width == 32 || (width == 16 && isa<FloatType>(element))))
    return false;
  if (!regs.count(op.getSource()))
    return false;
  Distribution src = distributionOf(source), dst = distributionOf(result);
  // (The same root: the same threads along every dimension but the axis;
  // the lane and warp splits and scales are the root's.)
  if (!src.root || src.root != dst.root || src.order.empty())
    return false;
  const unsigned along = src.dimMap[axis];
  // Every element along the axis once: no CTA tile wider than the tile (its
  // lanes would hold copies, which a sum would count twice).
  if (src.ctaTile[axis] > src.shape[axis])
    return false;
  const int64_t warpsAlong = src.warpsPerCTA[along];
  auto sourceDim = [&](int64_t d) { return d < axis ? d : d + 1; };
  for (int64_t d = 0; d < rank - 1; ++d) {
    int64_t sd = sourceDim(d);
    if (src.dimMap[sd] != dst.dimMap[d] || src.shape[sd] != dst.shape[d] ||
        src.ctaTile[sd] != dst.ctaTile[d])
      return false;
  }
  // The lane bits along the axis: the lane splits into per-dimension ids in
  // `order`, fastest first (threadBase).
  int64_t firstBit = 0;
  for (unsigned d : src.order) {
    if (d == along)
      break;
    firstBit += llvm::Log2_64(src.threadsPerWarp[d]);
  }
  const int64_t laneBits = llvm::Log2_64(src.threadsPerWarp[along]);
  // Offsets along the result's dimensions, wrapped where a CTA tile is
  // wider than the tile (then several registers hold one element).
  auto key = [](const Distribution &dist, ArrayRef<int64_t> offsets,
                function_ref<int64_t(int64_t)> dimOf, int64_t n) {
    SmallVector<int64_t> k;
    for (int64_t d = 0; d < n; ++d)
      k.push_back(wrappedOffset(dist, dimOf(d), offsets[dimOf(d)]));
    return k;
  };
  std::map<SmallVector<int64_t>, SmallVector<int64_t>> groups;
  for (int64_t r = 0; r < src.numRegisters; ++r)
    groups[key(src, src.regOffsets[r], sourceDim, rank - 1)].push_back(r);
  SmallVector<SmallVector<int64_t>> wanted;
  for (int64_t r = 0; r < dst.numRegisters; ++r) {
    wanted.push_back(
        key(dst, dst.regOffsets[r], [](int64_t d) { return d; }, rank - 1));
    if (!groups.count(wanted.back()))
      return false;
  }
  // Each group holds the thread's elements of one output element: the
  // registers along the axis, distinct offsets along it.
  for (auto &[k, members] : groups) {
    std::set<int64_t> offsets;
    for (int64_t r : members)
      offsets.insert(src.regOffsets[r][axis]);
    if (offsets.size() != members.size())
      return false;
  }
  // Across warps, one thread per warp and output element writes its
  // partial: the first lane along the axis, where no other thread holds a
  // copy of the element (no CTA tile wider than the result along a
  // dimension, no lanes or warps along another root dimension the result
  // lacks). Otherwise copies would race on the slot (with equal values).
  if (warpsAlong > 1) {
    for (int64_t d = 0; d < rank - 1; ++d)
      if (dst.ctaTile[d] > dst.shape[d])
        return false;
    SmallVector<bool> kept(dst.order.size(), false);
    for (unsigned rd : dst.dimMap)
      kept[rd] = true;
    for (unsigned rd : dst.order)
      if (!kept[rd] && rd != along &&
          (dst.threadsPerWarp[rd] > 1 || dst.warpsPerCTA[rd] > 1))
        return false;
  }
  // Each output element's partial: the thread's own elements, then the
  // lanes' (all the partials exchanged together at each lane bit, 16-bit
  // ones two to a shuffle).
  SmallVector<Value> partials;
  ArrayRef<Value> values = regs[op.getSource()];
  for (auto &[k, members] : groups) {
    Value v = values[members.front()];
    for (int64_t r : ArrayRef<int64_t>(members).drop_front())
      v = combine(v, values[r]);
    partials.push_back(v);
  }
  for (int64_t bit = firstBit; bit < firstBit + laneBits; ++bit) {
    SmallVector<Value> others = shuffleXor(partials, int64_t(1) << bit);
    for (auto [mine, other] : llvm::zip_equal(partials, others))
      mine = combine(mine, other);
  }
  std::map<SmallVector<int64_t>, Value> total;
  for (auto [group, v] : llvm::zip_equal(groups, partials))
    total[group.first] = v;
  SmallVector<Value> out;
  for (const SmallVector<int64_t> &k : wanted)
    out.push_back(total[k]);
  if (warpsAlong > 1) {
    // Warps along the axis: each one's partial of every output element
    // (the same in all its lanes along the axis; the first writes it) goes
    // through the scratch buffer, and every thread combines the warps' in
    // order.
    const int64_t n = result.getNumElements();
    sharedBytes =
        std::max(sharedBytes, warpsAlong * n * storageBytes(element));
    auto [laneC, warpC] = threadIds(src);
    Value writes = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         laneC[along], i32(0));
    Value slot0 = arith::MulIOp::create(b, loc, warpC[along], i32(n));
    SmallVector<Value> base = threadBase(dst), linear;
    for (int64_t r = 0; r < dst.numRegisters; ++r)
      linear.push_back(
          linearIndex(coordsOf(dst, base, r), result.getShape()));
    barrierBeforeScratchWrite();
    onlyWhere(writes, [&] {
      for (int64_t r = 0; r < dst.numRegisters; ++r)
        storeShared(arith::AddIOp::create(b, loc, slot0, linear[r]), out[r]);
    });
    barrier();
    for (int64_t r = 0; r < dst.numRegisters; ++r) {
      Value v = loadShared(linear[r], element);
      for (int64_t k = 1; k < warpsAlong; ++k)
        v = combine(v, loadShared(arith::AddIOp::create(b, loc, linear[r],
                                                        i32(k * n)),
                                  element));
      out[r] = v;
    }
  }
  regs[op.getResult()] = out;
  return true;
}

LogicalResult KernelEmitter::emitReduce(tile::ReduceOp op) {
  auto source = cast<RankedTensorType>(op.getSource().getType());
  auto result = cast<RankedTensorType>(op.getType());
  Type element = source.getElementType();
  int64_t axis = op.getAxis(), len = source.getDimSize(axis);
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
  if (reduceInWarps(op, combine))
    return success();
  tileToShared(op.getSource());
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

std::optional<SmallVector<int64_t>>
KernelEmitter::registerRemap(const Distribution &src, const Distribution &dst,
                             ArrayRef<int64_t> srcDimOf) {
  if (!src.root || src.root != dst.root)
    return std::nullopt;
  SmallVector<bool> mapped(src.shape.size(), false);
  for (size_t d = 0; d < dst.shape.size(); ++d) {
    int64_t sd = srcDimOf[d];
    if (sd < 0)
      continue;
    if (src.dimMap[sd] != dst.dimMap[d] || src.shape[sd] != dst.shape[d] ||
        src.ctaTile[sd] != dst.ctaTile[d])
      return std::nullopt;
    mapped[sd] = true;
  }
  for (size_t sd = 0; sd < src.shape.size(); ++sd)
    if (!mapped[sd] && src.shape[sd] != 1)
      return std::nullopt;
  // Same threads, same bases: match the registers by their offsets along
  // the mapped dimensions (modulo the size where CTA tiles wrap).
  std::map<SmallVector<int64_t>, int64_t> bySrcOffsets;
  for (int64_t r = 0; r < src.numRegisters; ++r) {
    SmallVector<int64_t> key;
    for (size_t d = 0; d < dst.shape.size(); ++d)
      if (srcDimOf[d] >= 0)
        key.push_back(
            wrappedOffset(src, srcDimOf[d], src.regOffsets[r][srcDimOf[d]]));
    bySrcOffsets.try_emplace(key, r);
  }
  SmallVector<int64_t> out;
  for (int64_t r = 0; r < dst.numRegisters; ++r) {
    SmallVector<int64_t> key;
    for (size_t d = 0; d < dst.shape.size(); ++d)
      if (srcDimOf[d] >= 0)
        key.push_back(wrappedOffset(dst, d, dst.regOffsets[r][d]));
    auto it = bySrcOffsets.find(key);
    if (it == bySrcOffsets.end())
      return std::nullopt;
    out.push_back(it->second);
  }
  return out;
}

bool KernelEmitter::remapInRegisters(Value source, Value result,
                                     ArrayRef<int64_t> srcDimOf) {
  auto srcType = cast<RankedTensorType>(source.getType());
  auto type = cast<RankedTensorType>(result.getType());
  if (srcType.getRank() == 0 || type.getRank() == 0)
    return false;
  std::optional<SmallVector<int64_t>> map =
      registerRemap(distributionOf(srcType), distributionOf(type), srcDimOf);
  if (!map)
    return false;
  SmallVector<Value> out;
  for (int64_t r : *map)
    out.push_back(regs[source][r]);
  regs[result] = out;
  return true;
}

bool KernelEmitter::remapWordsInWarp(Value source, Value result,
                                     ArrayRef<int64_t> srcDimOf) {
  auto srcType = cast<RankedTensorType>(source.getType());
  auto type = cast<RankedTensorType>(result.getType());
  Type element = type.getElementType();
  if (srcType.getRank() != 1 || !element.isIntOrFloat())
    return false;
  int64_t bits = element.getIntOrFloatBitWidth();
  Distribution src = distributionOf(srcType);
  tilegpu::BlockedLayoutAttr layout = src.blocked;
  int64_t n = srcType.getDimSize(0);
  if (!layout || (bits != 16 && bits != 32) || !llvm::isPowerOf2_64(n))
    return false;
  // Lane l holds elements spt l .. spt l + spt - 1 (every warp the same),
  // one or two of them (the layouts wordsPerLane gives), in one or two
  // 32-bit words.
  int64_t spt = layout.getSizePerThread()[0];
  const int64_t perWord = 32 / bits;
  if (spt > 2 || layout.getThreadsPerWarp()[0] != 32 || spt * 32 < n ||
      src.numRegisters != spt)
    return false;
  for (int64_t e = 0; e < spt; ++e)
    if (src.regOffsets[e][0] != e)
      return false;
  int64_t dim = llvm::find(srcDimOf, 0) - srcDimOf.begin();
  if (dim >= int64_t(srcDimOf.size()))
    return false;
  Type word = b.getI32Type();
  // The lane's elements packed into its words, low element first.
  SmallVector<Value> packed =
      packWords(ArrayRef<Value>(regs[source]).take_front(spt));
  Distribution dist = distributionOf(type);
  SmallVector<Value> base = threadBase(dist);
  // The pattern must start at a multiple of spt along the mapped dimension
  // (an mma layout's columns or rows do): registers whose offsets share
  // offset / spt then read one lane's words, and each register's word and
  // half are known here. (Elsewhere shared memory, emitRemap.)
  unsigned root = dist.dimMap[dim];
  if (dist.laneScale[root] % spt || dist.warpScale[root] % spt)
    return false;
  auto idxKind = NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::idx);
  // The source lane once per group of spt elements (each of its words
  // shuffled from it, then unpacked: a word's elements, low first).
  DenseMap<int64_t, Value> laneOf;
  std::map<std::pair<int64_t, int64_t>, SmallVector<Value>> shuffled;
  SmallVector<Value> out;
  for (int64_t r = 0; r < dist.numRegisters; ++r) {
    int64_t offset = dist.regOffsets[r][dim], e = offset % spt;
    Value &srcLane = laneOf[offset / spt];
    if (!srcLane)
      srcLane = arith::DivUIOp::create(b, loc, coordsOf(dist, base, r)[dim],
                                       i32(spt));
    SmallVector<Value> &elements = shuffled[{offset / spt, e / perWord}];
    if (elements.empty()) {
      Value w = NVVM::ShflOp::create(b, loc, word, i32(-1),
                                     packed[e / perWord], srcLane, i32(31),
                                     idxKind, UnitAttr());
      elements = unpackWords(element, w);
    }
    out.push_back(elements[e % perWord]);
  }
  regs[result] = out;
  return true;
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
  tilegpu::BlockedLayoutAttr layout = src.blocked;
  if (!layout)
    return failure();
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
  // A one-element tile is in every thread (coordinates wrap around): its
  // broadcast or reshape is register copies, whatever the two layouts.
  if (srcType.getNumElements() == 1) {
    regs[result] =
        SmallVector<Value>(numRegisters(type), regs[source].front());
    return success();
  }
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
  // A transpose between an mma layout and its transposed form: each thread
  // already holds the elements it needs (the two layouts swap every
  // per-dimension fact), so only the register order changes.
  auto srcMma =
      dyn_cast_or_null<tilegpu::MmaLayoutAttr>(tilegpu::getLayout(srcType));
  if (srcMma && isTranspose(op) &&
      tilegpu::getLayout(type) == srcMma.getTransposedLayout()) {
    Distribution srcDist = distributionOf(srcType), dist = distributionOf(type);
    std::map<std::pair<int64_t, int64_t>, int64_t> regOf;
    for (int64_t r = 0; r < srcDist.numRegisters; ++r)
      regOf[{srcDist.regOffsets[r][1], srcDist.regOffsets[r][0]}] = r;
    SmallVector<Value> out;
    for (int64_t r = 0; r < dist.numRegisters; ++r) {
      auto it = regOf.find({dist.regOffsets[r][0], dist.regOffsets[r][1]});
      if (it == regOf.end())
        return fail(op, "a transpose between mma layouts whose registers do "
                        "not correspond (tile shapes " +
                            Twine(srcType.getDimSize(0)) + "x" +
                            Twine(srcType.getDimSize(1)) + ")");
      out.push_back(regs[op.getSource()][it->second]);
    }
    regs[op.getResult()] = out;
    return success();
  }
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
  barrierBeforeScratchWrite();
  Distribution srcDist = distributionOf(srcType);
  SmallVector<Value> srcBase = threadBase(srcDist);
  for (int64_t r = 0; r < srcDist.numRegisters; ++r) {
    SmallVector<Value> c = coordsOf(srcDist, srcBase, r), out(c.size());
    for (size_t k = 0; k < c.size(); ++k)
      out[k] = c[perm[k]];
    storeOwned(srcDist, srcBase, r, [&] {
      storeShared(linearIndex(out, type.getShape(), rowPad),
                  regs[op.getSource()][r]);
    });
  }
  barrier();
  regs[op.getResult()] = readTile(type, 0, rowPad);
  return success();
}

} // namespace tessel::codegen::emitter
