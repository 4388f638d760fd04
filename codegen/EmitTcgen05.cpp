//===- EmitTcgen05.cpp - tile.mma on tensor memory ------------------------===//
//
// tile.mma as tcgen05.mma on sm_100a/sm_103a: the tensor-memory allocation,
// accumulators moved to and from it (tcgen05.st/ld), accumulators resident
// across loops, and an A operand from registers through tensor memory.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

namespace tessel::codegen::emitter {

using namespace mlir;

bool KernelEmitter::usesTcgen05(tile::MmaOp op) {
  // (AssignLayouts marks the kernels that may: see the 'tcgen05' hint.)
  if (!kernel->hasAttr(tilegpu::TileGPUDialect::getTcgen05AttrName()))
    return false;
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto layout = asyncAccLayout(op);
  int64_t M = cType.getDimSize(0), N = cType.getDimSize(1),
          K = aType.getDimSize(1);
  // 64-row blocks whose rows the warps hold as tcgen05.ld/st's 16x256b
  // shape places them (see emitTcgen05); N / 8 a power of two (the ld/st
  // repeat counts) up to 256; every block's N columns within the 512 of
  // tensor memory.
  return numWarps == 4 && layout && layout.getWarpsPerCTA()[0] == 4 &&
         layout.getWarpsPerCTA()[1] == 1 && M % 64 == 0 && N % 8 == 0 &&
         llvm::isPowerOf2_64(N / 8) && N <= 256 && M / 64 * N <= 512 &&
         K % asyncKStep(op) == 0;
}

Value KernelEmitter::tmemBase() {
  // tcgen05.alloc wrote the address to tessel_tmem (see run()); every
  // thread reads it.
  Value slot = LLVM::AddressOfOp::create(b, loc, tmemSlot);
  Value word = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 6), word);
}

LogicalResult
KernelEmitter::emitTcgen05(tile::MmaOp op,
                           function_ref<Value(int64_t, int64_t)> descA,
                           function_ref<Value(int64_t)> descB, bool aT,
                           bool bT, Value aRegs) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  int64_t M = cType.getDimSize(0), N = cType.getDimSize(1),
          K = aType.getDimSize(1);
  int64_t blocks = M / 64;
  // Columns: after those the resident accumulators of the enclosing loops
  // hold (tmemReserved), one N-wide range per 64-row block (unless this
  // mma's accumulator is one of them, at residentColumn), then (A from
  // registers) K / 2 per block for A; a power of two >= 32.
  bool isResident = residentAcc.contains(op);
  int64_t accColumn0 = isResident ? residentColumn.lookup(op) : tmemReserved;
  int64_t aColumn0 = tmemAColumn0(op, blocks, N);
  int64_t needed = std::max(accColumn0 + blocks * N,
                            aColumn0 + (aRegs ? blocks * K / 2 : 0));
  // (tmemResidentMma keeps residents only where the others fit beside them.)
  if (needed > 512)
    return op.emitOpError()
           << "needs tensor-memory columns up to " << needed
           << " beside the accumulators kept resident around it; there are "
              "512";
  int64_t columns = 32;
  while (columns < needed)
    columns *= 2;
  tmemColumns = std::max(tmemColumns, columns);
  if (tcgen05Mbar < 0)
    tcgen05Mbar = numMbarriers++;
  MLIRContext *ctx = b.getContext();
  Type i32Type = b.getI32Type();
  Value tmem = tmemBase();
  auto tmemAt = [&](Value laneBase, int64_t column) {
    return this->tmemAt(tmem, laneBase, column);
  };
  Value laneBase = tmemLaneBase();
  // A zero accumulator is not moved: the first MMA overwrites. One that
  // stays in tensor memory across its loop (residentAcc) is already there.
  bool zeroAcc = !isResident && matchPattern(op.getAcc(), m_AnyZeroFloat());
  if (!zeroAcc && !isResident)
    tmemStoreAcc(tmem, laneBase, regs[op.getAcc()], blocks, N, accColumn0);
  // A from registers: the M = 64 data path puts A's rows where it puts the
  // accumulator's (warp w's 16 rows in lanes 32 w ..), two 16-bit elements
  // of a row per 32-bit column. Per 16-wide K step the thread's words are
  // mma.sync's A fragments a0..a3 (rows l / 4 and 8 + l / 4, element pairs
  // 2 (l % 4) and 8 + 2 (l % 4)), and the 16x128b shape's register 2 r + h
  // of a warp is lane 8 h + l / 4, column 4 r + l % 4: a0 a1 are repeat
  // 2 s and a2 a3 repeat 2 s + 1 of step s. K / 8 repeats per block.
  if (aRegs) {
    auto aShape = NVVM::Tcgen05LdStShapeAttr::get(
        ctx, NVVM::Tcgen05LdStShape::SHAPE_16X128B);
    auto aVecType = VectorType::get({K / 4}, i32Type);
    for (int64_t i = 0; i < blocks; ++i) {
      Value v = LLVM::UndefOp::create(b, loc, aVecType);
      int64_t r = 0;
      for (int64_t k0 = 0; k0 < K; k0 += 16)
        for (Value word : registerFragmentA(aRegs, K, i, k0, /*asWords=*/true))
          v = LLVM::InsertElementOp::create(b, loc, v, word, i32(r++));
      NVVM::Tcgen05StOp::create(b, loc, UnitAttr(), aShape,
                                tmemAt(laneBase, aColumn0 + i * (K / 2)), v,
                                Value());
    }
  }
  if ((!zeroAcc && !isResident) || aRegs)
    NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::STORE);
  // Everyone's stores (and the operands) before the MMAs.
  tcgen05Barrier();

  Type element = aType.getElementType();
  bool tf32 = op.getPrecision() == tile::Precision::tf32;
  int64_t kStep = asyncKStep(op);
  // Instruction descriptor (kind::f16, or kind::tf32): f32 D (bits 4-5 =
  // 1), A and B bf16 (1), f16 (0) or tf32 (2) at bits 7-9 and 10-12, A
  // M-major (bit 15) when staged transposed, B N-major (bit 16) unless
  // staged transposed (N x K), N >> 3 at bits 17-22, M >> 4 at bits 24-28.
  int64_t ab = tf32 ? 2 : element.isBF16() ? 1 : 0;
  int64_t idesc = (1 << 4) | (ab << 7) | (ab << 10) |
                  (int64_t{aT} << 15) | (int64_t{!bT} << 16) |
                  ((N >> 3) << 17) | ((64 >> 4) << 24);
  onlyWhere(isZero(tid), [&] {
        for (int64_t i = 0; i < blocks; ++i)
          for (int64_t k0 = 0; k0 < K; k0 += kStep) {
            Value enable = arith::ConstantOp::create(
                b, loc, b.getBoolAttr(k0 > 0 || !zeroAcc));
            NVVM::Tcgen05MMAOp::create(
                b, loc,
                tf32 ? NVVM::Tcgen05MMAKind::TF32 : NVVM::Tcgen05MMAKind::F16,
                NVVM::CTAGroupKind::CTA_1,
                NVVM::Tcgen05MMACollectorOp::DISCARD, /*aShift=*/false,
                tmemAt(Value(), accColumn0 + i * N),
                aRegs ? tmemAt(Value(), aColumn0 + i * (K / 2) + k0 / 2)
                      : descA(64 * i, k0),
                descB(k0),
                i32(idesc), enable,
                Value(), Value());
          }
        // The mbarrier's phase completes when these MMAs have.
        NVVM::Tcgen05CommitOp::create(b, loc, mbarAddress(MbarRef{tcgen05Mbar, Value()}),
                                      Value(), NVVM::CTAGroupKind::CTA_1);
  });
  waitTma(MbarRef{tcgen05Mbar, Value()});
  NVVM::Tcgen05FenceOp::create(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  // A resident accumulator stays where it is: the result's registers are
  // the loop's stale ones, never read (emitFor loads it after the loop).
  if (isResident) {
    regs[op.getResult()] = SmallVector<Value>(regs[op.getAcc()]);
    return success();
  }
  // The staging buffers and tensor memory are free again only once every
  // warp has read its rows: the next mma's barrier orders that.
  regs[op.getResult()] = tmemLoadAcc(tmem, laneBase, blocks, N, accColumn0);
  return success();
}

Value KernelEmitter::tmemAt(Value tmem, Value laneBase, int64_t column) {
  // Lane (bits 16-31) and column (bits 0-15) of a tensor-memory address.
  Type i32Type = b.getI32Type();
  Value addr = LLVM::PtrToIntOp::create(b, loc, i32Type, tmem);
  if (laneBase)
    addr = arith::AddIOp::create(
        b, loc, addr, arith::ShLIOp::create(b, loc, laneBase, i32(16)));
  if (column)
    addr = arith::AddIOp::create(b, loc, addr, i32(column));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 6), addr);
}

Value KernelEmitter::tmemLaneBase() {
  return arith::MulIOp::create(b, loc, warp, i32(32));
}

// Warp w holds rows 16 w .. 16 w + 15 of each 64-row block (the accumulator
// layout [4, 1]); an M = 64 MMA puts them in lanes 32 w .. 32 w + 15 of its
// columns, which warp w reads and writes with the 16x256b shape: its
// register 4 j + 2 h + e is row 8 h + l / 4, column 8 j + 2 (l % 4) + e,
// which this layout keeps in register (2 i + h) N / 4 + 2 j + e of block i
// (see emitMma's `reg`).
static int64_t tmemAccIndex(int64_t N, int64_t i, int64_t r) {
  int64_t j = r / 4, h = r / 2 % 2, e = r % 2;
  return i * 4 * (N / 8) + h * (N / 4) + 2 * j + e;
}

void KernelEmitter::tmemStoreAcc(Value tmem, Value laneBase,
                                 ArrayRef<Value> acc, int64_t blocks,
                                 int64_t N, int64_t column0) {
  Type i32Type = b.getI32Type();
  int64_t perBlock = 4 * (N / 8);
  auto vecType = VectorType::get({perBlock}, i32Type);
  auto shape = NVVM::Tcgen05LdStShapeAttr::get(
      b.getContext(), NVVM::Tcgen05LdStShape::SHAPE_16X256B);
  for (int64_t i = 0; i < blocks; ++i) {
    Value v = LLVM::UndefOp::create(b, loc, vecType);
    for (int64_t r = 0; r < perBlock; ++r)
      v = LLVM::InsertElementOp::create(
          b, loc, v,
          LLVM::BitcastOp::create(b, loc, i32Type,
                                  acc[tmemAccIndex(N, i, r)]),
          i32(r));
    NVVM::Tcgen05StOp::create(b, loc, UnitAttr(), shape,
                              tmemAt(tmem, laneBase, column0 + i * N), v,
                              Value());
  }
}

SmallVector<Value> KernelEmitter::tmemLoadAcc(Value tmem, Value laneBase,
                                              int64_t blocks, int64_t N,
                                              int64_t column0) {
  Type i32Type = b.getI32Type();
  int64_t perBlock = 4 * (N / 8);
  auto vecType = VectorType::get({perBlock}, i32Type);
  auto shape = NVVM::Tcgen05LdStShapeAttr::get(
      b.getContext(), NVVM::Tcgen05LdStShape::SHAPE_16X256B);
  SmallVector<Value> loaded(blocks * perBlock);
  for (int64_t i = 0; i < blocks; ++i) {
    Value v = NVVM::Tcgen05LdOp::create(b, loc, vecType, UnitAttr(), shape,
                                        tmemAt(tmem, laneBase, column0 + i * N),
                                        Value());
    for (int64_t r = 0; r < perBlock; ++r)
      loaded[tmemAccIndex(N, i, r)] =
          LLVM::ExtractElementOp::create(b, loc, v, i32(r));
  }
  NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
  // The loaded registers may be read only after the wait, which LLVM does
  // not know (they are plain values to it): each is taken through a
  // side-effecting move after the wait, which nothing can be hoisted above
  // (ptxas removes the moves).
  SmallVector<Value> out;
  for (Value word : loaded) {
    Value after = LLVM::InlineAsmOp::create(
                      b, loc, i32Type, ValueRange{word}, "mov.b32 $0, $1;",
                      "=r,r", /*has_side_effects=*/true,
                      /*is_align_stack=*/false,
                      LLVM::tailcallkind::TailCallKind::None,
                      LLVM::AsmDialectAttr(), ArrayAttr())
                      .getResult(0);
    out.push_back(LLVM::BitcastOp::create(b, loc, b.getF32Type(), after));
  }
  return out;
}

tile::MmaOp KernelEmitter::tmemResidentMma(scf::ForOp loop, unsigned i) {
  if (IntegerAttr hint = kernelHint("tcgen05_tmem_acc"); hint && !hint.getInt())
    return {};
  BlockArgument arg = loop.getRegionIterArgs()[i];
  if (!arg.hasOneUse())
    return {};
  auto mma = dyn_cast<tile::MmaOp>(*arg.getUsers().begin());
  if (!mma || mma.getAcc() != arg || mma->getBlock() != loop.getBody() ||
      !usesTcgen05(mma) || !mma.getResult().hasOneUse())
    return {};
  OpOperand &use = *mma.getResult().getUses().begin();
  if (!isa<scf::YieldOp>(use.getOwner()) ||
      use.getOperandNumber() != i ||
      use.getOwner()->getBlock() != loop.getBody())
    return {};
  // The result's layout is the accumulator's (the mma writes in place).
  if (tilegpu::getLayout(mma.getType()) != tilegpu::getLayout(arg.getType()))
    return {};
  // With other tcgen05 mmas in the body (nested loops included), only when
  // the hint is 2 and they fit after it: the columns it would hold, after
  // those already held, plus the most any mma there takes after them (an
  // accumulator and a register A, counted for every operand A), within the
  // 512 of tensor memory (compute_out's P·x: 64 resident columns, C·Bᵀ's
  // 64 after them, the 128 it allocates anyway).
  auto accColumns = [](tile::MmaOp m) {
    auto c = cast<RankedTensorType>(m.getAcc().getType());
    return c.getDimSize(0) / 64 * c.getDimSize(1);
  };
  auto aColumns = [](tile::MmaOp m) {
    auto c = cast<RankedTensorType>(m.getAcc().getType());
    auto a = cast<RankedTensorType>(m.getA().getType());
    return c.getDimSize(0) / 64 * a.getDimSize(1) / 2;
  };
  int tcgen05Mmas = 0;
  int64_t after = 0;
  loop.getBody()->walk([&](tile::MmaOp other) {
    if (!usesTcgen05(other))
      return;
    ++tcgen05Mmas;
    after = std::max(after, aColumns(other) +
                                (other == mma ? 0 : accColumns(other)));
  });
  if (tcgen05Mmas == 1)
    return mma;
  IntegerAttr hint = kernelHint("tcgen05_tmem_acc");
  bool withOthers = hint && hint.getInt() == 2 &&
                    tmemReserved + accColumns(mma) + after <= 512;
  return withOthers ? mma : tile::MmaOp();
}

} // namespace tessel::codegen::emitter
