//===- EmitTma.cpp - tensor maps and mbarriers ----------------------------===//
//
// The tensor maps a kernel receives, cp.async.bulk.tensor copies completing
// on mbarriers, the waits on them (each thread keeps a parity bit per
// mbarrier), loads resident in shared memory for the whole kernel, the TMA
// store, and loads read from their copies (as mma fragments with
// ldmatrix.trans, or into registers).
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

namespace tessel::codegen::emitter {

using namespace mlir;

/// The view dimension along the rows of `load`'s 2-D tile (its first
/// dimension that the load does not squeeze).
static int64_t rowDimOf(tile::LoadOp load) {
  auto sq = load.getSqueeze();
  int64_t d = 0;
  while (sq && llvm::is_contained(*sq, d))
    ++d;
  return d;
}

void KernelEmitter::emitResident(tile::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  StageLayout layout = StageLayout::swizzled128();
  int64_t bytes = alignFor(
      type.getNumElements() * storageBytes(type.getElementType()), layout);
  int64_t offset = alignFor(dynamicTop, layout);
  dynamicTop = offset + bytes;
  dynamicBytes = std::max(dynamicBytes, dynamicTop);
  int64_t bar = numMbarriers++;
  // Readers of the buffer's previous contents (an enclosing loop's previous
  // iteration, an earlier loop's buffers at the same offsets) are done, and
  // their generic accesses come before the copy engine's writes.
  fenceBeforeRefill();
  barrierBeforeRefill(multicastLoads.contains(load));
  dynamicUsed = true;
  Value base = LLVM::AddressOfOp::create(b, loc, dynamicShared);
  Value dst = LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                                  ArrayRef<LLVM::GEPArg>{offset});
  // The phase this copy completes: every use waits for it (a completed
  // phase answers at once).
  Value parity = phaseBit(bar, Value());
  flipPhase(bar, Value());
  issueTma(load, dst, MbarRef{bar, Value()}, /*multicast=*/true);
  residentAt[load.getResult()] = {dst, MbarRef{bar, Value(), 2, parity}};
}

LogicalResult KernelEmitter::planTensorMaps() {
  // tilegpu-insert-tma decided (the tilegpu.tma attributes); a decision the
  // rules do not allow (hand-written IR) is an error, not a bad copy. Each
  // marked copy gets the tensor map of its view argument and box, one
  // 128-byte panel wide (stores first).
  StringRef attr = tilegpu::TileGPUDialect::getTmaAttrName();
  auto plan = [&](Operation *op, StringRef what, Value view, Type tileType,
                  SmallVector<int64_t> box, bool store,
                  function_ref<std::string()> problemOf) {
    if (!op->hasAttr(attr))
      return WalkResult::advance();
    if (std::string problem = problemOf(); !problem.empty()) {
      op->emitError() << "'" << attr << "' on a " << what
                      << " the TMA cannot copy: " << problem;
      return WalkResult::interrupt();
    }
    TensorMap map;
    map.arg = cast<BlockArgument>(view).getArgNumber();
    map.box = std::move(box);
    int64_t eb =
        storageBytes(cast<RankedTensorType>(tileType).getElementType());
    auto load = dyn_cast<tile::LoadOp>(op);
    if (load && loadsThroughShared(load)) {
      map.swizzle = 0;
      map.elementBytes = eb;
    } else {
      map.box.back() = 128 / eb;
    }
    map.store = store;
    // Multicast (a ring's or a resident buffer's load, the rules allowing:
    // hand-written IR is checked): each CTA copies a slice of the rows.
    auto mc = op->getAttrOfType<IntegerAttr>(
        tilegpu::TileGPUDialect::getMulticastAttrName());
    if (load && mc) {
      if (std::string problem = multicastProblem(load); !problem.empty()) {
        op->emitError() << "'"
                        << tilegpu::TileGPUDialect::getMulticastAttrName()
                        << "' on a load the cluster's CTAs may not share: "
                        << problem;
        return WalkResult::interrupt();
      }
      if (mc.getInt() != clusterCtas(kernel)) {
        op->emitError() << "'"
                        << tilegpu::TileGPUDialect::getMulticastAttrName()
                        << "' names " << mc.getInt()
                        << " CTAs; the kernel's cluster has "
                        << clusterCtas(kernel);
        return WalkResult::interrupt();
      }
      bool ring = load->hasAttr(kDistanceAttr) &&
                  isa<scf::ForOp>(load->getParentOp());
      if (ring || !stagedLoad(load)) {
        multicastLoads.insert(load);
        multicastCtas = mc.getInt();
        map.box[rowDimOf(load)] /= multicastCtas;
      }
    }
    tmaOf[op] = addTensorMap(map);
    return WalkResult::advance();
  };
  WalkResult stores = kernel.walk([&](tile::StoreOp store) {
    return plan(store, "store", store.getView(), store.getValue().getType(),
                boxOf(store), /*store=*/true,
                [&] { return tmaStoreProblem(store); });
  });
  if (stores.wasInterrupted())
    return failure();
  WalkResult loads = kernel.walk([&](tile::LoadOp load) {
    WalkResult planned =
        plan(load, "load", load.getView(), load.getType(), boxOf(load),
             /*store=*/false, [&] { return tmaLoadProblem(load); });
    if (tmaOf.count(load) && !stagedLoad(load))
      residentLoads.insert(load);
    return planned;
  });
  return failure(loads.wasInterrupted());
}

unsigned KernelEmitter::addTensorMap(TensorMap map) {
  auto same = llvm::find_if(tensorMaps, [&](const TensorMap &m) {
    return m.arg == map.arg && m.box == map.box && m.store == map.store &&
           m.swizzle == map.swizzle && m.elementBytes == map.elementBytes;
  });
  if (same == tensorMaps.end())
    same = tensorMaps.insert(tensorMaps.end(), std::move(map));
  return same - tensorMaps.begin();
}

SmallVector<Value> KernelEmitter::boxOrigin(ValueRange indices,
                                            ArrayRef<int64_t> box) {
  SmallVector<Value> origin;
  for (auto [d, extent] : llvm::enumerate(box))
    origin.push_back(
        arith::MulIOp::create(b, loc, regs[indices[d]][0], i32(extent)));
  return origin;
}

SmallVector<Value> KernelEmitter::panelCoords(ArrayRef<Value> origin,
                                              int64_t p, int64_t panel) {
  SmallVector<Value> coords;
  int64_t rank = origin.size();
  for (int64_t d = rank - 1; d >= 0; --d)
    coords.push_back(
        d == rank - 1 && p
            ? Value(arith::AddIOp::create(b, loc, origin[d], i32(p * panel)))
            : origin[d]);
  return coords;
}

Value KernelEmitter::mbarAddress(MbarRef bar) {
  Value base = LLVM::AddressOfOp::create(b, loc, mbarriers);
  Value index = i32(bar.first);
  if (bar.stage)
    index = arith::AddIOp::create(b, loc, index, bar.stage);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI64Type(), base,
                             ValueRange{index});
}

Value KernelEmitter::newSlot() {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entryBlock);
  Value one = i32(1);
  Value slot = LLVM::AllocaOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), b.getI32Type(), one);
  LLVM::StoreOp::create(b, loc, i32(0), slot);
  return slot;
}

Value KernelEmitter::phaseSlot(int64_t i) {
  int64_t word = i / 32;
  if (Value slot = phaseSlots.lookup(word))
    return slot;
  Value slot = newSlot();
  phaseSlots[word] = slot;
  return slot;
}

/// Where mbarrier `first` (+ `stage`) has its bit in its parity word.
static Value phasePosition(OpBuilder &b, Location loc, Value at,
                           Value stage) {
  return stage ? arith::AddIOp::create(b, loc, at, stage).getResult() : at;
}

Value KernelEmitter::phaseBit(int64_t first, Value stage) {
  Value word = LLVM::LoadOp::create(b, loc, b.getI32Type(), phaseSlot(first));
  Value at = phasePosition(b, loc, i32(first % 32), stage);
  return arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, word, at), i32(1));
}

void KernelEmitter::flipPhase(int64_t first, Value stage) {
  Value slot = phaseSlot(first);
  Value word = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);
  Value at = phasePosition(b, loc, i32(first % 32), stage);
  LLVM::StoreOp::create(
      b, loc,
      arith::XOrIOp::create(b, loc, word,
                            arith::ShLIOp::create(b, loc, i32(1), at)),
      slot);
}

void KernelEmitter::waitTma(MbarRef bar) {
  if (bar.stage && !bar.parity)
    if (auto it = sharedStages.find(bar.first); it != sharedStages.end()) {
      if (it->second)
        return;
      it->second = true;
    }
  Value addr = mbarAddress(bar);
  // 10 ms: the suspend-time hint of each try (the op loops until the phase
  // completes).
  Value ticks = i32(10000000);
  if (bar.parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, addr, bar.parity, ticks);
    return;
  }
  // The thread's parity bit of the mbarrier (of a ring: of the buffer this
  // stage names), then that bit flipped. The bits of 32 mbarriers share a
  // register (phaseSlot), which a loop carries as one value: a persistent
  // kernel carries every mbarrier's across its programs (a ring's lie in
  // one: ringMbarriers).
  Value phase = phaseBit(bar.first, bar.stage);
  NVVM::MBarrierTryWaitParityOp::create(b, loc, addr, phase, ticks);
  flipPhase(bar.first, bar.stage);
}

void KernelEmitter::issueTmaGroup(
    ArrayRef<std::pair<tile::LoadOp, Value>> copies, MbarRef bar,
    bool multicast) {
  int64_t bytes = 0;
  bool anyMulticast = false;
  for (auto [load, dst] : copies) {
    if (multicastLoads.contains(load) && multicast && !producerMode)
      anyMulticast = true;
    Value view = load.getView();
    if (!producerMode && storedViews.contains(view)) {
      // This CTA wrote the view: its stores must reach the copy engine (the
      // async proxy) too, each thread's before the barrier.
      NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async, {});
      barrier();
    }
    loadedViews.insert(view);
    auto type = cast<RankedTensorType>(load.getType());
    bytes += type.getNumElements() * storageBytes(type.getElementType());
  }
  multicastIssued |= anyMulticast;
  // (The producer's walk runs in its one thread already.)
  // (Thread 0's branch is marked: the hint early_copies may move it above
  // the setup's CTA barrier, ConvertToLLVM.cpp's hoistEarlyCopies.)
  auto issuer = [&](function_ref<void()> body) {
    if (producerMode) {
      body();
      return;
    }
    onlyWhere(isZero(tid), body);
    // (Not a multicast group: its copies may not pass the setup's cluster
    // barrier, which comes before the first mbarrier use not so marked.)
    if (!anyMulticast &&
        b.getInsertionPoint() != b.getInsertionBlock()->begin())
      if (auto branch =
              dyn_cast<scf::IfOp>(&*std::prev(b.getInsertionPoint())))
        branch->setAttr(kThreadZeroIssue, b.getUnitAttr());
  };
  issuer([&] {
    Value mbar = mbarAddress(bar);
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, Type(), mbar, i32(bytes),
        NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA),
        b.getBoolAttr(false), Value());
    auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
    for (auto [load, dst] : copies) {
      auto type = cast<RankedTensorType>(load.getType());
      int64_t eb = storageBytes(type.getElementType());
      // Unswizzled (read into registers): the whole box in one copy.
      bool plain = loadsThroughShared(load);
      int64_t rows = plain ? 1 : type.getDimSize(0),
              cols = plain ? type.getNumElements() : type.getDimSize(1);
      int64_t panel = plain ? cols : 128 / eb, panels = cols / panel;
      // Box origins per view dimension (the tile's own extents, not the
      // panel's, along the last).
      SmallVector<Value> origin = boxOrigin(load.getIndices(), boxOf(load));
      // Its tensor map's box is one slice of the rows (a multicastLoads
      // load): multicast, this CTA's slice (rank r: rows r s .. r s + s - 1
      // of each panel, s = rows / CTAs) to every CTA of the cluster; else
      // every slice, into this CTA only.
      const bool sliced = multicastLoads.contains(load);
      const bool toCluster = sliced && multicast && !producerMode;
      const int64_t sliceRows = sliced ? rows / multicastCtas : rows;
      const int64_t rowDim = rowDimOf(load);
      Value mask;
      if (toCluster)
        mask = LLVM::ConstantOp::create(
            b, loc, b.getI16Type(),
            b.getI16IntegerAttr((1 << multicastCtas) - 1));
      for (int64_t s = 0; s < (sliced && !toCluster ? multicastCtas : 1);
           ++s) {
        // The slice's first row: this CTA's rank (multicast) or s.
        Value slice = toCluster ? arith::MulIOp::create(b, loc, clusterRank,
                                                        i32(sliceRows))
                                      .getResult()
                                : i32(s * sliceRows);
        SmallVector<Value> sliceOrigin = origin;
        if (sliced)
          sliceOrigin[rowDim] =
              arith::AddIOp::create(b, loc, origin[rowDim], slice);
        for (int64_t p = 0; p < panels; ++p) {
          SmallVector<Value> coords = panelCoords(sliceOrigin, p, panel);
          Value at = LLVM::GEPOp::create(
              b, loc, dst.getType(), b.getI8Type(), dst,
              ArrayRef<LLVM::GEPArg>{p * rows * 128});
          if (sliced)
            at = LLVM::GEPOp::create(
                b, loc, at.getType(), b.getI8Type(), at,
                ValueRange{arith::MulIOp::create(b, loc, slice, i32(128))});
          NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              b, loc, LLVM::AddrSpaceCastOp::create(b, loc, clusterPtr, at),
              mapParams[tmaOf.lookup(load)], coords, mbar, ValueRange{},
              mask, Value(),
              NVVM::TMALoadModeAttr::get(b.getContext(),
                                         NVVM::TMALoadMode::TILE),
              b.getBoolAttr(false), NVVM::CTAGroupKindAttr(), Value());
        }
      }
    }
  });
}

/// The tile goes to the scratch buffer in the TMA's layout (128-byte panels
/// of `rows` rows, 16-byte chunks swizzled), the threads' writes are made
/// visible to the async proxy, and one thread copies each panel out with
/// cp.async.bulk.tensor (the engine drops what lies outside the view), then
/// waits until the copies have read shared memory.
LogicalResult KernelEmitter::emitTmaStore(tile::StoreOp op) {
  auto type = cast<RankedTensorType>(op.getValue().getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t eb = storageBytes(type.getElementType());
  int64_t panel = 128 / eb, panels = cols / panel;
  unsigned m = tmaOf.lookup(op);
  // The next writer of the scratch buffer waits for the copy's reads; none
  // follows the kernel's last store.
  bool last = op->getBlock() == &kernel.getBody().front() &&
              isa<func::ReturnOp>(op->getNextNode());
  // The same at the end of a persistent kernel's program (what is still
  // allocated there: the buffers of a prologue issued ahead for the next
  // program); the barrier after the copy has read the tile frees the
  // buffer for the next program.
  auto programLoop = dyn_cast<scf::ForOp>(op->getParentOp());
  bool programEnd = programLoop && programLoop->hasAttr(kProgramLoopAttr) &&
                    isa<scf::YieldOp>(op->getNextNode());
  // The kernel's last store stages its tile in the dynamic shared memory
  // above what is still allocated there (at the top level: the rings are
  // free), as a GEMM's epilogue reuses its main loop's buffers, instead of
  // the static scratch buffer, which then need not hold it: shared memory
  // per CTA falls by the tile's bytes, room for a deeper ring at the same
  // occupancy. By then every copy into the rings has landed (a ring load
  // stands directly in its loop's body, which waits for each copy it
  // issued), as has every copy into a buffer of a nested block (waited for
  // where the block ends: emitBlock), and every mma reading them has
  // completed; the barrier below orders the other threads' reads
  // (ldmatrix) before the writes. The top level's own buffers lie below
  // dynamicTop. Not with a producer warpgroup (its rings live as long as
  // the kernel).
  stagingInRings = (last || programEnd) && !warpSpecialized && dynamicBytes > 0;
  int64_t at = stagingInRings ? (dynamicTop + 1023) / 1024 * 1024 : 0;
  // Earlier readers of the buffer are done.
  if (stagingInRings)
    barrier();
  else
    barrierBeforeScratchWrite();
  writeTile(op.getValue(), at, StageLayout::swizzled128());
  fenceAsyncShared();
  barrier();
  SmallVector<Value> origin = boxOrigin(op.getIndices(), boxOf(op));
  onlyWhere(isZero(tid), [&] {
    for (int64_t p = 0; p < panels; ++p) {
      Value src = scratch(at + p * rows * 128);
      SmallVector<Value> coords = panelCoords(origin, p, panel);
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, mapParams[m], src, coords, Value(), NVVM::TMAStoreMode::TILE,
          Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                         b.getUnitAttr());
  });
  stagingInRings = false;
  if (!last)
    barrier();
  return success();
}

LogicalResult KernelEmitter::emitFragmentLoad(tile::LoadOp op) {
  Value value = op.getResult();
  auto type = cast<RankedTensorType>(op.getType());
  auto layout = cast<tilegpu::MmaLayoutAttr>(tilegpu::getLayout(type));
  Type element = type.getElementType();
  int64_t eb = storageBytes(element);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  unsigned W = layout.getWarpsPerCTA()[0];
  // Not issued ahead: copied into the scratch buffer here, once everyone
  // is done with what it held (generic accesses first: fenced).
  bool ahead = prefetchedAt.count(value);
  if (!ahead) {
    fenceAsyncShared();
    barrier();
  }
  Staged staged =
      stageOperand(value, 0, StageLayout::swizzled128(), /*slot=*/0);
  waitTma(staged.tma);
  auto address = [&](Value row, Value col) {
    return swizzledAddress(staged.base, rows, eb, row, col);
  };
  // Where each element offset of the thread's pattern sits (Distribution:
  // rows 2t, 2t + 1 (+ 8, + 16, ...), columns g (+ 8, + 16 W, ...) from
  // the thread's base (2t, 16 w + g)).
  Distribution dist = distributionOf(type);
  std::map<std::pair<int64_t, int64_t>, int64_t> regOf;
  for (int64_t r = 0; r < dist.numRegisters; ++r)
    regOf[{dist.regOffsets[r][0], dist.regOffsets[r][1]}] = r;
  SmallVector<Value> out(dist.numRegisters);
  auto vecType = VectorType::get({2}, element);
  // Places the words of one ldmatrix.x4: element e of word q at
  // (row, col) offset `at(q, e)` of the thread's pattern.
  auto place = [&](ArrayRef<Value> words,
                   function_ref<std::pair<int64_t, int64_t>(int64_t, int64_t)>
                       at) -> LogicalResult {
    for (int64_t q = 0; q < 4; ++q) {
      Value pair = LLVM::BitcastOp::create(b, loc, vecType, words[q]);
      for (int64_t e = 0; e < 2; ++e) {
        auto it = regOf.find(at(q, e));
        if (it == regOf.end())
          return fail(op, "an ldmatrix fragment outside the tile's "
                          "registers (tile " +
                              Twine(rows) + "x" + Twine(cols) + ")");
        out[it->second] = LLVM::ExtractElementOp::create(b, loc, pair, i32(e));
      }
    }
    return success();
  };
  if (!layout.getTransposed()) {
    // The mma layout itself (hint row_fragments): rows M, columns K, the
    // thread's base (16 w + g, 2 t). Lanes 0-7, 8-15, 16-23, 24-31 name the
    // rows of the four 8x8 matrices (M 0-7, K 0-7), (M 8-15, K 0-7),
    // (M 0-7, K 8-15), (M 8-15, K 8-15) of the block, read as they are:
    // a0..a3 of m16n8k16's A for warp w's rows 16 w + 16 W i.
    Value laneRow = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, warp, i32(16)),
                              arith::AndIOp::create(b, loc, lane, i32(7))),
        arith::MulIOp::create(
            b, loc,
            arith::AndIOp::create(
                b, loc, arith::ShRUIOp::create(b, loc, lane, i32(3)), i32(1)),
            i32(8)));
    Value laneCol = arith::MulIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, i32(4)), i32(8));
    for (int64_t i = 0; i * 16 * W < rows; ++i)
      for (int64_t k0 = 0; k0 < cols; k0 += 16) {
        SmallVector<Value> words = loadMatrices(
            address(arith::AddIOp::create(b, loc, laneRow, i32(i * 16 * W)),
                    arith::AddIOp::create(b, loc, laneCol, i32(k0))),
            4, /*trans=*/false);
        if (failed(place(words, [&](int64_t q, int64_t e) {
              return std::pair<int64_t, int64_t>{i * 16 * W + 8 * (q % 2),
                                                 k0 + 8 * (q / 2) + e};
            })))
          return failure();
      }
  } else {
    // Lanes 0-7, 8-15, 16-23, 24-31 name the rows of the four 8x8 matrices:
    // (K 0-7, M 0-7), (K 0-7, M 8-15), (K 8-15, M 0-7), (K 8-15, M 8-15) of
    // the block, read transposed: a0..a3 of m16n8k16's A (the lanes of
    // emitMma's transposed A, fragA, for warp w's rows 16 w + 16 W i).
    Value laneRow = arith::AddIOp::create(
        b, loc, arith::AndIOp::create(b, loc, lane, i32(7)),
        arith::MulIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, lane, i32(4)), i32(8)));
    Value laneCol = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, warp, i32(16)),
        arith::MulIOp::create(
            b, loc,
            arith::AndIOp::create(
                b, loc, arith::ShRUIOp::create(b, loc, lane, i32(3)), i32(1)),
            i32(8)));
    for (int64_t i = 0; i * 16 * W < cols; ++i)
      for (int64_t k0 = 0; k0 < rows; k0 += 16) {
        SmallVector<Value> words = loadMatrices(
            address(arith::AddIOp::create(b, loc, laneRow, i32(k0)),
                    arith::AddIOp::create(b, loc, laneCol, i32(i * 16 * W))),
            4, /*trans=*/true);
        // a_q: rows k0 + 8 (q / 2) + {0, 1}, column 16 W i + 8 (q % 2).
        if (failed(place(words, [&](int64_t q, int64_t e) {
              return std::pair<int64_t, int64_t>{k0 + 8 * (q / 2) + e,
                                                 i * 16 * W + 8 * (q % 2)};
            })))
          return failure();
      }
  }
  for (Value v : out)
    if (!v)
      return fail(op, "a register of the tile no ldmatrix fragment holds");
  regs[value] = out;
  return success();
}

LogicalResult KernelEmitter::emitSharedRegisterLoad(tile::LoadOp op) {
  Value value = op.getResult();
  auto type = cast<RankedTensorType>(op.getType());
  // Not issued ahead (the rings did not fit): a copy here would wait as
  // long as the load, behind a fence and a barrier; loaded from global
  // memory instead.
  if (!prefetchedAt.count(value))
    return emitLoad(op);
  // A load its mma's B is computed from: copied as that operand would be
  // (swizzled), and the buffer handed to the mma, which writes the operand
  // back into it.
  tile::MmaOp mma = computedOperandMma(op);
  StageLayout layout =
      mma ? StageLayout::swizzled128() : StageLayout::plainTma();
  Staged staged = stageOperand(value, 0, layout, /*slot=*/0);
  waitTma(staged.tma);
  // (The buffer is 128-byte aligned: vectors of up to 16 bytes, which the
  // swizzle keeps whole.)
  regs[value] = readTile(type, 0, layout, staged.base);
  if (mma)
    computedOperandSlot[mma] = {staged.base, value};
  return success();
}

} // namespace tessel::codegen::emitter
