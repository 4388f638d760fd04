//===- EmitMma.cpp - tile.mma ---------------------------------------------===//
//
// tile.mma as mma.sync (every target) and wgmma.mma_async (sm_90a): which
// path an mma takes, how its operands are staged in shared memory (cp.async,
// the TMA, or from registers), A from registers, and the waits on them.
// tcgen05 (sm_100a/sm_103a) is in EmitTcgen05.cpp.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

namespace tessel::codegen::emitter {

using namespace mlir;

int64_t asyncKStep(tile::MmaOp op) {
  return op.getPrecision() == tile::Precision::tf32 ? 8 : 16;
}

tile::PermuteOp foldedTranspose(Value v) {
  auto permute = v.getDefiningOp<tile::PermuteOp>();
  return permute && foldsIntoMma(permute) ? permute : tile::PermuteOp();
}

tilegpu::MmaLayoutAttr asyncAccLayout(tile::MmaOp op) {
  if (op.getPrecision() == tile::Precision::tf32) {
    if (foldedTranspose(op.getA()) || !foldedTranspose(op.getB()))
      return {};
  } else if (op.getPrecision() != tile::Precision::bf16 &&
             op.getPrecision() != tile::Precision::f16) {
    return {};
  }
  auto layout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
      tilegpu::getLayout(op.getAcc().getType()));
  if (!layout || layout.getTransposed() ||
      tilegpu::getLayout(op.getType()) != layout)
    return {};
  return layout;
}

bool KernelEmitter::readsGeneric(tile::LoadOp load) {
  auto generic = [&](Operation *user) {
    auto mma = dyn_cast<tile::MmaOp>(user);
    return !mma || !(usesWgmma(mma) || usesTcgen05(mma));
  };
  for (Operation *user : load->getUsers()) {
    if (isa<tile::PermuteOp>(user)) {
      if (llvm::any_of(user->getUsers(), generic))
        return true;
      continue;
    }
    if (generic(user))
      return true;
  }
  return false;
}

void KernelEmitter::warnWgmmaFallback(tile::MmaOp op) {
  if (!kernel->hasAttr(tilegpu::TileGPUDialect::getWgmmaAttrName()))
    return;
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  auto aType = cast<RankedTensorType>(op.getA().getType());
  int64_t M = cType.getDimSize(0), N = cType.getDimSize(1),
          K = aType.getDimSize(1);
  std::string why;
  llvm::raw_string_ostream os(why);
  tilegpu::MmaLayoutAttr layout = asyncAccLayout(op);
  if (!layout) {
    os << (op.getPrecision() == tile::Precision::tf32
               ? "a tf32 mma reaches it only with A as it is and B a folded "
                 "transpose (both K-major)"
               : "its accumulator and result are not in one untransposed mma "
                 "layout");
  } else if (ArrayRef<unsigned> warps = layout.getWarpsPerCTA();
             warps[1] != 1 || warps[0] % 4 || M % (16 * warps[0])) {
    os << "its accumulator layout #tilegpu.mma<[" << warps[0] << ", "
       << warps[1] << "]> is not whole warpgroups along M (a warpgroup MMA "
       << "takes all the warps along M, a multiple of 4, 16 rows each: with "
       << warps[0] * warps[1] << " warps M must be a multiple of "
       << 16 * warps[0] * warps[1] << ")";
  } else if (!layout.fitsWgmma(M, N)) {
    os << "N = " << N << " is not a multiple of 8 up to 256";
  } else {
    os << "K = " << K << " is not a multiple of " << asyncKStep(op);
  }
  op.emitWarning() << "warpgroup MMA asked for (hint 'wgmma'), but this " << M
                   << "x" << N << "x" << K << " mma runs on mma.sync: " << why;
}

bool KernelEmitter::usesWgmma(tile::MmaOp op) {
  if (!kernel->hasAttr(tilegpu::TileGPUDialect::getWgmmaAttrName()))
    return false;
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto layout = asyncAccLayout(op);
  return layout &&
         layout.fitsWgmma(cType.getDimSize(0), cType.getDimSize(1)) &&
         aType.getDimSize(1) % asyncKStep(op) == 0;
}

StageLayout KernelEmitter::operandStage(tile::MmaOp op, bool isA,
                                        bool transposed) {
  if (usesWgmma(op) || usesTcgen05(op))
    return StageLayout::coreMatrices();
  return StageLayout(op.getPrecision() == tile::Precision::tf32 ? 0 : 8);
}

std::optional<StageLayout> KernelEmitter::loadStage(tile::LoadOp load) {
  if (tmaOf.count(load))
    return loadsThroughShared(load) ? StageLayout::plainTma()
                                    : StageLayout::swizzled128();
  std::optional<StageLayout> out;
  bool agree = true;
  // Operand 0 of tile.mma is A (mma(x, x) uses one load as both).
  auto note = [&](tile::MmaOp mma, unsigned operand, bool transposed) {
    StageLayout s = operandStage(mma, operand == 0, transposed);
    if (out && !(*out == s))
      agree = false;
    out = s;
  };
  for (OpOperand &use : load.getResult().getUses()) {
    if (auto mma = dyn_cast<tile::MmaOp>(use.getOwner())) {
      note(mma, use.getOperandNumber(), false);
      continue;
    }
    if (auto permute = dyn_cast<tile::PermuteOp>(use.getOwner()))
      for (OpOperand &inner : permute.getResult().getUses())
        if (auto mma = dyn_cast<tile::MmaOp>(inner.getOwner()))
          note(mma, inner.getOperandNumber(), true);
  }
  if (!agree)
    return std::nullopt;
  return out;
}

int64_t KernelEmitter::asyncCopyGroup(tile::LoadOp load, StageLayout layout) {
  auto type = cast<RankedTensorType>(load.getType());
  int64_t eb = storageBytes(type.getElementType());
  Distribution dist = distributionOf(type);
  // cp.async copies 4, 8 or 16 bytes, aligned at both ends: groups of
  // consecutive elements the thread holds, as the load's vectors allow.
  // Destinations are 16-byte aligned.
  int64_t copy = std::min<int64_t>(
      {dist.vectorWidth, 16 / eb, sharedVector(type, dist, 0, layout)});
  int64_t v = accessVector(views[load.getView()].type, type,
                           load.getSqueeze(), dist);
  int64_t group = std::min(v, copy);
  return group * eb >= 4 ? group : 0;
}

void KernelEmitter::issueCopy(tile::LoadOp load, Value dst,
                              StageLayout layout) {
  auto type = cast<RankedTensorType>(load.getType());
  Type element = type.getElementType();
  int64_t eb = storageBytes(element);
  Distribution dist = distributionOf(type);
  int64_t v = accessVector(views[load.getView()].type, type,
                           load.getSqueeze(), dist);
  int64_t group = asyncCopyGroup(load, layout);
  if (storedViews.contains(load.getView()))
    barrier();
  loadedViews.insert(load.getView());
  // Planned inside each branch (see accessOf).
  Access access;
  auto plan = [&](bool interior) {
    access = accessOf(load.getView(), load.getIndices(), type,
                      load.getSqueeze(), dist, interior);
  };
  SmallVector<Value> base = threadBase(dist);
  auto sharedAt = [&](int64_t r) {
    return elementAddress(
        dst,
        stagedIndex(coordsOf(dist, base, r), type.getShape(), layout, eb),
        element);
  };
  auto cpAsync = [&](int64_t r, int64_t count) {
    int64_t bytes = count * eb;
    NVVM::CpAsyncOp::create(
        b, loc, sharedAt(r), access.address[r], b.getI32IntegerAttr(bytes),
        NVVM::LoadCacheModifierKindAttr::get(
            b.getContext(), bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                        : NVVM::LoadCacheModifierKind::CA),
        Value());
  };
  // Duplicated elements (a tile smaller than the CTA's threads) are copied
  // by their owners only (storeOwned).
  // Interior tiles: one copy per group.
  auto fast = [&]() -> SmallVector<Value> {
    plan(/*interior=*/true);
    for (int64_t r = 0; r < dist.numRegisters; r += group)
      storeOwned(dist, base, r, [&] { cpAsync(r, group); });
    return {};
  };
  // Border tiles: whole groups in bounds by copies, the rest element by
  // element through registers (zeros outside).
  auto slow = [&]() -> SmallVector<Value> {
    plan(/*interior=*/false);
    auto elementwise = [&](int64_t g) {
      for (int64_t r = g * v; r < (g + 1) * v; ++r) {
        Value x = ifElse(
            access.inBounds[r], {element},
            [&]() -> SmallVector<Value> {
              return {LLVM::LoadOp::create(b, loc, element, access.address[r],
                                           eb)};
            },
            [&]() -> SmallVector<Value> { return {constantOf(element, 0)}; })[0];
        storeOwned(dist, base, r, [&] {
          LLVM::StoreOp::create(b, loc, x, sharedAt(r), eb);
        });
      }
      return SmallVector<Value>{};
    };
    for (int64_t g = 0; g < dist.numRegisters / v; ++g)
      ifElse(
          access.groupInBounds[g], {},
          [&]() -> SmallVector<Value> {
            for (int64_t r = g * v; r < (g + 1) * v; r += group)
              storeOwned(dist, base, r, [&] { cpAsync(r, group); });
            return {};
          },
          [&]() { return elementwise(g); });
    return {};
  };
  Value fits = wholeTileFits(load.getView(), load.getIndices(), type,
                             load.getSqueeze(), group);
  ifElse(fits, {}, fast, slow);
}

KernelEmitter::Staged KernelEmitter::stageOperand(Value value,
                                                  int64_t byteOffset,
                                                  StageLayout layout,
                                                  unsigned slot) {
  if (auto it = residentAt.find(value); it != residentAt.end())
    return {it->second.buffer, /*async=*/false, /*prefetched=*/true,
            it->second.bar};
  if (Value at = prefetchedAt.lookup(value))
    return {at, /*async=*/false, /*prefetched=*/true,
            prefetchedMbar.lookup(value), prefetchedAhead.lookup(value)};
  auto type = cast<RankedTensorType>(value.getType());
  int64_t elements = layout.elements(type.getShape());
  sharedBytes = std::max(
      sharedBytes, byteOffset + elements * storageBytes(type.getElementType()));
  Value dst = scratch(byteOffset);
  auto load = value.getDefiningOp<tile::LoadOp>();
  // (A fragment load is copied where it stands, emitFragmentLoad.)
  if (load && (deferredLoads.contains(value) || loadsIntoFragments(load))) {
    if (tmaOf.count(load)) {
      if (scratchMbar[slot] < 0)
        scratchMbar[slot] = numMbarriers++;
      MbarRef bar{scratchMbar[slot], Value()};
      issueTma(load, dst, bar);
      return {dst, /*async=*/false, /*prefetched=*/false, bar};
    }
    if (asyncCopyGroup(load, layout)) {
      issueCopy(load, dst, layout);
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
      return {dst, /*async=*/true, /*prefetched=*/false};
    }
    (void)emitLoad(load); // cannot fail for a load
    // (Its first user is the mma being emitted: unpacked here, now.)
    unpackPending(value);
  }
  writeTile(value, byteOffset, layout);
  return {dst, false, false};
}

/// tile.mma on the portable path: mma.sync.aligned (m16n8k16 for bf16/f16,
/// m16n8k8 for tf32) on every target. A and B are staged in shared memory
/// (16-bit operands with rows padded by 16 bytes, so that the eight 16-byte
/// rows each ldmatrix phase reads fall in distinct banks, and stay 16-byte
/// aligned as ldmatrix requires) and read as fragments in the register
/// layout the PTX ISA specifies (groupID g = lane / 4, threadID_in_group t =
/// lane % 4): ldmatrix.x4 for A, .x2 for B, with .trans where the staged
/// matrix is the transpose of what the fragment wants. An operand that is a
/// transpose nobody else uses (tile.permute [1, 0], see foldedPermutes) is
/// staged untransposed and read the other way round: the permute costs
/// nothing.
///
/// An accumulator in the #tilegpu.mma layout is already in the registers
/// mma.sync wants: each warp computes its own 16x8 blocks in place. Any
/// other accumulator layout goes through shared memory (warp w computing
/// blocks w, w + W, ...) and back.
LogicalResult KernelEmitter::emitMma(tile::MmaOp op) {
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  // Operands as staged: a folded transpose stages its source.
  Value aSrc = op.getA(), bSrc = op.getB();
  bool aT = foldedPermutes.contains(aSrc), bT = foldedPermutes.contains(bSrc);
  if (aT)
    aSrc = aSrc.getDefiningOp<tile::PermuteOp>().getSource();
  if (bT)
    bSrc = bSrc.getDefiningOp<tile::PermuteOp>().getSource();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
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
  if (usesWgmma(op) || usesTcgen05(op))
    return emitAsyncMma(op, aSrc, bSrc, aT, bT);
  warnWgmmaFallback(op);
  int64_t pad = tf32 ? 0 : 8;
  // Staged row pitches: A is M x K (or K x M when transposed), B K x N (or
  // N x K); loads copied by TMA are staged swizzled, dense.
  StageLayout aStage = stagingOf(aSrc, pad), bStage = stagingOf(bSrc, pad);
  int64_t rowsA = aT ? K : M, rowsB = bT ? N : K;
  int64_t pitchA = (aT ? M : K) + aStage.rowPad,
          pitchB = (bT ? K : N) + bStage.rowPad;
  auto mmaLayout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
      tilegpu::getLayout(cType));
  bool inPlace = mmaLayout && !mmaLayout.getTransposed() &&
                 tilegpu::getLayout(op.getType()) == mmaLayout &&
                 M % (16 * mmaLayout.getWarpsPerCTA()[0]) == 0 &&
                 N % (8 * mmaLayout.getWarpsPerCTA()[1]) == 0;
  // A tile in an accumulator layout with the warps of the result's rows
  // (warps along M only) holds, in each thread, exactly the A fragments the
  // thread's warp needs: two 8-column accumulator blocks are one 16-wide A
  // block (the C and A fragments of m16n8k16 put the same rows and column
  // pairs in a lane). Such an A operand (an mma result scaled in registers,
  // say) goes from registers to the mma without shared memory.
  auto aLayout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
      tilegpu::getLayout(op.getA().getType()));
  bool aInRegs = inPlace && !tf32 && !aT && aLayout &&
                 !aLayout.getTransposed() && regs.count(aSrc) &&
                 mmaLayout.getWarpsPerCTA()[1] == 1 &&
                 aLayout.getWarpsPerCTA() == mmaLayout.getWarpsPerCTA();
  // The scratch buffer is rewritten: earlier readers must be done (not
  // needed when both operands were prefetched into their own buffers or
  // come from registers).
  bool aPre = prefetchedAt.count(aSrc) || residentAt.count(aSrc),
       bPre = prefetchedAt.count(bSrc) || residentAt.count(bSrc);
  // The scratch buffer holds what is staged here: A (unless it comes from
  // registers or its own buffer), then B, then a non-mma accumulator.
  int64_t offB = aPre || aInRegs ? 0 : align16(rowsA * pitchA * eb);
  if (bStage.swizzled)
    offB = (offB + 1023) / 1024 * 1024;
  int64_t offC = align16(offB + rowsB * pitchB * eb);
  if (!((aPre || aInRegs) && bPre && inPlace)) {
    // The copy engine writes the scratch buffer through the async proxy:
    // this thread's earlier generic accesses there come first.
    if ((!aPre && !aInRegs && aStage.swizzled) || (!bPre && bStage.swizzled))
      fenceAsyncShared();
    barrier();
  }
  // Both operands' copies are in flight together; one wait for both. A
  // prefetched operand's group is older than the one the loop committed for
  // the next iteration: waiting for all but the newest group is enough.
  Staged aStaged = aInRegs ? Staged{Value(), false, false}
                           : stageOperand(aSrc, 0, aStage, 0);
  Staged bStaged = stageOperand(bSrc, offB, bStage, 1);
  if (!inPlace)
    writeTile(op.getAcc(), offC);
  // Operands the threads staged (from registers, or by cp.async) need the
  // cp.async waits and a barrier; TMA copies an mbarrier wait.
  auto [aThreads, bThreads] = waitForOperands(aInRegs, aStaged, bStaged);
  // Operands copied by TMA are visible to each thread once its wait
  // returns; anything the threads wrote needs the barrier.
  if (aThreads || bThreads || !inPlace)
    barrier();
  Value aBase = aStaged.base, bBase = bStaged.base;

  Type f32Type = b.getF32Type(), i32Type = b.getI32Type();
  Value g = arith::ShRUIOp::create(b, loc, lane, i32(2));
  Value t = arith::AndIOp::create(b, loc, lane, i32(3));
  Value laneMod16 = arith::AndIOp::create(b, loc, lane, i32(15));
  Value laneMod8 = arith::AndIOp::create(b, loc, lane, i32(7));
  Value laneHalf8 = arith::MulIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, lane, i32(4)), i32(8));
  // 8 * ((l / 8) % 2): which half a lane names in the transposed reads.
  Value laneBit8 = arith::MulIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, lane, i32(3)),
                            i32(1)),
      i32(8));
  auto at = [&](Value row, Value col, int64_t cols) -> Value {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, i32(cols)), col);
  };
  auto plus = [&](Value v, int64_t c) -> Value {
    return c ? Value(arith::AddIOp::create(b, loc, v, i32(c))) : v;
  };
  // Element (row, col) of a staged operand (its rows and columns as
  // staged): padded rows, or as the TMA wrote it (swizzledAddress).
  auto staged = [&](Value base, StageLayout layout, int64_t pitch,
                    int64_t rows, Value row, Value col) -> Value {
    if (!layout.swizzled)
      return elementAddress(base, at(row, col, pitch), element);
    return swizzledAddress(base, rows, eb, row, col);
  };
  auto aAddr = [&](Value row, Value col) {
    return staged(aBase, aStage, pitchA, rowsA, row, col);
  };
  auto bAddr = [&](Value row, Value col) {
    return staged(bBase, bStage, pitchB, rowsB, row, col);
  };
  // Element (row, k) of A and (k, col) of B, wherever they were staged.
  auto aAt = [&](Value row, Value k) {
    return LLVM::LoadOp::create(b, loc, element,
                                aT ? aAddr(k, row) : aAddr(row, k));
  };
  auto bAt = [&](Value k, Value col) {
    return LLVM::LoadOp::create(b, loc, element,
                                bT ? bAddr(col, k) : bAddr(k, col));
  };
  // `count` 8x8 b16 matrices from the rows whose address each lane gives,
  // as mma operand registers.
  auto ldmatrix = [&](Value address, int count, bool trans) {
    SmallVector<Value> out = loadMatrices(address, count, trans);
    if (element.isF16()) // NVVM takes f16 pairs as vector<2xf16>
      for (Value &v : out)
        v = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, element), v);
    return out;
  };
  auto toTf32 = [&](Value x) {
    return intrinsic("llvm.nvvm.f2tf32.rna", i32Type, {x});
  };
  // The A fragment of the 16 x kStep block at (m0, k0): a0..a3.
  auto fragA = [&](Value m0, int64_t k0) -> SmallVector<Value> {
    if (tf32) {
      Value rowLo = arith::AddIOp::create(b, loc, m0, g), rowHi = plus(rowLo, 8);
      Value k = plus(t, k0);
      return {toTf32(aAt(rowLo, k)), toTf32(aAt(rowHi, k)),
              toTf32(aAt(rowLo, plus(k, 4))), toTf32(aAt(rowHi, plus(k, 4)))};
    }
    if (aT) // matrices (m 0-7 | 8-15) x (k 0-7 | 8-15), stored k-major
      return ldmatrix(aAddr(plus(arith::AddIOp::create(
                                     b, loc, laneMod8,
                                     arith::MulIOp::create(
                                         b, loc,
                                         arith::ShRUIOp::create(b, loc, lane,
                                                                i32(4)),
                                         i32(8))),
                                 k0),
                            arith::AddIOp::create(b, loc, m0, laneBit8)),
                      4, true);
    // Lane l names row l % 16 of the block, its left or right half for
    // l < 16 or not: the four matrices in the order of a0..a3.
    return ldmatrix(aAddr(arith::AddIOp::create(b, loc, m0, laneMod16),
                          plus(laneHalf8, k0)),
                    4, false);
  };
  // The B fragment of the kStep x 8 block at (k0, n0): b0, b1.
  auto fragB = [&](Value n0, int64_t k0) -> SmallVector<Value> {
    if (tf32) {
      Value col = arith::AddIOp::create(b, loc, n0, g);
      Value k = plus(t, k0);
      return {toTf32(bAt(k, col)), toTf32(bAt(plus(k, 4), col))};
    }
    if (bT) // stored n-major: rows n0 + l % 8, halves k0 and k0 + 8
      return ldmatrix(bAddr(arith::AddIOp::create(b, loc, n0, laneMod8),
                            plus(laneBit8, k0)),
                      2, false);
    // Stored k-major, read transposed: lanes 0..15 name rows k0..k0+15.
    return ldmatrix(bAddr(plus(laneMod16, k0), n0), 2, true);
  };
  auto mmaSync = [&](ArrayRef<Value> aFrag, ArrayRef<Value> bFrag,
                     ArrayRef<Value> acc) -> SmallVector<Value> {
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), {f32Type, f32Type, f32Type, f32Type});
    NVVM::MMATypes ptx = tf32               ? NVVM::MMATypes::tf32
                         : element.isBF16() ? NVVM::MMATypes::bf16
                                            : NVVM::MMATypes::f16;
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, aFrag, bFrag, acc, {16, 8, kStep}, std::nullopt,
        std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return out;
  };

  if (inPlace) {
    // Warp (wm, wn), wn fastest; its blocks repeat every 16 * WM rows and
    // 8 * WN columns. Register (2i + h) * 2R + 2j + e holds row h * 8 + g,
    // column 2t + e of block (i, j) (Distribution's order for this layout).
    unsigned WM = mmaLayout.getWarpsPerCTA()[0],
             WN = mmaLayout.getWarpsPerCTA()[1];
    int64_t repsM = M / (16 * WM), repsN = N / (8 * WN);
    Value warpN = arith::RemUIOp::create(b, loc, warp, i32(WN));
    Value warpM = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, warp, i32(WN)), i32(WM));
    Value mBase = arith::MulIOp::create(b, loc, warpM, i32(16));
    Value nBase = arith::MulIOp::create(b, loc, warpN, i32(8));
    SmallVector<Value> acc(regs[op.getAcc()]);
    auto reg = [&](int64_t i, int64_t h, int64_t j, int64_t e) {
      return (2 * i + h) * (2 * repsN) + 2 * j + e;
    };
    for (int64_t k0 = 0; k0 < K; k0 += kStep) {
      SmallVector<SmallVector<Value>> aFrags, bFrags;
      for (int64_t i = 0; i < repsM; ++i)
        aFrags.push_back(
            aInRegs ? registerFragmentA(aSrc, K, i, k0, element.isBF16())
                    : fragA(plus(mBase, i * 16 * WM), k0));
      for (int64_t j = 0; j < repsN; ++j)
        bFrags.push_back(fragB(plus(nBase, j * 8 * WN), k0));
      for (int64_t i = 0; i < repsM; ++i)
        for (int64_t j = 0; j < repsN; ++j) {
          SmallVector<Value> c = {acc[reg(i, 0, j, 0)], acc[reg(i, 0, j, 1)],
                                  acc[reg(i, 1, j, 0)], acc[reg(i, 1, j, 1)]};
          SmallVector<Value> d = mmaSync(aFrags[i], bFrags[j], c);
          acc[reg(i, 0, j, 0)] = d[0];
          acc[reg(i, 0, j, 1)] = d[1];
          acc[reg(i, 1, j, 0)] = d[2];
          acc[reg(i, 1, j, 1)] = d[3];
        }
    }
    regs[op.getResult()] = acc;
    return success();
  }

  int64_t subN = N / 8, numSub = (M / 16) * subN;
  int64_t rounds = (numSub + numWarps - 1) / numWarps;
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
          for (int64_t k0 = 0; k0 < K; k0 += kStep)
            acc = mmaSync(fragA(m0, k0), fragB(n0, k0), acc);
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

/// An A operand in an accumulator layout with warps along M only holds, in
/// each thread, the A fragments of its warp (mma.sync's m16n8k16, which
/// wgmma's register form takes per warp too): a0..a3 of 16-row block i at
/// k0 are rows g and g + 8 of the 8-column blocks k0 / 8 and k0 / 8 + 1 (the
/// accumulator's register order with K / 8 column blocks), as pairs.
SmallVector<Value> KernelEmitter::registerFragmentA(Value a, int64_t K,
                                                    int64_t i, int64_t k0,
                                                    bool asWords) {
  Type element = cast<RankedTensorType>(a.getType()).getElementType();
  SmallVector<Value> elements = fragmentRegistersA(a, K, i, k0), frag;
  for (size_t p = 0; p < elements.size(); p += 2) {
    auto vecType = VectorType::get({2}, element);
    Value v = LLVM::UndefOp::create(b, loc, vecType);
    v = LLVM::InsertElementOp::create(b, loc, v, elements[p], i32(0));
    v = LLVM::InsertElementOp::create(b, loc, v, elements[p + 1], i32(1));
    frag.push_back(asWords ? Value(LLVM::BitcastOp::create(
                                 b, loc, b.getI32Type(), v))
                           : v);
  }
  return frag;
}

/// The registers of `a` that registerFragmentA(a, K, i, k0) reads, pair by
/// pair: rows g and g + 8 (h) of the 8-column blocks k0 / 8 and k0 / 8 + 1.
SmallVector<Value> KernelEmitter::fragmentRegistersA(Value a, int64_t K,
                                                     int64_t i, int64_t k0) {
  ArrayRef<Value> aRegs = regs[a];
  int64_t repsK = K / 8, j = k0 / 8;
  SmallVector<Value> out;
  for (int64_t jj : {j, j + 1})
    for (int64_t h = 0; h < 2; ++h) {
      int64_t r = (2 * i + h) * (2 * repsK) + 2 * jj;
      out.append({aRegs[r], aRegs[r + 1]});
    }
  return out;
}

namespace {
/// Moves, step by step, the operations of a block that compute nothing but
/// a tile's registers down to the step that first reads them
/// (wgmma_interleave). Only operations without memory effects, regions or
/// other users move, and only later in their block, before the users they
/// all have there: what they read is still defined before them, and what
/// reads them still comes after. (Constants stay: the emitter may reuse
/// one anywhere.)
class SinkIntoSteps {
public:
  SinkIntoSteps(Block *block, ArrayRef<Value> roots) : block(block) {
    SmallVector<Operation *> worklist;
    auto visit = [&](Value v) {
      if (Operation *def = v.getDefiningOp())
        worklist.push_back(def);
    };
    for (Value v : roots)
      visit(v);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (op->getBlock() != block || !movable(op) ||
          !candidates.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        visit(operand);
    }
    // Those with a user outside the set (an operation emitted before the
    // mma that reads it too) stay, and so do the operations they read.
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : llvm::to_vector(candidates))
        if (llvm::any_of(op->getUsers(), [&](Operation *user) {
              return !candidates.contains(user);
            })) {
          candidates.erase(op);
          changed = true;
        }
    }
  }

  /// Moves the candidates that `values` need and that have not moved yet
  /// to `b`'s insertion point, in their order.
  void moveBefore(ArrayRef<Value> values, OpBuilder &b) {
    assert(b.getInsertionBlock() == block && "steps in the same block");
    SmallVector<Operation *> slice, worklist;
    for (Value v : values)
      if (Operation *def = v.getDefiningOp())
        worklist.push_back(def);
    DenseSet<Operation *> seen;
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!candidates.contains(op) || moved.contains(op) ||
          !seen.insert(op).second)
        continue;
      slice.push_back(op);
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
    }
    llvm::sort(slice, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    for (Operation *op : slice) {
      op->moveBefore(block, b.getInsertionPoint());
      moved.insert(op);
    }
  }

private:
  static bool movable(Operation *op) {
    if (op->getNumRegions() || op->hasTrait<OpTrait::ConstantLike>())
      return false;
    if (isMemoryEffectFree(op))
      return true;
    // The NVVM math the elementwise lowering calls (no memory, no
    // convergence).
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      StringRef name = call.getIntrin();
      return name.starts_with("llvm.nvvm.ex2.approx") ||
             name.starts_with("llvm.nvvm.lg2.approx") ||
             name.starts_with("llvm.nvvm.ff2bf16x2") ||
             name.starts_with("llvm.nvvm.ff2f16x2") ||
             name.starts_with("llvm.nvvm.f2tf32");
    }
    return false;
  }

  Block *block;
  DenseSet<Operation *> candidates, moved;
};
} // namespace

bool KernelEmitter::takesRegisterA(tile::MmaOp op) {
  auto aLayout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
      tilegpu::getLayout(op.getA().getType()));
  IntegerAttr hint =
      kernelHint(usesTcgen05(op) ? "tcgen05_tmem_a" : "wgmma_register_a");
  // (Not tf32: its register fragments are not the 16-bit pairs.)
  return op.getPrecision() != tile::Precision::tf32 &&
         !foldedTranspose(op.getA()) && aLayout &&
         aLayout == tilegpu::getLayout(op.getAcc().getType()) &&
         (!hint || hint.getInt() != 0);
}

/// wgmma.mma_async m64nNk16 (m64nNk8 for tf32) on sm_90a, or tcgen05.mma on
/// sm_100a/sm_103a
/// (operands as below, the rest in emitTcgen05). Operands copied by the TMA
/// are read where they landed (128-byte swizzle); an A computed in registers
/// in the accumulator's layout goes from registers (wgmma; tcgen05: through
/// tensor memory), unless the kernel's wgmma_register_a (tcgen05_tmem_a)
/// hint is 0; other operands are staged in shared memory
/// in 8x8 core matrices of 16-byte rows (no swizzle; the tile's 8x8 blocks
/// row-major, see stagedIndex), by cp.async for loads that only feed the mma
/// (prefetched ahead in loops: emitFor), else from registers;
/// stores and copies are made visible to the asynchronous proxy
/// (fence.proxy.async) before the barrier. A descriptor gives each operand's
/// start, the distance between core matrices along K (LBO) and along M/N
/// (SBO). Warpgroup g (warps 4g..4g+3) computes rows 64 g (+ 16 W i) of the
/// accumulator, which is already in its registers: the #tilegpu.mma layout
/// [W, 1] is wgmma's accumulator layout, per 8-column block j the registers
/// d[4 j .. 4 j + 3] = rows (g, g + 8) x columns (2t, 2t + 1).
LogicalResult KernelEmitter::emitAsyncMma(tile::MmaOp op, Value aSrc,
                                          Value bSrc, bool aT, bool bT) {
  bool tcgen05 = usesTcgen05(op);
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  int64_t M = cType.getDimSize(0), N = cType.getDimSize(1),
          K = aType.getDimSize(1);
  Type element = aType.getElementType();
  int64_t eb = storageBytes(element);
  bool tf32 = op.getPrecision() == tile::Precision::tf32;
  // Elements per 32-byte K step, per 16-byte core-matrix row and per
  // 128-byte swizzle panel.
  int64_t kStep = asyncKStep(op), cw = 16 / eb, panel = 128 / eb;
  // Loads copied by TMA are staged swizzled (128-byte panels), the rest in
  // core matrices.
  StageLayout aStage = stagingOf(aSrc, operandStage(op, true, aT)),
              bStage = stagingOf(bSrc, operandStage(op, false, bT));
  // An A computed in registers in the accumulator's own layout (an mma
  // result scaled in registers, say) holds in each thread the fragments
  // wgmma takes from registers (those of mma.sync's m16n8k16 A per warp,
  // warps along M): it goes to the mma without shared memory.
  // tcgen05 reads such an A from tensor memory, where its threads store it
  // (data path layout of M = 64: the warps' rows as the accumulator's).
  // Either unless the kernel's hint says 0 (takesRegisterA).
  bool aInRegs = takesRegisterA(op) && regs.count(aSrc);
  // In tensor memory A takes K / 2 columns (two 16-bit elements a column)
  // per 64-row block next to the accumulator's N, stored 8 columns per
  // 16x128b repeat (a power of two).
  if (tcgen05 && aInRegs)
    aInRegs = tmemAColumn0(op, M / 64, N) + M / 64 * K / 2 <= 512 &&
              llvm::isPowerOf2_64(K / 8);
  bool aPre = aInRegs || prefetchedAt.count(aSrc) || residentAt.count(aSrc),
       bPre = prefetchedAt.count(bSrc) || residentAt.count(bSrc);
  // A B computed from a load whose copy a ring holds (operand_in_place,
  // loadsIntoComputedOperand): written back into that buffer, swizzled as
  // the TMA copied it (the load's tile and B have one type: the same
  // elements at the same places), where the mma reads it. The threads read
  // the copy where the load stands (after its mbarrier: no proxy fence
  // before writing); where an element has several holders, its owner
  // writes it only after a barrier (the others may not have read it yet).
  Value bSlot;
  bool bShared = false;
  if (auto it = computedOperandSlot.find(op); it != computedOperandSlot.end()) {
    auto [slot, loaded] = it->second;
    computedOperandSlot.erase(it);
    if (!tcgen05 && !bPre) {
      bSlot = slot;
      bStage = StageLayout::swizzled128();
      bShared =
          !heldOnce(distributionOf(cast<RankedTensorType>(loaded.getType())));
    }
  }
  int64_t offB = aPre ? 0 : (M * K * eb + 127) / 128 * 128;
  if (bStage.swizzled)
    offB = (offB + 1023) / 1024 * 1024;
  if (!(aPre && (bPre || bSlot)) || bShared) {
    if ((!aPre && aStage.swizzled) || (!bPre && !bSlot && bStage.swizzled))
      fenceAsyncShared();
    barrier();
  }
  Staged aStaged = aInRegs ? Staged{Value(), false, false}
                           : stageOperand(aSrc, 0, aStage, 0);
  Staged bStaged{bSlot, false, false};
  if (bSlot)
    writeTile(bSrc, 0, bStage, bSlot);
  else
    bStaged = stageOperand(bSrc, offB, bStage, 1);
  auto [aThreads, bThreads] = waitForOperands(aInRegs, aStaged, bStaged);
  // What the threads wrote (or copied with cp.async) must reach the
  // asynchronous proxy the tensor cores read through; TMA copies are there
  // already.
  if (aThreads || bThreads) {
    fenceAsyncShared();
    barrier();
  }

  Type i64Type = b.getI64Type();
  auto addressOf = [&](Value ptr) -> Value {
    return LLVM::PtrToIntOp::create(b, loc, i64Type, ptr);
  };
  Value aAddr = aInRegs ? Value() : addressOf(aStaged.base),
        bAddr = addressOf(bStaged.base);
  // Descriptor: start >> 4 (bits 0-13), LBO >> 4 (16-29), SBO >> 4 (32-45);
  // wgmma: layout (bits 62-63) 0 no swizzle, 1 the 128-byte swizzle;
  // tcgen05: version 1 (bits 46-48), swizzle mode (bits 61-63) 0 none, 2
  // the 128-byte swizzle. Both read the same canonical layouts (core
  // matrices, swizzle atoms), so LBO and SBO mean the same.
  // Every descriptor is its operand's base descriptor plus a byte offset
  // >> 4 added to the low word: the K steps and row blocks then cost one
  // 32-bit add each (ptxas had kept the 64-bit shift, mask and or per
  // wgmma), and the bases, the same expression for every step, are common
  // subexpressions LLVM forms once. No carry leaves the start field:
  // a shared-memory address is below 2^18 bytes (228 KB on sm_90a and
  // sm_100a) with or without the offset, and every offset is a multiple of
  // 16 bytes.
  auto descriptor = [&](Value address, Value offset, int64_t lbo,
                        int64_t sbo, bool swizzled = false) -> Value {
    Type i32Type = b.getI32Type();
    Value start = arith::TruncIOp::create(
        b, loc, i32Type,
        arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, address, i64(4)),
            i64(0x3FFF)));
    Value low = arith::AddIOp::create(
        b, loc, arith::OrIOp::create(b, loc, start, i32((lbo >> 4) << 16)),
        arith::TruncIOp::create(
            b, loc, i32Type, arith::ShRUIOp::create(b, loc, offset, i64(4))));
    int64_t high = sbo >> 4;
    if (tcgen05)
      high |= (int64_t{1} << 14) | (swizzled ? int64_t{2} << 29 : 0);
    else
      high |= swizzled ? int64_t{1} << 30 : 0;
    return arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64Type, low),
        i64(high << 32));
  };
  // A 128-byte swizzled operand (TMA): `rows` staged rows of 128-byte
  // panels (`panel` elements: 64 16-bit, 32 f32), 8-row groups 1024 bytes
  // apart (SBO). K-major (K along the staged rows): the K step at k0 starts
  // k0 % panel elements into panel k0 / panel, LBO unused (16). MN-major (K
  // down the staged rows): the step starts at row k0 of panel mn0 / panel,
  // and the next panel of M or N is `rows` x 128 bytes on (LBO).
  auto swizzledK = [&](Value address, int64_t rows, Value row0, int64_t k0) {
    Value offset = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row0, i64(128)),
        i64((k0 / panel) * rows * 128 + (k0 % panel) * eb));
    return descriptor(address, offset, 16, 1024, true);
  };
  auto swizzledMN = [&](Value address, int64_t rows, Value mn0, int64_t k0) {
    Value offset = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc,
            arith::ShRUIOp::create(b, loc, mn0, i64(llvm::Log2_64(panel))),
            i64(rows * 128)),
        i64(k0 * 128));
    return descriptor(address, offset, rows * 128, 1024, true);
  };
  // Core matrix (r / 8, c / cw) of a staged R x C tile (cw = 16 bytes of
  // elements) is at byte ((r / 8) * (C / cw) + c / cw) * 128. Along its
  // columns: 128 bytes; along its rows: C / cw * 128. K-major tiles have K
  // along the columns.
  auto coreAt = [&](Value row, int64_t col, int64_t cols) -> Value {
    Value rowBytes = arith::MulIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, row, i64(3)),
        i64(cols / cw * 128));
    return arith::AddIOp::create(b, loc, rowBytes, i64(col / cw * 128));
  };
  // A: M x K staged (K-major: LBO 128 along K, SBO K/cw*128 along M), or
  // K x M (M-major: SBO 128 along M, LBO M/cw*128 along K).
  auto descA = [&](Value m0, int64_t k0) -> Value {
    if (aStage.swizzled)
      return aT ? swizzledMN(aAddr, K, m0, k0) : swizzledK(aAddr, M, m0, k0);
    if (!aT)
      return descriptor(aAddr, coreAt(m0, k0, K), 128, K / cw * 128);
    Value offset = arith::AddIOp::create(
        b, loc, coreAt(i64(k0), 0, M),
        arith::MulIOp::create(b, loc, arith::ShRUIOp::create(b, loc, m0, i64(3)),
                              i64(128)));
    return descriptor(aAddr, offset, M / cw * 128, 128);
  };
  // B: N x K staged when transposed (K-major), else K x N (N-major).
  auto descB = [&](int64_t k0) -> Value {
    if (bStage.swizzled)
      return bT ? swizzledK(bAddr, N, i64(0), k0)
                : swizzledMN(bAddr, K, i64(0), k0);
    if (bT)
      return descriptor(bAddr, coreAt(i64(0), k0, K), 128, K / cw * 128);
    return descriptor(bAddr, coreAt(i64(k0), 0, N), N / cw * 128, 128);
  };

  if (tcgen05)
    return emitTcgen05(
        op, [&](int64_t m0, int64_t k0) { return descA(i64(m0), k0); }, descB,
        aT, bT, aInRegs ? aSrc : Value());

  unsigned W = numWarps;
  int64_t repsM = M / (16 * W), repsN = N / 8;
  Value warpgroup = arith::DivUIOp::create(b, loc, warp, i32(4));
  Value wgRow = arith::ExtUIOp::create(
      b, loc, i64Type, arith::MulIOp::create(b, loc, warpgroup, i32(64)));
  SmallVector<Value> acc(regs[op.getAcc()]);
  auto reg = [&](int64_t i, int64_t h, int64_t j, int64_t e) {
    return (2 * i + h) * (2 * repsN) + 2 * j + e;
  };
  Type f32Type = b.getF32Type();
  auto structType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(N / 2, f32Type));
  NVVM::WGMMATypes type = tf32              ? NVVM::WGMMATypes::tf32
                          : element.isBF16() ? NVVM::WGMMATypes::bf16
                                             : NVVM::WGMMATypes::f16;
  // Register fragments are built before the fence, each pinned there by an
  // empty side-effecting asm: an instruction defining one between the fence
  // and the wgmmas would make ptxas insert its own warpgroup.arrive and
  // serialise the wgmmas.
  // wgmma_defer_wait (deferredWgmma): the previous iteration's group is
  // waited for right before this one's fragments are pinned (or its fence),
  // and this one's after the loop. Only with operands in registers or
  // where nothing but the rings' refills writes them (aPre, bPre): staged
  // ones are rewritten by the threads before every group. The pins then
  // copy (mov) the fragments into registers of their own: computed in
  // place, the next iteration's A would overwrite registers the running
  // group reads.
  // (emitFor deferred it only where A is in registers at hint 2.)
  bool deferred = deferredMmas.contains(op) && aPre && bPre;
  bool waited = false;
  auto waitForPrevious = [&] {
    if (deferred && !waited)
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    waited = true;
  };
  auto pinnedFragment = [&](int64_t i, int64_t k0) {
    waitForPrevious();
    SmallVector<Value> frag = registerFragmentA(aSrc, K, i, k0, true);
    for (Value &word : frag)
      word = LLVM::InlineAsmOp::create(
                 b, loc, b.getI32Type(), ValueRange{word},
                 deferred ? "mov.b32 $0, $1;" : "", deferred ? "=r,r" : "=r,0",
                 /*has_side_effects=*/true, /*is_align_stack=*/false,
                 LLVM::tailcallkind::TailCallKind::None,
                 LLVM::AsmDialectAttr(), ArrayAttr())
                 .getResult(0);
    return frag;
  };
  auto issue = [&](Value d, Value m0, int64_t k0, ArrayRef<Value> frag) {
    if (aInRegs)
      return wgmmaRegisterA(structType, d, frag, descB(k0), N, element, bT);
    return NVVM::WgmmaMmaAsyncOp::create(
               b, loc, structType, d, descA(m0, k0), descB(k0),
               NVVM::MMAShapeAttr::get(b.getContext(), 64, N, kStep),
               NVVM::WGMMATypesAttr::get(b.getContext(), type),
               NVVM::WGMMATypesAttr::get(b.getContext(), type),
               NVVM::WGMMATypesAttr::get(b.getContext(), NVVM::WGMMATypes::f32),
               NVVM::WGMMAScaleOutAttr::get(b.getContext(),
                                            NVVM::WGMMAScaleOut::one),
               NVVM::WGMMAScaleInAttr::get(b.getContext(),
                                           NVVM::WGMMAScaleIn::one),
               NVVM::WGMMAScaleInAttr::get(b.getContext(),
                                           NVVM::WGMMAScaleIn::one),
               NVVM::MMALayoutAttr::get(b.getContext(),
                                        aT ? NVVM::MMALayout::col
                                           : NVVM::MMALayout::row),
               NVVM::MMALayoutAttr::get(b.getContext(),
                                        bT ? NVVM::MMALayout::col
                                           : NVVM::MMALayout::row),
               NVVM::MMAIntOverflowAttr())
        .getResult();
  };
  // Row block i's accumulator as the wgmma's struct, and its first row.
  auto accStruct = [&](int64_t i) {
    Value d = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t j = 0; j < repsN; ++j)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e)
          d = LLVM::InsertValueOp::create(b, loc, d, acc[reg(i, h, j, e)],
                                          4 * j + 2 * h + e);
    return d;
  };
  auto rowOf = [&](int64_t i) -> Value {
    return arith::AddIOp::create(b, loc, wgRow, i64(i * 16 * W));
  };
  SmallVector<Value> results;
  // The kernel hint wgmma_interleave: with A from registers, each K step's
  // fragments are computed right before its own fence and wgmmas, so that
  // the tensor cores work on step k while the warps compute step k + 1
  // (one commit and wait after all of them, as without it). The pure
  // operations that compute nothing but A (SinkIntoSteps) move down to the
  // step that first needs them.
  IntegerAttr interleave = kernelHint("wgmma_interleave");
  if (aInRegs && interleave && interleave.getInt() != 0 && K > 16) {
    SmallVector<Value> m0s;
    for (int64_t i = 0; i < repsM; ++i) {
      results.push_back(accStruct(i));
      m0s.push_back(rowOf(i));
    }
    SinkIntoSteps sink(b.getInsertionBlock(), regs[aSrc]);
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      SmallVector<SmallVector<Value>> frags;
      for (int64_t i = 0; i < repsM; ++i) {
        sink.moveBefore(fragmentRegistersA(aSrc, K, i, k0), b);
        frags.push_back(pinnedFragment(i, k0));
      }
      NVVM::WgmmaFenceAlignedOp::create(b, loc);
      for (int64_t i = 0; i < repsM; ++i)
        results[i] = issue(results[i], m0s[i], k0, frags[i]);
    }
  } else {
    SmallVector<SmallVector<Value>> aFrags;
    if (aInRegs)
      for (int64_t i = 0; i < repsM; ++i)
        for (int64_t k0 = 0; k0 < K; k0 += 16)
          aFrags.push_back(pinnedFragment(i, k0));
    waitForPrevious();
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    for (int64_t i = 0; i < repsM; ++i) {
      Value d = accStruct(i), m0 = rowOf(i);
      for (int64_t k0 = 0; k0 < K; k0 += kStep)
        d = issue(d, m0, k0,
                  aInRegs ? ArrayRef<Value>(aFrags[i * (K / 16) + k0 / 16])
                          : ArrayRef<Value>());
      results.push_back(d);
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  if (!deferred)
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  for (int64_t i = 0; i < repsM; ++i)
    for (int64_t j = 0; j < repsN; ++j)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e)
          acc[reg(i, h, j, e)] = LLVM::ExtractValueOp::create(
              b, loc, results[i], 4 * j + 2 * h + e);
  regs[op.getResult()] = acc;
  return success();
}

// NVVM's wgmma op takes A by descriptor only; the register form is written
// the way that op is lowered (inline PTX, accumulators tied in and out).
Value KernelEmitter::wgmmaRegisterA(Type structType, Value d,
                                    ArrayRef<Value> a, Value descB, int64_t N,
                                    Type element, bool bT) {
  int64_t n = N / 2;
  std::string asmText, constraints;
  llvm::raw_string_ostream text(asmText), cons(constraints);
  text << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << n + n + 5
       << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << N << "k16.f32."
       << (element.isBF16() ? "bf16.bf16" : "f16.f16") << " {";
  for (int64_t r = 0; r < n; ++r)
    text << (r ? ", $" : "$") << r;
  text << "}, {$" << 2 * n << ", $" << 2 * n + 1 << ", $" << 2 * n + 2
       << ", $" << 2 * n + 3 << "}, $" << 2 * n + 4 << ", p, 1, 1, "
       << (bT ? 0 : 1) << ";\n}";
  SmallVector<Value> operands;
  for (int64_t r = 0; r < n; ++r) {
    cons << "=f,";
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, d, r));
  }
  for (int64_t r = 0; r < n; ++r)
    cons << r << ",";
  cons << "r,r,r,r,l,n";
  operands.append(a.begin(), a.end());
  operands.push_back(descB);
  operands.push_back(i32(1));
  return LLVM::InlineAsmOp::create(b, loc, structType, operands, asmText,
                                   constraints, /*has_side_effects=*/true,
                                   /*is_align_stack=*/false,
                                   LLVM::tailcallkind::TailCallKind::None,
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

} // namespace tessel::codegen::emitter
