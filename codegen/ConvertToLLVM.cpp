//===- ConvertToLLVM.cpp - --convert-tilegpu-to-llvm ----------------------===//
//
// Lowers kernels whose tiles carry layouts (after --tilegpu-assign-layouts)
// into llvm.func kernels. This is an emitter rather than a pattern-based
// dialect conversion: every tile value becomes the list of scalars that the
// running thread holds (Distribution tells which tile coordinates those are),
// and each op is re-emitted on those scalars. Structured control flow is kept
// (scf.for/scf.if with the scalars as iter args and results) and lowered by the
// upstream scf -> cf -> llvm conversions that follow.
//
// Layout changes (permute, broadcast, reshape, cumsum, reduce) stay in
// registers or use warp shuffles where the layouts allow it, and otherwise go
// through one shared-memory scratch buffer.
//
// This file holds the pass and the emitter's driver (emitBlock, emitOp, run:
// the kernel's entry, setup and warp roles). KernelEmitter.h declares the
// emitter, and its Emit*.cpp files emit each kind of op (listed there).
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"
#include "codegen/Target.h"

#include "passes/Passes.h"
#include "runtime/Images.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tessel {
#define GEN_PASS_DEF_CONVERTTILEGPUTOLLVM
#include "passes/Passes.h.inc"
} // namespace tessel

namespace tessel::codegen::emitter {

using namespace mlir;

constexpr StringLiteral kSharedName = "tessel_smem";
constexpr StringLiteral kDynamicSharedName = "tessel_dsmem";
constexpr StringLiteral kMbarrierName = "tessel_mbar";
constexpr StringLiteral kTmemSlotName = "tessel_tmem";

LogicalResult KernelEmitter::emitBlock(Block &block) {
  for (Operation &op : block) {
    if (auto it = unpackBefore.find(&op); it != unpackBefore.end()) {
      loc = op.getLoc();
      unpackPending(it->second);
    }
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue; // handled by the parent
    loc = op.getLoc();
    if (failed(emitOp(op)))
      return failure();
  }
  // A resident operand's copy completes before its block ends even where no
  // use ran (a loop of no iteration, an untaken branch): its buffer is then
  // free, and its mbarrier may take the next copy (a completed phase
  // answers at once).
  for (Operation &op : block)
    if (auto load = dyn_cast<tile::LoadOp>(op))
      if (auto it = residentAt.find(load.getResult()); it != residentAt.end())
        waitTma(it->second.bar);
  return success();
}

LogicalResult KernelEmitter::emitOp(Operation &op) {
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    if (auto it = wsPending.find(load); it != wsPending.end())
      takeRingCopy(*it->second);    // (then deferred to its mma, below)
    if (preloaded.contains(load)) { // issued an iteration ahead (emitFor)
      auto words = preloadedWords.find(load);
      if (words != preloadedWords.end())
        regs[load.getResult()] =
            unpackWords(load.getType().getElementType(), words->second);
      return success();
    }
    if (residentLoads.contains(load)) {
      emitResident(load);
      return success();
    }
    // (Marked by insert-tma, so copied by the TMA: tmaOf has it.)
    if (loadsIntoFragments(load))
      return emitFragmentLoad(load);
    if (loadsThroughShared(load) || loadsIntoComputedOperand(load))
      return emitSharedRegisterLoad(load);
    if (loadsIntoMma(load)) {
      deferredLoads.insert(load.getResult());
      return success();
    }
    return emitLoad(load);
  }
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return emitStore(store);
  if (auto prefetch = dyn_cast<tile::PrefetchOp>(op))
    return emitPrefetch(prefetch);
  if (isa<tile::SignalOp, tile::WaitOp>(op))
    return emitCounter(&op);
  if (auto ticket = dyn_cast<tile::TicketOp>(op))
    return emitTicket(ticket);
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
    Value size32 = arith::TruncIOp::create(b, loc, b.getI32Type(), size);
    // Non-negative (the runtime refuses sizes past 2^31 - 1): with the
    // grid indices, which LLVM knows to be, divisions and remainders of
    // them become unsigned (no sign fix-ups around the emulated 32-bit
    // division in SASS: compute_out's rh / h and hi / (h / g)).
    LLVM::AssumeOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, size32,
                              i32(0)));
    regs[dimOp.getResult()] = {size32};
    return success();
  }
  if (auto cumsum = dyn_cast<tile::CumsumOp>(op))
    return emitCumsum(cumsum);
  if (auto reduce = dyn_cast<tile::ReduceOp>(op))
    return emitReduce(reduce);
  if (auto permute = dyn_cast<tile::PermuteOp>(op)) {
    if (foldsIntoMma(permute)) {
      foldedPermutes.insert(permute.getResult());
      return success();
    }
    return emitPermute(permute);
  }
  if (auto bc = dyn_cast<tile::BroadcastOp>(op)) {
    auto srcType = cast<RankedTensorType>(bc.getSource().getType());
    auto type = cast<RankedTensorType>(bc.getType());
    int64_t offset = type.getRank() - srcType.getRank();
    if (offset == 0) {
      SmallVector<int64_t> srcDimOf;
      for (int64_t d = 0; d < type.getRank(); ++d)
        srcDimOf.push_back(srcType.getDimSize(d) == type.getDimSize(d) ? d
                                                                       : -1);
      if (remapInRegisters(bc.getSource(), bc.getResult(), srcDimOf))
        return success();
    }
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
    if (std::optional<SmallVector<int64_t>> srcDimOf = tilegpu::alignUnitDims(
            srcType.getShape(), type.getShape()))
      if (remapInRegisters(rs.getSource(), rs.getResult(), *srcDimOf) ||
          remapWordsInWarp(rs.getSource(), rs.getResult(), *srcDimOf))
        return success();
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

/// Whether `op` lies in (or is) one of thread 0's copy-issuing branches.
static bool inThreadZeroIssue(Operation *op) {
  for (; op; op = op->getParentOp())
    if (op->hasAttr(kThreadZeroIssue))
      return true;
  return false;
}

/// Whether `op` itself (not what its regions hold) is given a pointer into
/// shared memory to access (address arithmetic aside).
static bool usesSharedPointer(Operation *op) {
  if (isa<LLVM::GEPOp, LLVM::AddressOfOp, LLVM::AddrSpaceCastOp>(op))
    return false;
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto ptr = dyn_cast<LLVM::LLVMPointerType>(type);
    return ptr && ptr.getAddressSpace() == 3;
  });
}

/// Whether `op` or anything in its regions satisfies `pred`.
static bool holds(Operation *op, function_ref<bool(Operation *)> pred) {
  return op
      ->walk([&](Operation *inner) {
        return pred(inner) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether anything in `op` reads or writes shared memory.
static bool touchesShared(Operation *op) {
  return holds(op, usesSharedPointer);
}

/// Whether thread 0's copies may be issued before `op` instead of after
/// it: nothing in it writes memory or orders anything (barriers, fences,
/// the dependency wait, side-effecting asm); it may read global memory
/// (loads, prefetches) and exchange values in a warp. (Not past an
/// assumption: the index math moved with the copies would lose it, the
/// program ids' divisions becoming signed ones.)
static bool copiesMayPass(Operation *op) {
  return !holds(op, [](Operation *inner) {
    if (auto load = dyn_cast<LLVM::LoadOp>(inner))
      return load.getVolatile_() ||
             load.getAddr().getType().getAddressSpace() == 3;
    if (isa<NVVM::PrefetchOp, NVVM::ShflOp>(inner))
      return false;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner))
      return !effects.hasNoEffect();
    return !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  });
}

/// The hint early_copies: thread 0's first copies at the kernel's top level
/// (a loop's prologue: its first stages, each in a branch marked
/// kThreadZeroIssue, perhaps inside one on the loop's trip count), issued
/// as early as their operands allow instead of where the loop begins: moved
/// up, with the pure operations that compute their operands, past the
/// work that only reads global memory (index math, the first loads and
/// prefetches), up to the first op that writes memory or orders anything
/// (the dependency wait, the mbarriers' initialisation by thread 0 itself).
/// So the copies' latency overlaps the kernel's setup. Only where nothing
/// before them touches shared memory (the copies are its first use, no
/// other thread's access to order against) and none of them holds a
/// barrier or a proxy fence; stops at the first top-level op that uses an
/// mbarrier outside thread 0's branches (`limit`: the setup's barrier
/// goes right before it, so the other threads' first waits still come
/// after the mbarriers' initialisation).
static void hoistEarlyCopies(Block *entry, Operation *limit) {
  SmallVector<Operation *> candidates;
  for (Operation &op : *entry) {
    if (&op == limit || isa<NVVM::Barrier0Op>(op))
      break;
    if (holds(&op, [](Operation *inner) {
          return isa<NVVM::MBarrierInitOp, NVVM::FenceMbarrierInitOp>(inner);
        }))
      continue;
    if (holds(&op, [](Operation *inner) {
          return inner->hasAttr(kThreadZeroIssue);
        })) {
      if (holds(&op, [](Operation *inner) {
            return isa<NVVM::Barrier0Op, NVVM::FenceProxyOp>(inner) ||
                   (!inThreadZeroIssue(inner) && usesSharedPointer(inner));
          }))
        break;
      candidates.push_back(&op);
      continue;
    }
    if (touchesShared(&op))
      break;
  }
  for (Operation *copies : candidates) {
    // The values the copies read, defined outside them.
    llvm::SetVector<Value> needed;
    auto need = [&](Operation *op) {
      needed.insert(op->getOperands().begin(), op->getOperands().end());
      getUsedValuesDefinedAbove(op->getRegions(), needed);
    };
    need(copies);
    SmallVector<Operation *> moved;
    Operation *stop = nullptr;
    for (Operation *p = copies->getPrevNode(); p; p = p->getPrevNode()) {
      bool defines = llvm::any_of(p->getResults(),
                                  [&](Value v) { return needed.contains(v); });
      if (defines ? !isMemoryEffectFree(p) : !copiesMayPass(p)) {
        stop = p;
        break;
      }
      if (defines) {
        moved.push_back(p);
        need(p);
      }
    }
    std::reverse(moved.begin(), moved.end());
    moved.push_back(copies);
    for (Operation *op : moved) {
      if (stop)
        op->moveAfter(stop);
      else
        op->moveBefore(&entry->front());
      stop = op;
    }
  }
}

FailureOr<LLVM::LLVMFuncOp> KernelEmitter::run() {
  MLIRContext *ctx = kernel.getContext();
  auto numWarpsAttr = kernel->getAttrOfType<IntegerAttr>(
      tilegpu::TileGPUDialect::getNumWarpsAttrName());
  if (!numWarpsAttr)
    return kernel.emitError("run --tilegpu-assign-layouts first: the kernel "
                            "has no tilegpu.num_warps");
  numWarps = static_cast<int>(numWarpsAttr.getInt());
  if (kernel.isDeclaration())
    return kernel.emitError("a kernel without a body cannot be lowered");
  // Views reach the GPU as the kernel's parameters (pointer, sizes,
  // strides): a view carried by a loop or merged by a branch has none.
  WalkResult viewsOk = kernel.walk([&](Operation *op) -> WalkResult {
    auto isView = [](Value v) { return isa<tile::ViewType>(v.getType()); };
    bool carries = llvm::any_of(op->getResults(), isView);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        carries |= llvm::any_of(block.getArguments(), isView);
    if (carries && op != kernel.getOperation()) {
      op->emitOpError("carries a view: views can only be the kernel's "
                      "arguments, used where they are (index them instead)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (viewsOk.wasInterrupted())
    return failure();

  // Layouts must describe their tiles on this CTA: one entry per dimension,
  // all the kernel's warps, no thread holding more than a dimension.
  WalkResult checked = kernel.walk([&](Operation *op) -> WalkResult {
    for (Value v : op->getResults()) {
      auto tensor = dyn_cast<RankedTensorType>(v.getType());
      if (!tensor || tensor.getRank() == 0)
        continue;
      Attribute layout = tilegpu::getLayout(tensor);
      if (!layout) {
        op->emitOpError("has a tile without a layout; run "
                        "--tilegpu-assign-layouts first");
        return WalkResult::interrupt();
      }
      if (tilegpu::getLayoutRank(layout) != tensor.getRank() ||
          static_cast<int>(tilegpu::getNumWarps(layout)) != numWarps) {
        op->emitOpError() << "layout " << layout << " does not fit a "
                          << tensor.getRank() << "-D tile on " << numWarps
                          << " warps";
        return WalkResult::interrupt();
      }
      // Every element of a tile lives in some thread's registers: a tile
      // too large for them (which the lowering would otherwise write out
      // element by element, for minutes) is refused here.
      constexpr int64_t kMostPerThread = 2048;
      if (tensor.hasStaticShape() &&
          tensor.getNumElements() > kMostPerThread * 32 * numWarps) {
        op->emitOpError()
            << "has a tile of " << tensor.getNumElements() << " elements: over "
            << kMostPerThread << " per thread on " << numWarps
            << " warps, more than registers can hold (load and compute it "
               "in smaller tiles, e.g. in a for_range)";
        return WalkResult::interrupt();
      }
      Distribution dist(tensor.getShape(), layout);
      if (auto blocked = dist.blocked) {
        for (int64_t d = 0; d < tensor.getRank(); ++d)
          if (blocked.getSizePerThread()[d] > tensor.getDimSize(d)) {
            op->emitOpError()
                << "layout " << layout << " gives a thread "
                << blocked.getSizePerThread()[d]
                << " elements of a dimension of " << tensor.getDimSize(d);
            return WalkResult::interrupt();
          }
      }
    }
    return WalkResult::advance();
  });
  if (checked.wasInterrupted())
    return failure();

  if (failed(planTensorMaps()) || failed(planWarpSpecialization()))
    return failure();
  // Generic code reaches the dynamic shared memory (rings, resident
  // buffers) only through the loads staged there: copied by cp.async rather
  // than the TMA, or read by mma.sync's or a fragment load's ldmatrix rather
  // than by wgmma/tcgen05. (Everything else the threads stage goes to the
  // static scratch buffer.) Conservatively per kernel.
  // A ring read into registers with ld.shared (loadsThroughShared) is not
  // counted: its reads have returned their values before the barrier that
  // every refill of the buffer waits behind, as a CUTLASS mainloop with A
  // from registers releases its LDS/ldmatrix-read buffers to the TMA
  // through the mbarrier alone; the fence (a MEMBAR that waits for the
  // thread's outstanding loads) would cost compute_out what leaving it out
  // saved (bench/results/2026-11-30-early-dx.md). Nor is a load an mma's B
  // is computed from (loadsIntoComputedOperand): read the same way, and the
  // operand the threads write back into its buffer is followed by the proxy
  // fence the mma's read needs, before the barrier and any refill.
  genericDynamicShared = false;
  kernel.walk([&](tile::LoadOp load) {
    if (!stagedLoad(load) && !residentLoads.contains(load))
      return;
    genericDynamicShared |=
        !tmaOf.count(load) || loadsIntoFragments(load) ||
        (readsGeneric(load) && !loadsThroughShared(load) &&
         !loadsIntoComputedOperand(load));
  });
  // The ABI: a view is (pointer, sizes..., strides...), scalars as they are,
  // then one CUtensorMap (128 bytes, 64-byte aligned, a grid constant) per
  // tensor map.
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
  size_t firstMap = params.size();
  params.append(tensorMaps.size(), LLVM::LLVMPointerType::get(ctx));
  b.setInsertionPoint(kernel);
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params);
  auto fn =
      LLVM::LLVMFuncOp::create(b, kernel.getLoc(), kernel.getSymName(), fnType);
  for (size_t i = firstMap; i < params.size(); ++i) {
    fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                  TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
    fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                  b.getI64IntegerAttr(64));
    fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                  b.getUnitAttr());
  }
  // A table of int32 words the runtime reads with cuModuleGetGlobal:
  // `prefix` + the kernel's name, in global memory.
  auto exportTable = [&](StringRef prefix, ArrayRef<int32_t> table) {
    auto tableType = LLVM::LLVMArrayType::get(b.getI32Type(), table.size());
    LLVM::GlobalOp::create(
        b, kernel.getLoc(), tableType, /*isConstant=*/true,
        LLVM::Linkage::External, (prefix + kernel.getSymName()).str(),
        DenseElementsAttr::get(
            RankedTensorType::get({static_cast<int64_t>(table.size())},
                                  b.getI32Type()),
            table),
        /*alignment=*/4, /*addrSpace=*/1);
  };
  if (!tensorMaps.empty()) {
    // The table the runtime builds the maps from (runtime/KernelAbi.h):
    // version 2, the count, then per map its argument, the view's rank, the
    // swizzle span in bytes (128, or 0: none), the box per view dimension
    // (5 entries) and flags (bit 0: the kernel stores through it; bits
    // 8-15: the element size an unswizzled map was compiled for).
    SmallVector<int32_t> table = {2, static_cast<int32_t>(tensorMaps.size())};
    for (const TensorMap &m : tensorMaps) {
      table.append({static_cast<int32_t>(m.arg),
                    static_cast<int32_t>(m.box.size()),
                    static_cast<int32_t>(m.swizzle)});
      for (int64_t d = 0; d < 5; ++d)
        table.push_back(d < static_cast<int64_t>(m.box.size())
                            ? static_cast<int32_t>(m.box[d])
                            : 0);
      table.push_back((m.store ? 1 : 0) |
                      static_cast<int32_t>(m.elementBytes << 8));
    }
    exportTable("tessel_tma_", table);
  }
  if (kernel->hasAttr(kPersistentAttr)) {
    // tilegpu-persistent-grid appended the logical grid: three i32
    // parameters named grid_x/y/z (a hand-written mark without them would
    // have the runtime pass arguments the kernel does not take).
    unsigned n = kernel.getNumArguments();
    for (unsigned d = 0; d < 3; ++d) {
      auto name = n >= 3 ? kernel.getArgAttrOfType<StringAttr>(
                               n - 3 + d, tile::TileDialect::getArgNameAttrName())
                         : StringAttr();
      if (n < 3 || !kernel.getArgumentTypes()[n - 3 + d].isInteger(32) ||
          !name || name.getValue() != kGridArgNames[d])
        return kernel.emitError()
               << "'" << kPersistentAttr
               << "' on a kernel whose last three parameters are not the "
                  "logical grid (i32 grid_x, grid_y, grid_z: run "
                  "--tilegpu-persistent-grid)";
    }
    // The table that tells the runtime the kernel is persistent: version 1,
    // flags (1: the last three parameters before the tensor maps are the
    // logical grid, and the launch sizes the physical one).
    exportTable("tessel_grid_", {1, 1});
  }
  fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  bool specialize = !wsRings.empty();
  int threads = 32 * numWarps + (specialize ? 128 : 0);
  fn->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
              b.getDenseI32ArrayAttr({threads, 1, 1}));
  // The cluster hint becomes .reqnctapercluster (with .explicitcluster): the
  // runtime reads the shape from the cubin, launches with it and rejects a
  // grid that is not a multiple of it.
  if (auto cluster = kernelHintAs<DenseI64ArrayAttr>(kernel, targetOf(kernel),
                                                     "cluster")) {
    if (kernel->hasAttr(kPersistentAttr))
      return kernel.emitError()
             << "hint 'cluster' on a persistent kernel: its CTAs walk the "
                "programs one by one, so a cluster's CTAs would not take "
                "neighbouring programs";
    SmallVector<int32_t, 3> dims(3, 1);
    for (auto [d, size] : llvm::enumerate(cluster.asArrayRef()))
      dims[d] = static_cast<int32_t>(size);
    fn->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                b.getDenseI32ArrayAttr(dims));
  }
  IntegerAttr occupancy = kernelHint("occupancy");
  if (specialize) {
    // (The split between producer and consumers: planWarpSpecialization.)
    fn->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                b.getI32IntegerAttr(wsLaunchRegs));
  } else if (occupancy) {
    // The occupancy hint becomes .minnctapersm: ptxas then limits registers
    // so that many CTAs fit on an SM.
    fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                b.getI32IntegerAttr(occupancy.getInt()));
  }
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  loc = kernel.getLoc();

  entryBlock = entry;
  for (size_t i = firstMap; i < params.size(); ++i)
    mapParams.push_back(entry->getArgument(i));
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
      // A view whose type promises unit stride along its last dimension
      // (the runtime refuses a launch that breaks the promise) gets the
      // constant: offsets along that dimension fold into the addresses'
      // immediates instead of one 64-bit product of the stride per
      // register (chunk_state held 16 such offsets per sliced load).
      if (view.getUnitStride() && view.getRank() > 0)
        parts.strides.back() = arith::ConstantOp::create(
            b, loc, b.getI64IntegerAttr(1));
      views[arg] = parts;
    } else {
      regs[arg] = {entry->getArgument(k++)};
    }
  }
  tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  lane = arith::AndIOp::create(b, loc, tid, i32(31));
  warp = arith::ShRUIOp::create(b, loc, tid, i32(5));
  if (!multicastLoads.empty())
    clusterRank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  setupEnd = warp.getDefiningOp();

  scf::IfOp roles;
  if (specialize) {
    // After the setup, the last warpgroup is the producer: it gives back
    // registers, and its first thread walks the kernel issuing the copies;
    // the kernel's warps take the registers and run the body.
    roles = scf::IfOp::create(
        b, loc, TypeRange{},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warp,
                              i32(numWarps)),
        /*withElseRegion=*/true);
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    NVVM::SetMaxRegisterOp::create(b, loc, wsProducerRegs,
                                   NVVM::SetMaxRegisterAction::decrease);
    DenseMap<Value, SmallVector<Value>> savedRegs = regs;
    DenseSet<Value> savedLoads = loadedViews;
    StoredViews savedStores = storedViews;
    producerMode = true;
    onlyWhere(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                    i32(32 * numWarps)),
              [&] { emitProducer(kernel.getBody().front()); });
    producerMode = false;
    regs = std::move(savedRegs);
    loadedViews = std::move(savedLoads);
    storedViews = std::move(savedStores);
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    if (wsConsumerRegs > wsLaunchRegs)
      NVVM::SetMaxRegisterOp::create(b, loc, wsConsumerRegs,
                                     NVVM::SetMaxRegisterAction::increase);
    warpSpecialized = true;
  }
  if (failed(emitBlock(kernel.getBody().front())))
    return failure();
  if (tmemColumns) {
    // Everyone is done with tensor memory; warp 0, which allocated it,
    // gives it back.
    tcgen05Barrier();
    onlyWhere(isZero(warp), [&] {
      NVVM::Tcgen05DeallocOp::create(b, loc, tmemBase(), i32(tmemColumns));
    });
  }
  // The first op of the kernel's top level that touches an mbarrier (an
  // address of one, in it or in its regions): the setup's barrier after
  // their initialisation goes right before it, so that the work before it
  // (index math, the first global loads) overlaps thread 0's
  // initialisation instead of waiting for it at the kernel's start (ncu:
  // 2.8% of compute_out's stall samples were that barrier).
  // (None where a barrier of every thread comes before that op already.)
  // With the hint early_copies, thread 0's own copies do not count: it
  // initialised the mbarriers, so they need no barrier before them, and
  // hoistEarlyCopies (below) issues them as early as it can (compute_out
  // 1.5-3% faster on the H200: bench/results/2026-12-05-eleventh-gpu.md).
  IntegerAttr earlyHint = kernelHint("early_copies");
  const bool earlyCopies = earlyHint && earlyHint.getInt() && numMbarriers &&
                           !specialize;
  // (firstBarrier: a CTA barrier of every thread before that op.)
  Operation *firstMbarrierUse = nullptr, *firstBarrier = nullptr;
  for (Operation &op : *entry) {
    if (isa<NVVM::Barrier0Op>(op)) {
      firstBarrier = &op;
      break;
    }
    WalkResult found = op.walk([&](LLVM::AddressOfOp address) {
      return address.getGlobalName() == mbarriers.getSymName() &&
                     !(earlyCopies && inThreadZeroIssue(address))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (found.wasInterrupted()) {
      firstMbarrierUse = &op;
      break;
    }
  }
  // (The setup below runs in every warp, before the roles split.)
  warpSpecialized = false;
  if (roles)
    b.setInsertionPointAfter(roles);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  // A kernel that signals lets the next one launch only after its own
  // dependency wait (the next kernel then finds every kernel before this one
  // complete); one that waits on a counter has its dependency point there
  // (tile.wait), not at its start. Launched plainly (no pdl), a kernel's
  // trigger did not let the next one start before it ended on the H200
  // (bench/results/2026-12-02-overlap-wired.md), so none is emitted then.
  // A signal on a view that the kernel's own waits for earlier programs
  // read is for this kernel's later programs, not for the next kernel: it
  // moves no trigger.
  tile::SignalOp firstSignal;
  bool waits = false;
  DenseSet<Value> ownCounters;
  kernel.walk([&](tile::WaitOp wait) {
    // (A wait for earlier programs of this kernel is not its dependency
    // point: the kernel still waits for the kernels before it at its
    // start.)
    if (wait.getEarlierPrograms())
      ownCounters.insert(wait.getView());
    else
      waits = true;
  });
  kernel.walk([&](tile::SignalOp signal) {
    if (!firstSignal && !ownCounters.contains(signal.getView()))
      firstSignal = signal;
  });
  bool signals = static_cast<bool>(firstSignal);
  IntegerAttr pdl = kernelHint("pdl");
  if (signals && !(pdl && pdl.getInt())) {
    // Legal (the counters still count), but nothing can overlap it.
    firstSignal.emitWarning()
        << "the kernel signals but is not compiled for programmatic "
           "dependent launch (hint pdl = 0 or absent): launched plainly, "
           "the next kernel starts only when this one has ended, so its "
           "counters let nothing overlap (set pdl = 1)";
  }
  if (pdl && pdl.getInt()) {
    // Programmatic dependent launch: after the setup below (mbarriers,
    // tensor memory: inserted before this), let the next kernel in the
    // stream launch once every CTA of this one has started (it waits in
    // turn), and wait for the kernels before this one to complete, their
    // memory visible, before the body touches global memory. Launched
    // without the attribute, the wait returns at once.
    b.setInsertionPointAfter(setupEnd);
    if (!signals)
      NVVM::GriddepcontrolOp::create(
          b, loc, NVVM::GridDepActionKind::launch_dependents);
    if (!waits)
      NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
    if (signals)
      NVVM::GriddepcontrolOp::create(
          b, loc, NVVM::GridDepActionKind::launch_dependents);
    usesPdl = true;
  }
  if (tmemColumns) {
    // Warp 0 allocates the kernel's tensor memory (the address lands in
    // tessel_tmem) and lets other CTAs on the SM allocate theirs.
    b.setInsertionPointAfter(setupEnd);
    onlyWhere(isZero(warp), [&] {
      NVVM::Tcgen05AllocOp::create(
          b, loc, LLVM::AddressOfOp::create(b, loc, tmemSlot),
          i32(tmemColumns));
      NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc);
    });
    tcgen05Barrier();
  }
  if (numMbarriers) {
    // Thread 0 initialises the mbarriers (one arrival each: the thread that
    // issues a copy; a warp-specialised ring's `empty` ones one per consumer
    // warp) before anyone uses them: the CTA's barrier comes before the
    // first op that does (above), everyone's work up to it in between.
    b.setInsertionPointAfter(setupEnd);
    onlyWhere(isZero(tid), [&] {
      for (int64_t i = 0; i < numMbarriers; ++i)
        NVVM::MBarrierInitOp::create(
            b, loc, mbarAddress(MbarRef{i, {}}),
            i32(mbarArrivals.count(i) ? mbarArrivals.lookup(i) : 1), Value());
      NVVM::FenceMbarrierInitOp::create(b, loc);
    });
    // (With early copies thread 0 next arrives on an mbarrier it has just
    // initialised, with no CTA barrier between. ptxas makes the
    // initialisation a warp-uniform instruction, which racecheck's warp-
    // level check then reports as lane 31 writing what lane 0 reads; the
    // warp's own barrier orders them for it: bench/results/2026-12-05-
    // pending-gpu-checks.md.)
    if (earlyCopies)
      NVVM::SyncWarpOp::create(b, loc, i32(-1));
    Operation *setupBarrier = nullptr;
    // The CTA barrier that comes first may be the first half of a cluster
    // barrier (clusterBarrier: before a resident multicast buffer at the top
    // level, or before a ring's first refill).
    Operation *clusterArrive =
        firstBarrier ? firstBarrier->getNextNode() : nullptr;
    if (!isa_and_nonnull<NVVM::ClusterArriveRelaxedOp>(clusterArrive) ||
        !isa_and_nonnull<NVVM::ClusterWaitOp>(clusterArrive->getNextNode()))
      clusterArrive = nullptr;
    if (multicastIssued && clusterArrive) {
      // That cluster barrier follows fence.mbarrier_init.release.cluster in
      // every CTA: it is the setup's (a second one right before it only
      // cost time).
      setupBarrier = clusterArrive;
    } else if (multicastIssued) {
      // Multicast copies complete on every CTA's mbarriers: the cluster's
      // barrier (after fence.mbarrier_init.release.cluster) instead, also
      // where a CTA barrier comes first.
      if (Operation *at = firstMbarrierUse ? firstMbarrierUse : firstBarrier)
        b.setInsertionPoint(at);
      setupBarrier =
          NVVM::ClusterArriveRelaxedOp::create(b, loc, b.getUnitAttr());
      NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
    } else if (!firstBarrier) {
      if (firstMbarrierUse)
        b.setInsertionPoint(firstMbarrierUse);
      setupBarrier = NVVM::Barrier0Op::create(b, loc);
    }
    if (earlyCopies)
      hoistEarlyCopies(entry, setupBarrier);
  }
  entry->walk([](Operation *op) { op->removeAttr(kThreadZeroIssue); });
  return fn;
}

} // namespace tessel::codegen::emitter

namespace {

using namespace tessel;
using namespace tessel::codegen::emitter;

/// Each kernel uses only instructions its module's target has (the target
/// table, Target.cpp; sm_90 and later for griddepcontrol and clusters):
/// tilegpu-assign-layouts marks wgmma and tcgen05 kernels only where the
/// module says the target has them, but hand-written IR may mark any, and
/// LLVM aborts on an intrinsic its target lacks.
static LogicalResult checkTargetFeatures(ModuleOp module) {
  StringRef target = targetOf(module);
  const codegen::TargetInfo *info = codegen::lookupTarget(target);
  rt::Target parsed;
  const bool sm90 =
      rt::parseTarget(std::string_view(target), &parsed) && parsed.major >= 9;
  for (func::FuncOp kernel : module.getOps<func::FuncOp>()) {
    auto lacks = [&](StringRef what, StringRef attr, StringRef has) {
      return kernel.emitError()
             << "kernel '" << kernel.getSymName() << "' is marked for " << what
             << " ('" << attr << "'), which " << target << " does not have ("
             << has << ")";
    };
    if (kernel->hasAttr(tilegpu::TileGPUDialect::getWgmmaAttrName()) &&
        !(info && info->wgmma))
      return lacks("warpgroup MMA", tilegpu::TileGPUDialect::getWgmmaAttrName(),
                   "sm_90a does");
    if (kernel->hasAttr(tilegpu::TileGPUDialect::getTcgen05AttrName()) &&
        !(info && info->tcgen05))
      return lacks("the fifth-generation tensor cores",
                   tilegpu::TileGPUDialect::getTcgen05AttrName(),
                   "sm_100a, sm_103a do");
    if (sm90)
      continue;
    IntegerAttr pdl = kernelHint(kernel, target, "pdl");
    if (pdl && pdl.getInt())
      return kernel.emitError()
             << "kernel '" << kernel.getSymName()
             << "' asks for programmatic dependent launch (hint 'pdl' = 1), "
                "which needs sm_90 or later (the target is "
             << target << ")";
    if (kernelHintAs<DenseI64ArrayAttr>(kernel, target, "cluster"))
      return kernel.emitError()
             << "kernel '" << kernel.getSymName()
             << "' asks for thread-block clusters (hint 'cluster'), which "
                "need sm_90 or later (the target is "
             << target << ")";
  }
  return success();
}

struct ConvertTileGPUToLLVM
    : public tessel::impl::ConvertTileGPUToLLVMBase<ConvertTileGPUToLLVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    // The target the passes before read (sm_90a when the module names
    // none): an sm_<number> name (tesselc's targets, or one without TMA and
    // wgmma such as sm_80, for the portable path); anything else would be
    // compiled as some other target.
    if (Attribute target =
            module->getAttr(tilegpu::TileGPUDialect::getTargetAttrName())) {
      auto name = dyn_cast<StringAttr>(target);
      rt::Target parsed; // the runtime's parse of a cubin's target name
      if (!name ||
          !rt::parseTarget(std::string_view(name.getValue()), &parsed)) {
        module.emitError() << "unknown target " << target << " in '"
                           << tilegpu::TileGPUDialect::getTargetAttrName()
                           << "' (sm_<number>, e.g. sm_90a, sm_100a, sm_103a)";
        return signalPassFailure();
      }
    }
    if (failed(checkTargetFeatures(module)))
      return signalPassFailure();
    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    // One shared buffer per module, sized for the largest use.
    auto shared = LLVM::GlobalOp::create(
        b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 1),
        /*isConstant=*/false, LLVM::Linkage::Internal, kSharedName, Attribute(),
        /*alignment=*/16, /*addrSpace=*/3);
    // Pipeline buffers: dynamic shared memory, sized at launch.
    auto dynamicShared = LLVM::GlobalOp::create(
        b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kDynamicSharedName,
        Attribute(), /*alignment=*/16, /*addrSpace=*/3);
    // The kernels' mbarriers (TMA completion), 8 bytes each.
    auto mbarriers = LLVM::GlobalOp::create(
        b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI64Type(), 1),
        /*isConstant=*/false, LLVM::Linkage::Internal, kMbarrierName,
        Attribute(), /*alignment=*/8, /*addrSpace=*/3);
    // Where tcgen05.alloc writes the tensor-memory address.
    auto tmemSlot = LLVM::GlobalOp::create(
        b, module.getLoc(), b.getI32Type(), /*isConstant=*/false,
        LLVM::Linkage::Internal, kTmemSlotName, Attribute(), /*alignment=*/4,
        /*addrSpace=*/3);
    int64_t sharedBytes = 0, dynamicBytes = 0, numMbarriers = 0,
            tmemColumns = 0, occupancy = 0;
    bool tma = false, tmem = false, pdl = false;
    SmallVector<func::FuncOp> kernels(module.getOps<func::FuncOp>());
    for (func::FuncOp kernel : kernels) {
      KernelEmitter emitter(kernel, shared, dynamicShared, mbarriers,
                            tmemSlot);
      FailureOr<LLVM::LLVMFuncOp> fn = emitter.run();
      if (failed(fn))
        return signalPassFailure();
      sharedBytes = std::max(sharedBytes, emitter.sharedBytesNeeded());
      dynamicBytes =
          std::max(dynamicBytes, emitter.dynamicSharedBytesNeeded());
      numMbarriers = std::max(numMbarriers, emitter.mbarriersNeeded());
      tma |= emitter.usesTma();
      tmem |= emitter.usesTensorMemory();
      tmemColumns = std::max(tmemColumns, emitter.tensorMemoryColumns());
      if (IntegerAttr hint =
              tessel::kernelHint(kernel, targetOf(module), "occupancy"))
        occupancy = std::max(occupancy, hint.getInt());
      pdl |= emitter.usesProgrammaticLaunch();
      kernel.erase();
    }
    // What the compiler reports per kernel (codegen::Artifact): how many
    // CTAs fit on an SM, and whether the occupancy hint is met.
    if (tmemColumns)
      module->setAttr("tilegpu.tmem_columns", b.getI64IntegerAttr(tmemColumns));
    if (occupancy)
      module->setAttr("tilegpu.occupancy", b.getI64IntegerAttr(occupancy));
    if (!tmem)
      tmemSlot.erase();
    if (numMbarriers == 0)
      mbarriers.erase();
    else
      mbarriers.setGlobalType(
          LLVM::LLVMArrayType::get(b.getI64Type(), numMbarriers));
    // TMA writes swizzled buffers whose pattern follows address bits 7-9.
    if (tma) {
      shared.setAlignment(1024);
      dynamicShared.setAlignment(1024);
    }
    // The launch must allow the overlap (runtime: LaunchConfig).
    if (pdl)
      module->setAttr("tilegpu.programmatic_launch", b.getUnitAttr());
    if (dynamicBytes == 0)
      dynamicShared.erase();
    else
      module->setAttr("tilegpu.dynamic_shared_bytes",
                      b.getI64IntegerAttr(dynamicBytes));
    if (sharedBytes == 0) {
      shared.erase();
      return;
    }
    shared.setGlobalType(LLVM::LLVMArrayType::get(b.getI8Type(), sharedBytes));
    module->setAttr("tilegpu.shared_bytes", b.getI64IntegerAttr(sharedBytes));
  }
};

} // namespace
