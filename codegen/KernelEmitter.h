//===- KernelEmitter.h - the tilegpu -> LLVM emitter ----------------------===//
//
// The emitter behind --convert-tilegpu-to-llvm (ConvertToLLVM.cpp, which
// also says how it works), split by what it emits over the Emit*.cpp files
// of this folder:
//   EmitTiles.cpp          which registers hold which tile elements; tiles
//                          written to and read from shared memory (stmatrix)
//   EmitMemory.cpp         global loads and stores, prefetches, counters
//   EmitTma.cpp            tensor maps, mbarriers, bulk-tensor copies and
//                          stores, loads read from their copies
//   EmitMma.cpp            tile.mma: mma.sync, wgmma, operand staging
//   EmitTcgen05.cpp        tile.mma on sm_100a/sm_103a: tensor memory
//   EmitLayout.cpp         scans, reductions, permutes, broadcasts, reshapes
//   EmitElementwise.cpp    arith and math on tiles
//   EmitLoops.cpp          scf.for / scf.if: rings, prefetches, pipelining
//   EmitWarpSpecialize.cpp the producer warpgroup and its rings
// Private to codegen/: nothing outside this folder includes it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_KERNELEMITTER_H
#define TESSEL_CODEGEN_KERNELEMITTER_H

#include "passes/Match.h"
#include "passes/PipelinePlan.h"
#include "passes/TmaPlan.h"

#include "dialect/tile/TileOps.h"
#include "dialect/tilegpu/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel::codegen::emitter {

// The MLIR names this header uses (the .cpp files that include it take the
// whole namespace).
using mlir::ArrayRef;
using mlir::Block;
using mlir::DenseMap;
using mlir::DenseSet;
using mlir::FailureOr;
using mlir::FloatAttr;
using mlir::FloatType;
using mlir::IntegerAttr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::StringLiteral;
using mlir::StringRef;
using mlir::Twine;
using mlir::Type;
using mlir::TypeRange;
using mlir::UnknownLoc;
using mlir::Value;
using mlir::ValueRange;
using mlir::WalkResult;
using mlir::function_ref;
namespace LLVM = mlir::LLVM;
namespace NVVM = mlir::NVVM;
namespace arith = mlir::arith;
namespace func = mlir::func;
namespace scf = mlir::scf;
using tilegpu::Distribution;

struct ViewParts {
  Value ptr;
  SmallVector<Value> sizes, strides; // i64
  tile::ViewType type;
};

/// On the scf.if in which thread 0 issues a group of TMA copies
/// (issueTmaGroup); removed once the kernel is emitted.
constexpr StringLiteral kThreadZeroIssue = "tessel.thread_zero_issue";

inline Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

/// How a tile is laid out when staged in shared memory: row-major with rows
/// `rowPad` elements longer (mma.sync operands, transposes), or in 8x8 core
/// matrices of 16-byte rows (wgmma's canonical layout without swizzling; the
/// same placement serves K-major and M/N-major operands, the descriptor
/// tells them apart: see emitAsyncMma).
/// Or (`swizzled`) as the tensor memory accelerator writes a box with
/// 128-byte swizzling: the tile's columns in panels of 128 bytes, each panel
/// R rows of 128 bytes, the 16-byte chunk c of row r at chunk c ^ (r % 8) of
/// its row (buffers 1024-byte aligned); ldmatrix's eight row reads then hit
/// eight different bank groups without padding.
struct StageLayout {
  int64_t rowPad = 0;
  bool core = false;
  bool swizzled = false;
  /// Row-major without padding, copied by the TMA unswizzled (a load read
  /// into registers from its ring: loadsThroughShared).
  bool plain = false;
  StageLayout(int64_t rowPad = 0) : rowPad(rowPad) {}
  static StageLayout plainTma() {
    StageLayout s;
    s.plain = true;
    return s;
  }
  /// Whether the TMA copies the tile in (else cp.async, or the threads).
  bool tma() const { return swizzled || plain; }
  static StageLayout coreMatrices() {
    StageLayout s;
    s.core = true;
    return s;
  }
  static StageLayout swizzled128() {
    StageLayout s;
    s.swizzled = true;
    return s;
  }
  bool operator==(const StageLayout &o) const {
    return rowPad == o.rowPad && core == o.core && swizzled == o.swizzled &&
           plain == o.plain;
  }
  /// Elements the staged tile occupies.
  int64_t elements(ArrayRef<int64_t> shape) const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return core || swizzled || shape.empty() ? n
                                             : n + n / shape.back() * rowPad;
  }
};

/// An mbarrier of the kernel's array (tessel_mbar): `first`, or with a
/// `stage` (i32, 0 to slots - 1: a ring's), `first + stage`.
struct MbarRef {
  int64_t first = -1;
  Value stage;
  int64_t slots = 2;
  /// The parity to wait for, when fixed at the copy (resident operands);
  /// otherwise the thread's parity bit of the mbarrier.
  Value parity = {};
  explicit operator bool() const { return first >= 0; }
};

/// A CUtensorMap the kernel receives as a parameter: the view argument it
/// describes, the box (per view dimension, 1 where the load or store
/// squeezes) and whether the kernel stores through it.
struct TensorMap {
  unsigned arg = 0;
  SmallVector<int64_t> box;
  bool store = false;
  /// The swizzle span (128 bytes), or 0: unswizzled, for a copy read into
  /// registers (the box whole along the last dimension), which also says
  /// its element size (the runtime checks the view's against it).
  int64_t swizzle = 128;
  int64_t elementBytes = 0;
};

/// The part of load/store addressing shared by both: per register, whether it
/// is in bounds and its address; plus the vector groups that may be accessed
/// as one 16-byte (or narrower) access.
struct Access {
  SmallVector<Value> inBounds;      // i1 per register
  SmallVector<Value> address;       // ptr<1> per register
  int64_t vector = 1;               // registers per vector access
  SmallVector<Value> groupInBounds; // i1 per group of `vector` registers
};

/// The K extent of one warpgroup or tensor-memory MMA: 32 bytes of
/// operand (16 bf16/f16 elements, 8 tf32).
int64_t asyncKStep(tile::MmaOp op);

/// The accumulator's mma layout when the mma's operands are 16-bit, or tf32
/// staged K-major (A as it is, B a folded transpose: the only tf32 form the
/// warpgroup and tensor-memory MMAs read), and its result keeps that layout
/// (what those MMAs take), else null.
tilegpu::MmaLayoutAttr asyncAccLayout(tile::MmaOp op);

/// The transpose that defines `v` where it folds into its mma (staged the
/// other way round, nothing emitted: foldsIntoMma), else null.
tile::PermuteOp foldedTranspose(Value v);

class KernelEmitter {
public:
  KernelEmitter(func::FuncOp kernel, LLVM::GlobalOp shared,
                LLVM::GlobalOp dynamicShared, LLVM::GlobalOp mbarriers,
                LLVM::GlobalOp tmemSlot)
      : kernel(kernel), shared(shared), dynamicShared(dynamicShared),
        mbarriers(mbarriers), tmemSlot(tmemSlot), b(kernel.getContext()) {}

  /// Builds the llvm.func; returns failure after reporting an error.
  FailureOr<LLVM::LLVMFuncOp> run();
  int64_t sharedBytesNeeded() const { return sharedBytes; }
  int64_t dynamicSharedBytesNeeded() const { return dynamicBytes; }
  int64_t mbarriersNeeded() const { return numMbarriers; }
  bool usesTma() const { return !tensorMaps.empty(); }
  bool usesTensorMemory() const { return tmemColumns > 0; }
  /// Tensor-memory columns the kernel allocates (0: none).
  int64_t tensorMemoryColumns() const { return tmemColumns; }
  /// Compiled for programmatic dependent launch (kernel hint `pdl`).
  bool usesProgrammaticLaunch() const { return usesPdl; }

private:
  func::FuncOp kernel;
  /// The kernel's integer hint `name` for the module's target (default
  /// sm_90a), or null.
  IntegerAttr kernelHint(StringRef name) {
    return tessel::kernelHint(kernel, targetOf(kernel), name);
  }
  LLVM::GlobalOp shared, dynamicShared, mbarriers, tmemSlot;
  OpBuilder b;
  Location loc = UnknownLoc::get(kernel.getContext());
  DenseMap<Value, SmallVector<Value>> regs;
  DenseMap<Value, ViewParts> views;
  Value tid, lane, warp; // i32
  /// What refreshParameters rebinds (at the top of a loop iteration, to
  /// opaque copies): the thread index and the kernel's parameters (views,
  /// scalars, tensor maps).
  struct ParameterState {
    Value tid, lane, warp;
    DenseMap<Value, ViewParts> views;
    DenseMap<Value, SmallVector<Value>> scalars;
    SmallVector<Value> mapParams;
  };
  ParameterState refreshParameters();
  void restoreParameterState(const ParameterState &state);
  int64_t sharedBytes = 0;
  int numWarps = 4;
  /// Views read and written since the last barrier: a thread may read or
  /// write an element another thread wrote or read, so a store after an
  /// access to the same view (or a load after a store) waits for the CTA.
  /// Distinct view arguments are assumed not to overlap. Per stored view,
  /// the kinds of tile its stores wrote (see sameGrid); a null tile type
  /// stands for a store of unknown shape (a TMA store).
  struct StoreSlice {
    Type tile; // shape and layout: which thread holds which element
    ArrayRef<int64_t> squeeze;
    bool operator==(const StoreSlice &o) const {
      return tile == o.tile && squeeze == o.squeeze;
    }
  };
  using StoredViews = DenseMap<Value, SmallVector<StoreSlice, 1>>;
  DenseSet<Value> loadedViews;
  StoredViews storedViews;
  /// Transposes only ever used as mma operands: not emitted, the mma stages
  /// their sources instead (see emitMma).
  DenseSet<Value> foldedPermutes;
  /// Whether generic code touches dynamic shared memory (see run()).
  bool genericDynamicShared = true;
  /// Whether scratch() addresses the dynamic shared memory (the kernel's
  /// last TMA store stages its tile there: emitTmaStore).
  bool stagingInRings = false;
  /// Whether some thread may have accessed the static scratch buffer since
  /// the last barrier every path to this point passed. Every access to it
  /// goes through scratch() during its op's emission, which sets this; a
  /// pipelined loop's barriers (before its prologue, and at the top of each
  /// iteration) clear it; branches and loops merge what their paths leave
  /// (ifElse, emitIf, emitFor). A write to the buffer needs the barrier
  /// before it only where this is set (barrierBeforeScratchWrite).
  bool scratchTouched = false;
  /// Whether anything has used the dynamic shared memory yet (in program
  /// order): until then a loop's rings need no barrier before their first
  /// copies (emitFor).
  bool dynamicUsed = false;

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

  /// Per root dimension of `dist`, the running thread's lane id and warp
  /// id along it (i32): the lane and the warp split in `order`, fastest
  /// first, by threadsPerWarp and warpsPerCTA.
  std::pair<SmallVector<Value>, SmallVector<Value>>
  threadIds(const Distribution &dist);
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
  /// Element (row, col) of a tile of `rows` rows of `eb`-byte elements as
  /// the TMA writes it with the 128-byte swizzle: 128-byte panels of `rows`
  /// rows one after the other, 16-byte chunk c of row r at c ^ (r % 8) (the
  /// XOR only touches bits 4-6 of the offset, so any element, not just
  /// 16-byte chunks, is found this way).
  Value swizzledAddress(Value base, int64_t rows, int64_t eb, Value row,
                        Value col) {
    int64_t panel = 128 / eb;
    Value inPanel = arith::AndIOp::create(b, loc, col, i32(panel - 1));
    Value offset = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              arith::DivUIOp::create(b, loc, col, i32(panel)),
                              i32(rows * 128)),
        arith::AddIOp::create(b, loc,
                              arith::MulIOp::create(b, loc, row, i32(128)),
                              arith::MulIOp::create(b, loc, inPanel, i32(eb))));
    offset = arith::XOrIOp::create(
        b, loc, offset,
        arith::ShLIOp::create(
            b, loc, arith::AndIOp::create(b, loc, row, i32(7)), i32(4)));
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{offset});
  }
  /// ldmatrix: `count` 8x8 16-bit matrices, from the rows whose addresses
  /// the lanes give (ptr<3>), transposed with `trans`; per matrix the
  /// thread's 32-bit word (a pair of elements).
  SmallVector<Value> loadMatrices(Value address, int count, bool trans) {
    auto structType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(count, b.getI32Type()));
    Value m = NVVM::LdMatrixOp::create(
        b, loc, structType, address, count,
        trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> out;
    for (int i = 0; i < count; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, m, i));
    return out;
  }
  /// Byte `byteOffset` of the static scratch buffer (of the dynamic shared
  /// memory while stagingInRings), as a ptr<3>.
  Value scratch(int64_t byteOffset) {
    if (stagingInRings)
      dynamicUsed = true;
    else
      scratchTouched = true;
    Value base = LLVM::AddressOfOp::create(
        b, loc, stagingInRings ? dynamicShared : shared);
    if (!byteOffset)
      return base;
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{byteOffset});
  }
  /// Element `linear` of a tile staged at `at` (ptr<3>), or without one at
  /// `byteOffset` of the scratch buffer (readTile, writeTile).
  Value tileElementAddress(Value at, Value linear, Type element,
                           int64_t byteOffset) {
    return at ? elementAddress(at, linear, element)
              : sharedAddress(linear, element, byteOffset);
  }
  /// Element `linear` of a buffer of `element`s at `base` (ptr<3>).
  Value elementAddress(Value base, Value linear, Type element) {
    Type storage = element.isInteger(1) ? b.getI8Type() : element;
    return LLVM::GEPOp::create(b, loc, base.getType(), storage, base,
                               ValueRange{linear});
  }
  void barrier() {
    barrierInstruction();
    loadedViews.clear();
    storedViews.clear();
  }
  /// Before threads write the scratch buffer: the barrier that lets every
  /// earlier reader finish, where one may be pending (scratchTouched).
  /// (Warp-specialised kernels always take it.)
  void barrierBeforeScratchWrite() {
    if (scratchTouched || warpSpecialized)
      barrier();
  }
  /// The CTA barrier itself (warp-specialised: the consumers only, named
  /// barrier 1), without the bookkeeping of barrier().
  void barrierInstruction() {
    if (warpSpecialized)
      NVVM::BarrierOp::create(b, loc, TypeRange{}, i32(1), i32(32 * numWarps),
                              {}, Value());
    else
      NVVM::Barrier0Op::create(b, loc);
  }
  /// Marks the views a region reads and writes as accessed (for a loop body,
  /// whose next iteration follows its end).
  void noteAccesses(Operation *op) {
    op->walk([&](Operation *inner) {
      if (auto load = dyn_cast<tile::LoadOp>(inner))
        loadedViews.insert(load.getView());
      if (auto store = dyn_cast<tile::StoreOp>(inner))
        noteStore(store);
    });
  }
  void noteStore(tile::StoreOp store) {
    StoreSlice slice;
    if (!tmaOf.count(store))
      slice = {store.getValue().getType(),
               store.getSqueeze().value_or(ArrayRef<int64_t>())};
    SmallVector<StoreSlice, 1> &slices = storedViews[store.getView()];
    if (!llvm::is_contained(slices, slice))
      slices.push_back(slice);
  }
  /// Whether a store needs no barrier after the stores of its view since
  /// the last one: each of them stored a tile of the same type (so each
  /// position in the tile is held by the same thread) with the same
  /// squeeze. The indices of a tile.store are tile indices (the tile at
  /// index i starts at element i x box along each dimension), so tiles of
  /// one shape lie on one grid: two such stores write the same elements,
  /// from the same threads (program order), or, a view's elements not
  /// overlapping, disjoint ones.
  bool sameGrid(tile::StoreOp store) {
    auto it = storedViews.find(store.getView());
    if (it == storedViews.end())
      return false;
    StoreSlice slice{store.getValue().getType(),
                     store.getSqueeze().value_or(ArrayRef<int64_t>())};
    return llvm::all_of(it->second,
                        [&](const StoreSlice &s) { return s == slice; });
  }
  /// Adds the stores another path (a branch, a loop that may not run) left.
  void mergeStores(const StoredViews &other) {
    for (auto &[view, slices] : other)
      for (const StoreSlice &slice : slices)
        if (!llvm::is_contained(storedViews[view], slice))
          storedViews[view].push_back(slice);
  }
  /// True for the one thread copy of each element that stores it: where a
  /// CTA tile is larger than the tile, several threads hold each element.
  /// Null when every element has one holder.
  Value ownsRegister(const Distribution &dist, ArrayRef<Value> base, int64_t r);
  /// Runs `store` (a shared-memory write of register r) in the thread that
  /// owns the element only (see ownsRegister).
  void storeOwned(const Distribution &dist, ArrayRef<Value> base, int64_t r,
                  function_ref<void()> store) {
    Value owns = ownsRegister(dist, base, r);
    if (!owns) {
      store();
      return;
    }
    onlyWhere(owns, store);
  }
  /// When every register of a `dst` tile is an element the same thread
  /// holds in a `src` tile (layouts with one root, dimensions lining up:
  /// `srcDimOf[d]` is the source dimension result dimension d reads, -1 for
  /// one read at 0), the source register of each result register.
  static std::optional<SmallVector<int64_t>>
  registerRemap(const Distribution &src, const Distribution &dst,
                ArrayRef<int64_t> srcDimOf);
  /// Broadcasts and unit-dimension reshapes between such layouts: register
  /// copies, no instruction. False when the layouts do not allow it.
  bool remapInRegisters(Value source, Value result, ArrayRef<int64_t> srcDimOf);
  /// A reshape that inserts unit dimensions into a 1-D tile every warp
  /// holds whole, one or two elements per lane (wordsPerLane in
  /// tilegpu-assign-layouts) in one or two 32-bit words: each result element
  /// comes from the lane that holds it with one shfl.sync.idx of its word
  /// (one per aligned pair of 16-bit elements, one per 32-bit element), and
  /// no shared memory or CTA barrier. Only where the result's
  /// thread pattern starts at a multiple of the lane's element count along
  /// that dimension (an mma layout's columns or rows); false elsewhere.
  bool remapWordsInWarp(Value source, Value result, ArrayRef<int64_t> srcDimOf);
  /// Writes a tile to shared memory in row-major order (after a barrier, so
  /// earlier readers are done), then waits for all writes.
  void tileToShared(Value tile);
  Value loadShared(Value linear, Type element, int64_t byteOffset = 0);
  /// An `element` from shared memory at `address` (i1 stored as a byte).
  Value loadSharedAt(Value address, Type element);
  void storeShared(Value linear, Value value, int64_t byteOffset = 0);
  /// Stores `value` at a shared-memory `address` (an i1 as a byte).
  void storeSharedAt(Value address, Value value);
  /// Writes a tile row-major at `byteOffset` of shared memory (no barriers),
  /// rows `rowPad` elements longer than the shape says; or, `at`, at that
  /// shared-memory address (a ring buffer's, taken already: no bytes
  /// counted), which `byteOffset` then only says the alignment of.
  void writeTile(Value tile, int64_t byteOffset, StageLayout layout = {},
                 Value at = {});
  /// Whether writeTile stores a tile of `type` held as `dist` with stmatrix
  /// (kernel hint `stmatrix`): 16-bit elements, each aligned pair of
  /// registers (r, r + 1) holding, in lane l, elements (l / 4, 2 (l % 4))
  /// and (l / 4, 2 (l % 4) + 1) of an 8 x 8 block whose origin (the warp's
  /// base plus the pair's offset) lies on multiples of 8 (the mma
  /// accumulator's layout, and blocked layouts like it), every element held
  /// once, and staged rows of whole 16-byte chunks (8 elements from a
  /// multiple of 8) that start 16-byte aligned.
  bool stmatrixFits(RankedTensorType type, const Distribution &dist,
                    int64_t byteOffset, StageLayout layout);
  /// writeTile where stmatrixFits: stmatrix.x4 per four register pairs (x2,
  /// x1 for the rest), lane l giving the address of row l % 8 of the
  /// pair (l / 8) % count.
  void writeTileMatrices(Value tile, const Distribution &dist,
                         int64_t byteOffset, StageLayout layout);
  /// Elements per shared-memory vector access of a tile of `type` stored
  /// row-major at `byteOffset` with rows `rowPad` longer (1: scalars).
  int64_t sharedVector(RankedTensorType type, const Distribution &dist,
                       int64_t byteOffset, StageLayout layout);
  /// Reads the registers of a tile of `type` stored at `byteOffset` of the
  /// scratch buffer as `layout` says (row-major, rows `rowPad` longer, or
  /// as the TMA swizzles it), or (`at`) at that shared-memory address,
  /// which `byteOffset` then only says the alignment of (a ring buffer's:
  /// 0).
  SmallVector<Value> readTile(RankedTensorType type, int64_t byteOffset,
                              StageLayout layout = {}, Value at = {});
  /// Row-major position of `coords`; rows (the last dimension) are
  /// `rowPad` elements longer than the shape says when padding is asked for.
  Value linearIndex(ArrayRef<Value> coords, ArrayRef<int64_t> shape,
                    int64_t rowPad = 0);

  // TMA. The loads and stores tilegpu-insert-tma marks (tilegpu.tma; the
  // rules are in passes/TmaPlan.h: mma operands loaded where they are used,
  // or loop-invariant ones, loads read as A fragments (loadsIntoFragments),
  // and stores asking for it, of 2-D boxes whose
  // rows are whole 128-byte panels, from views with 16-byte alignment and
  // unit stride) go through the tensor memory accelerator: one thread issues
  // cp.async.bulk.tensor per panel into a swizzled buffer, completing on an
  // mbarrier every thread waits on; out-of-bounds elements arrive as zeros.
  // The kernel receives one CUtensorMap per (view, box), built by the
  // runtime at launch from the table tessel_tma_<kernel> the module exports.
  SmallVector<TensorMap> tensorMaps;
  DenseMap<Operation *, unsigned> tmaOf; // load or store -> its tensor map
  SmallVector<Value> mapParams;          // the CUtensorMap parameters
  /// The tile's extent along each view dimension of `load` (1 where it
  /// squeezes).
  static SmallVector<int64_t>
  boxOf(tile::ViewType view, RankedTensorType type,
        std::optional<ArrayRef<int64_t>> sq) {
    SmallVector<int64_t> box;
    int64_t t = 0;
    for (int64_t d = 0; d < view.getRank(); ++d)
      box.push_back(sq && llvm::is_contained(*sq, d) ? 1
                                                     : type.getDimSize(t++));
    return box;
  }
  static SmallVector<int64_t> boxOf(tile::LoadOp load) {
    return boxOf(load.getView().getType(), load.getType(), load.getSqueeze());
  }
  static SmallVector<int64_t> boxOf(tile::StoreOp store) {
    return boxOf(store.getView().getType(),
                 cast<RankedTensorType>(store.getValue().getType()),
                 store.getSqueeze());
  }
  /// The index of `map` among the kernel's tensor maps (added if new).
  unsigned addTensorMap(TensorMap map);
  /// Element coordinates, per view dimension, where the tile at tile index
  /// `indices` with extents `box` starts.
  SmallVector<Value> boxOrigin(ValueRange indices, ArrayRef<int64_t> box);
  /// The TMA's coordinates (innermost first) of the `panel`-element-wide
  /// panel `p` of the box at `origin`.
  SmallVector<Value> panelCoords(ArrayRef<Value> origin, int64_t p,
                                 int64_t panel);
  /// The store through shared memory and cp.async.bulk.tensor.
  LogicalResult emitTmaStore(tile::StoreOp op);
  void emitResident(tile::LoadOp load);
  DenseSet<Operation *> residentLoads;
  struct Resident {
    Value buffer;
    MbarRef bar;
  };
  DenseMap<Value, Resident> residentAt;
  /// Assigns the tensor maps of every qualifying load of the kernel.
  LogicalResult planTensorMaps();
  /// Issues the bulk copies of `load` (indices as `regs` says now) into the
  /// swizzled buffer `dst`, completing on `bar`.
  void issueTma(tile::LoadOp load, Value dst, MbarRef bar,
                bool multicast = false) {
    issueTmaGroup({{load, dst}}, bar, multicast);
  }
  /// Issues the copies of every (load, buffer) of `copies`, all completing
  /// on `bar`: one thread arrives once, expecting the bytes of them all.
  /// `multicast`: the caller (a loop's ring, a resident buffer) orders the
  /// cluster's CTAs around the copies (clusterBarrier), so that the loads of
  /// multicastLoads among them are multicast: each CTA copies its slice of
  /// the rows into every CTA of the cluster, and each still expects the
  /// whole tile's bytes on its own mbarrier (its slice from itself, the
  /// others' from them). A load of multicastLoads that a caller without
  /// that order issues (planPrefetch left it out of the ring) is copied
  /// whole by this CTA, slice by slice, into its own shared memory only.
  void issueTmaGroup(ArrayRef<std::pair<tile::LoadOp, Value>> copies,
                     MbarRef bar, bool multicast = false);
  /// The loads copied once per cluster (tilegpu.multicast), where
  /// planTensorMaps found that a ring or a resident buffer holds them
  /// (their tensor maps' boxes are one CTA's slice of the rows), and the
  /// cluster's CTAs.
  DenseSet<Operation *> multicastLoads;
  int64_t multicastCtas = 1;
  /// Whether a multicast copy was issued (the setup then ends with a
  /// cluster barrier: every CTA's mbarriers initialised before another's
  /// copy completes on them).
  bool multicastIssued = false;
  /// %cluster_ctarank, read in the entry block.
  Value clusterRank;
  /// The CTA barrier, then every thread of every CTA of the cluster arrives
  /// and waits: each CTA's reads of its buffers before it come before any
  /// CTA's copies into them after it. The CTA barrier keeps what the
  /// bookkeeping of barrier() relies on (CTA-scope ordering of the threads'
  /// accesses). The cluster's arrival is relaxed: the release form fences
  /// every outstanding memory access of the thread at cluster scope (global
  /// loads and stores included), and on the H200 a third of compute_out's
  /// warp cycles then stalled on it (ncu: "memory barrier",
  /// bench/results/2026-12-05-multicast.md). What it orders across CTAs are
  /// reads of shared memory whose values the threads have used by then (mma
  /// operands after their wait, registers read from a ring), against copies
  /// issued only after every CTA's arrival. (The setup's cluster barrier
  /// needs no CTA barrier: the mbarriers' initialisation reaches the cluster
  /// through fence.mbarrier_init.release.cluster, as in CUTLASS.)
  void clusterBarrier() {
    clusterBarrierInstruction();
    loadedViews.clear();
    storedViews.clear();
  }
  /// barrier(), or clusterBarrier() before buffers that multicast copies
  /// refill (every CTA of the cluster must be done with them).
  void barrierBeforeRefill(bool multicast) {
    if (multicast)
      clusterBarrier();
    else
      barrier();
  }
  void clusterBarrierInstruction() {
    barrierInstruction();
    NVVM::ClusterArriveRelaxedOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  }
  /// Waits for the phase of `bar` the running thread has not waited for
  /// yet (each thread keeps one parity bit per mbarrier). The mbarriers of
  /// `sharedStages` (the loop being emitted issues several copies per stage
  /// onto one) are waited for once per iteration, by the first wait its
  /// body emits; the later ones are already satisfied.
  void waitTma(MbarRef bar);
  /// Per first mbarrier of a shared ring stage set: whether the iteration
  /// being emitted has waited for it (see waitTma).
  DenseMap<int64_t, bool> sharedStages;
  Value mbarAddress(MbarRef bar);
  /// An i32 the running thread keeps (an alloca in the entry block, 0 at
  /// the start; promoted to a register).
  Value newSlot();
  /// The running thread's parity bits of mbarriers 32 w .. 32 w + 31 (w =
  /// i / 32; bit i % 32 is mbarrier i's).
  Value phaseSlot(int64_t i);
  /// The running thread's parity bit of mbarrier `first` (+ `stage`, within
  /// the same 32), and that bit flipped.
  Value phaseBit(int64_t first, Value stage);
  void flipPhase(int64_t first, Value stage);
  /// mbarriers: two for operands staged in the scratch buffer (A, B), two
  /// per TMA load a loop prefetches (one per buffer).
  int64_t numMbarriers = 0;
  /// `n` consecutive mbarriers (a ring's, n <= 32): the first's index,
  /// after skipping to the next multiple of 32 where they would straddle
  /// one (the parity bits of a ring then lie in one register, phaseSlot).
  int64_t ringMbarriers(int64_t n) {
    if (numMbarriers % 32 + n > 32)
      numMbarriers = (numMbarriers + 31) / 32 * 32;
    int64_t first = numMbarriers;
    numMbarriers += n;
    return first;
  }
  int64_t scratchMbar[2] = {-1, -1};
  DenseMap<int64_t, Value> phaseSlots;
  Block *entryBlock = nullptr;
  Operation *setupEnd = nullptr; // where mbarriers are initialised
  /// Per prefetched load result, the mbarrier its current buffer completes
  /// on (TMA loads).
  DenseMap<Value, MbarRef> prefetchedMbar;
  /// mbarriers that complete on other than one arrival (by default one: the
  /// thread that issues a copy), with their arrival counts.
  DenseMap<int64_t, int64_t> mbarArrivals;

  // Warp specialisation (kernel hint `warp_specialize`). The TMA loads that
  // loops issue ahead (tilegpu.distance) move to a producer warpgroup added
  // after the kernel's warps: one of its threads walks the kernel's control
  // flow (the loops and branches around those loads, with the scalar values
  // their bounds, conditions and box origins need) and issues every such
  // copy into a ring of distance + 1 buffers per load, each buffer with a
  // `full` mbarrier (its copy landed) and an `empty` one (every consumer
  // warp is done reading it). The kernel's own warps (the consumers) wait
  // on `full` where the load stands and arrive on `empty` at the end of the
  // loop iteration that read it, instead of issuing the copies themselves
  // behind a CTA barrier per iteration; the producer runs as far ahead as
  // the rings allow, across loop nests and (persistent kernels) programs.
  // Each side counts the copies of each ring (an i32 per thread): copy k
  // is buffer k mod n, phase (k / n) mod 2. The producer gives registers
  // back (setmaxnreg.dec), the consumers take them (setmaxnreg.inc), and
  // CTA barriers among the consumers are a named barrier the producer does
  // not take part in.
  // With the hint `ring_slots`, the loads share one ring (the same buffers,
  // mbarriers and counter) instead.
  struct WsRing {
    tile::LoadOp load;
    int64_t slots = 2, bytes = 0, offset = 0;
    int64_t full = -1, empty = -1; // first mbarrier of each kind
    Value counterSlot;             // its copy counter (see ringCounter)
    unsigned counterOf = 0;        // the ring whose counter it counts with
    bool genericReads = false;     // read by ldmatrix (mma.sync, fragments)
    StageLayout layout;            // as the load is staged
  };
  /// How many copies into a warp-specialised ring the running thread has
  /// issued (the producer) or consumed (a consumer).
  Value ringCounter(WsRing &ring) {
    WsRing &owner = wsRings[ring.counterOf];
    if (!owner.counterSlot)
      owner.counterSlot = newSlot();
    return owner.counterSlot;
  }
  SmallVector<WsRing> wsRings;
  DenseMap<Operation *, unsigned> wsRingOf;
  /// The ring loads of the loops being emitted: a consumer takes each copy
  /// (its counter's next) where the load stands, in program order as the
  /// producer issued them, and `wsTaken` collects the current iteration's
  /// buffers, freed when it ends.
  DenseMap<Operation *, WsRing *> wsPending;
  SmallVector<std::pair<WsRing *, MbarRef>> *wsTaken = nullptr;
  bool warpSpecialized = false;
  /// Emitting the producer's walk (issueTma then runs in the one producer
  /// thread, not in thread 0).
  bool producerMode = false;
  /// Warp-specialised: the registers per thread at launch (.maxnreg), the
  /// producer warpgroup's and the consumers' after setmaxnreg.
  int64_t wsLaunchRegs = 0, wsProducerRegs = 0, wsConsumerRegs = 0;
  /// Decides the rings from the loads' marks and the register split, or
  /// says why the kernel cannot be specialised.
  LogicalResult planWarpSpecialization();
  /// The producer's walk of `block`: loops and branches holding ring loads,
  /// the scalar ops they need, and the copies.
  void emitProducer(Block &block);
  /// The producer's walk of a scalar branch's side (emitProducer), and the
  /// values it yields; `known` turns false where one is not computed.
  SmallVector<Value> producerYield(Block &block, bool &known);
  /// The buffer and the phase of the ring's copy `k` (i32).
  std::pair<Value, Value> wsStageAndPhase(const WsRing &ring, Value k);
  /// A consumer takes the ring's next copy for the load it holds.
  void takeRingCopy(WsRing &ring);
  /// Whether `op` is or holds a load the producer fills.
  bool holdsRingLoad(Operation &op) {
    return op
        .walk([&](tile::LoadOp load) {
          return wsRingOf.count(load) ? WalkResult::interrupt()
                                      : WalkResult::advance();
        })
        .wasInterrupted();
  }

  // tcgen05 (sm_100a, sm_103a). A 16-bit mma (or a tf32 one with K-major
  // operands: asyncAccLayout) whose accumulator is in
  // #tilegpu.mma<[4, 1]> on 4 warps runs on the fifth-generation tensor
  // cores: operands staged in shared memory as for wgmma (core matrices, or
  // the TMA's 128-byte swizzled panels; K-major or M/N-major, the
  // instruction descriptor says which), except an A computed in registers
  // in the accumulator's layout, which the warps store to tensor memory
  // (16x128b) for the MMAs to read there; per 64-row block one tcgen05.mma
  // (M = 64) per 32-byte K step (16 elements, 8 for tf32), issued by thread 0 with shared-memory
  // descriptors, the accumulator in tensor memory (moved there and back
  // with tcgen05.st/ld of shape 16x256b, whose per-thread image is
  // mma.sync's C fragment), completion through tcgen05.commit on an
  // mbarrier.
  /// Tensor-memory columns the kernel allocates (0: none), the shared slot
  /// tcgen05.alloc writes the address to, and the mbarrier MMAs commit to.
  int64_t tmemColumns = 0;
  int64_t tcgen05Mbar = -1;
  bool usesPdl = false;
  Value tmemBase();
  /// The tensor-memory address of `column` in lanes from `laneBase` (null:
  /// lane 0), `tmem` the allocation's base (tmemBase).
  Value tmemAt(Value tmem, Value laneBase, int64_t column);
  /// Each warp's 16 rows of the M = 64 data path start at lane 32 w.
  Value tmemLaneBase();
  /// Stores an accumulator (registers of #tilegpu.mma<[4, 1]>, `blocks`
  /// 64-row blocks of N columns) to tensor memory columns [column0, column0
  /// + blocks N), or loads it back (waiting for the loads), with
  /// tcgen05.st/ld 16x256b.
  void tmemStoreAcc(Value tmem, Value laneBase, ArrayRef<Value> acc,
                    int64_t blocks, int64_t N, int64_t column0 = 0);
  SmallVector<Value> tmemLoadAcc(Value tmem, Value laneBase, int64_t blocks,
                                 int64_t N, int64_t column0 = 0);
  /// The mmas whose loop-carried accumulator stays in tensor memory (see
  /// emitFor): they read and write it there, without moving it through
  /// registers.
  DenseSet<Operation *> residentAcc;
  /// Tensor-memory columns held by the accumulators resident across the
  /// loops being emitted (each at residentColumn of its mma): the other
  /// tcgen05 mmas put theirs (and a register A) after them.
  int64_t tmemReserved = 0;
  DenseMap<Operation *, int64_t> residentColumn;
  /// Where a tcgen05 mma's register A starts in tensor memory: after the
  /// columns the resident accumulators hold and, unless its accumulator is
  /// one of them, after its own `blocks` x N.
  int64_t tmemAColumn0(tile::MmaOp op, int64_t blocks, int64_t N) {
    return tmemReserved + (residentAcc.contains(op) ? 0 : blocks * N);
  }
  /// The mma of `loop`'s body whose accumulator can stay in tensor memory
  /// across the loop for iter_arg `i`, or null: the iter_arg's only use is
  /// as the accumulator of a tcgen05 mma directly in the body, whose only
  /// use is the yield at position `i`, and no other tcgen05 mma runs in the
  /// body (unless the kernel hint `tcgen05_tmem_acc` is 2: the others then
  /// use the columns after the resident ones). Hint 0 moves every
  /// accumulator to tensor memory and back around each mma.
  tile::MmaOp tmemResidentMma(scf::ForOp loop, unsigned i);

  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation &op);
  /// Addresses and bounds of the elements a load or store touches.
  /// `interior`: for code that runs only where wholeTileFits holds (unit
  /// stride along the last dimension when accesses are vectors, which then
  /// become constant offsets). Emitted inside the branch that uses it, so
  /// that the per-register addresses live only there.
  Access accessOf(Value view, ValueRange indices, RankedTensorType type,
                  std::optional<ArrayRef<int64_t>> squeeze,
                  const Distribution &dist, bool interior = false);
  /// Whether the whole box of a load/store is inside the view (and, for
  /// vector accesses, has unit stride and aligned rows): one uniform test
  /// that lets interior tiles skip every per-element check.
  Value wholeTileFits(Value view, ValueRange indices, RankedTensorType tile,
                      std::optional<ArrayRef<int64_t>> squeeze, int64_t vector);
  LogicalResult emitLoad(tile::LoadOp op);
  LogicalResult emitPrefetch(tile::PrefetchOp op);
  /// A load into the transposed mma layout (loadsIntoFragments), copied by
  /// the TMA: waits for its staged copy (a ring buffer in a loop that issues
  /// it ahead, else the scratch buffer) and reads the A fragments of its
  /// transpose with ldmatrix.trans, one .x4 per 16 x 16 block.
  LogicalResult emitFragmentLoad(tile::LoadOp op);
  /// A load read into registers from its TMA copy (loadsThroughShared, or
  /// loadsIntoComputedOperand): waits for the copy (issued ahead into a
  /// ring; a load the schedule left without one is loaded from global
  /// memory) and reads the thread's registers from it, row-major (swizzled
  /// as an mma operand for the second kind, whose buffer it notes in
  /// computedOperandSlot).
  LogicalResult emitSharedRegisterLoad(tile::LoadOp op);
  /// Per mma, the ring buffer holding the copy of the load its B operand is
  /// computed from (loadsIntoComputedOperand), 128-byte swizzled, and the
  /// load's tile, noted by emitSharedRegisterLoad where the load was read
  /// from it this iteration: the mma writes its computed B there and reads
  /// it in place.
  DenseMap<Operation *, std::pair<Value, Value>> computedOperandSlot;
  /// Whether every element of a tile held as `dist` is held by one thread
  /// (no CTA tile larger than the tile, the layout's warps the kernel's).
  bool heldOnce(const Distribution &dist);
  LogicalResult emitStore(tile::StoreOp op);
  LogicalResult emitCounter(Operation *op);
  Value counterAddress(Value viewValue, ValueRange indices, Value &inBounds);
  LogicalResult emitTicket(tile::TicketOp op);
  LogicalResult emitCumsum(tile::CumsumOp op);
  LogicalResult emitMma(tile::MmaOp op);
  /// tile.mma on the asynchronous tensor cores, which read their operands
  /// from shared memory through descriptors: wgmma.mma_async on sm_90a (see
  /// usesWgmma) or tcgen05.mma on sm_100a/sm_103a (see usesTcgen05).
  /// Operands staged (A from `aSrc`, transposed when `aT`; B likewise) in
  /// core matrices, or as the TMA wrote them (128-byte swizzled panels); on
  /// sm_90a an A in the accumulator's layout may come from registers.
  LogicalResult emitAsyncMma(tile::MmaOp op, Value aSrc, Value bSrc, bool aT,
                             bool bT);
  /// The A fragments (a0..a3) of 16-row block `i` at column `k0` of an
  /// operand `a` (K columns) held in an accumulator layout, as 2-element
  /// vectors or (`asWords`) 32-bit words.
  SmallVector<Value> registerFragmentA(Value a, int64_t K, int64_t i,
                                       int64_t k0, bool asWords);
  /// Whether an async mma takes its A from registers where it is computed
  /// there: 16-bit, not a folded transpose, in the accumulator's own mma
  /// layout, and the kernel's wgmma_register_a (tcgen05_tmem_a) hint not 0.
  bool takesRegisterA(tile::MmaOp op);
  /// The registers of `a` that registerFragmentA reads for (i, k0), in
  /// the order of its pairs' elements.
  SmallVector<Value> fragmentRegistersA(Value a, int64_t K, int64_t i,
                                        int64_t k0);
  /// One wgmma.mma_async m64nNk16 step with A from registers (`a`: a0..a3)
  /// and B by descriptor, accumulating into `d` (a struct of N / 2 f32).
  Value wgmmaRegisterA(Type structType, Value d, ArrayRef<Value> a,
                       Value descB, int64_t N, Type element, bool bT);
  LogicalResult emitCumsumInWarps(tile::CumsumOp op);
  LogicalResult emitReduce(tile::ReduceOp op);
  /// `values` (all 32-bit, or all bf16 / f16) as the lane whose id is this
  /// lane's XOR `laneMask` holds them (shfl.sync.bfly over the whole warp;
  /// 16-bit values two to a word).
  SmallVector<Value> shuffleXor(ArrayRef<Value> values, int64_t laneMask);
  /// A reduction of 32-bit elements, or bf16 / f16, whose result has the
  /// source's layout sliced along its axis (tilegpu-assign-layouts gives it
  /// that where the result meets the source's layout again, e.g. a row
  /// maximum reshaped back against an mma accumulator; else a blocked
  /// layout): each thread combines its own registers per output element,
  /// then the lanes along the axis by butterfly shuffles (no shared memory,
  /// no barrier), and where warps lie along the axis too, their partials
  /// through the scratch buffer (one store per warp and element, then the
  /// loads, behind the scratch buffer's barriers). False (nothing emitted)
  /// where that does not hold: the whole tile then goes through shared
  /// memory, each output element a loop over the axis.
  bool reduceInWarps(tile::ReduceOp op,
                     function_ref<Value(Value, Value)> combine);
  LogicalResult
  emitRemap(Operation *op,
            function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords);
  LogicalResult emitPermute(tile::PermuteOp op);
  /// Loads whose tiles only feed mma operands (directly or through a folded
  /// transpose): not emitted where they stand; the mma copies them from
  /// global to shared memory with cp.async (see stageOperand), so that they
  /// never occupy registers.
  DenseSet<Value> deferredLoads;
  /// Where an mma operand sits in shared memory (row-major, padded rows).
  struct Staged {
    Value base;      // ptr<3> to its first element
    bool async;      // copied by cp.async in a group committed just now
    bool prefetched; // copied by an earlier iteration (see emitFor)
    MbarRef tma = {}; // copied by TMA: wait on this before reading
    /// Prefetched by cp.async: the loop committed this many groups since.
    int64_t ahead = 0;
  };
  /// Puts an mma operand (its staged value) at `byteOffset` of the scratch
  /// buffer as `layout` says: a deferred load by TMA (into operand `slot`'s
  /// buffer, 0 for A, 1 for B) or cp.async, any other tile from its
  /// registers; a prefetched load is already in place.
  Staged stageOperand(Value value, int64_t byteOffset, StageLayout layout,
                      unsigned slot);
  /// For operands the threads copied ahead with cp.async (`aThreads` /
  /// `bThreads`: staged by the threads), the groups newer than the nearest
  /// one's: `cp.async.wait_group` of that many leaves only the copies of
  /// later iterations in flight. 0 when neither was copied ahead.
  static int64_t groupsSince(bool aThreads, const Staged &a, bool bThreads,
                             const Staged &b) {
    int64_t ahead = 0;
    for (auto [threads, staged] : {std::pair<bool, const Staged *>{aThreads, &a},
                                   {bThreads, &b}})
      if (threads && staged->prefetched && staged->ahead > 0)
        ahead = ahead ? std::min(ahead, staged->ahead) : staged->ahead;
    return ahead;
  }
  /// Waits for an mma's staged operands (A unless `aInRegs`): every
  /// cp.async group when one was committed just now, else the groups newer
  /// than the nearest prefetched one's; TMA copies on their mbarriers.
  /// Returns whether the threads wrote each operand (A, B): those writes
  /// still need a barrier (and a proxy fence for the async readers).
  std::pair<bool, bool> waitForOperands(bool aInRegs, const Staged &a,
                                        const Staged &bOp) {
    bool aThreads = !aInRegs && !a.tma, bThreads = !bOp.tma;
    if ((aThreads && a.async) || (bThreads && bOp.async))
      NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    else if (int64_t ahead = groupsSince(aThreads, a, bThreads, bOp))
      NVVM::CpAsyncWaitGroupOp::create(b, loc, ahead);
    if (a.tma)
      waitTma(a.tma);
    if (bOp.tma)
      waitTma(bOp.tma);
    return {aThreads, bThreads};
  }
  /// See "tcgen05" above.
  bool usesTcgen05(tile::MmaOp op);
  /// The tcgen05 part of emitAsyncMma: `descA(m0, k0)` and `descB(k0)` are
  /// the shared-memory descriptors of A's 64 rows from m0 and of B, at the
  /// 16-wide K step k0; `aT` / `bT` as there (the instruction descriptor's
  /// major-ness bits). With `aRegs` (a tile in the accumulator's layout), A
  /// goes from those registers to tensor memory and the MMAs read it there.
  LogicalResult
  emitTcgen05(tile::MmaOp op, function_ref<Value(int64_t, int64_t)> descA,
              function_ref<Value(int64_t)> descB, bool aT, bool bT,
              Value aRegs);
  /// The staging of an mma operand staged as `value`: swizzled for loads
  /// copied by TMA, `otherwise` for the rest.
  StageLayout stagingOf(Value value, StageLayout otherwise) {
    auto load = value.getDefiningOp<tile::LoadOp>();
    return load && tmaOf.count(load) &&
                   (deferredLoads.contains(value) || residentAt.count(value))
               ? StageLayout::swizzled128()
               : otherwise;
  }
  /// Elements per cp.async of a deferred load staged with `rowPad`, or 0
  /// when it cannot be copied asynchronously (then it goes through
  /// registers).
  int64_t asyncCopyGroup(tile::LoadOp load, StageLayout layout);
  /// Issues the cp.async copies of `load` (indices as `regs` says now) to
  /// the row-major buffer at `dst`; the caller commits the group.
  void issueCopy(tile::LoadOp load, Value dst, StageLayout layout);
  /// Rounds dynamic shared memory up for a buffer of `layout`.
  static int64_t alignFor(int64_t bytes, StageLayout layout) {
    int64_t a = layout.swizzled ? 1024 : layout.plain ? 128 : 16;
    return (bytes + a - 1) / a * a;
  }
  /// Bytes of one ring buffer holding `load`'s tile staged as `layout`.
  static int64_t ringBufferBytes(tile::LoadOp load, StageLayout layout) {
    auto type = cast<RankedTensorType>(load.getType());
    return alignFor(layout.elements(type.getShape()) *
                        storageBytes(type.getElementType()),
                    layout);
  }
  /// Element index of `coords` in a tile of `shape` staged as `layout`
  /// (`elementBytes`-byte elements).
  Value stagedIndex(ArrayRef<Value> coords, ArrayRef<int64_t> shape,
                    StageLayout layout, int64_t elementBytes);
  /// Deferred mma operand loads of a loop that tilegpu-schedule-loads
  /// issued `distance` iterations ahead: a ring of distance + 1 buffers of
  /// dynamic shared memory (and as many mbarriers for a TMA copy).
  struct Prefetch {
    tile::LoadOp load;
    StageLayout layout;
    int64_t distance = 1;
    int64_t stageBytes = 0, offset = 0;
    // Bytes from one buffer of the ring to the next: stageBytes, or, where
    // the loop's rings are laid out stage by stage (a loop whose prologue is
    // issued ahead, emitFor), the bytes of one stage of all of them.
    int64_t stride = 0;
    int64_t mbar = -1; // TMA loads: the first mbarrier (one per buffer)
  };
  /// Warp-specialised, the loads whose kernel-long rings the producer fills
  /// (planWarpSpecialization) go to `wsHere` instead.
  FailureOr<SmallVector<Prefetch>> planPrefetch(scf::ForOp loop,
                                                SmallVector<Operation *> &slice,
                                                SmallVector<WsRing *> &wsHere);
  /// Per planned load, the group of TMA copies it completes with (one
  /// mbarrier per buffer for them all; `share` false: each its own).
  SmallVector<unsigned> ringStageGroups(ArrayRef<Prefetch> plan, bool share);
  /// Other loads of a loop (their tiles go to registers) issued
  /// `tilegpu.distance` iterations ahead: the loop carries a set of their
  /// registers per iteration ahead.
  FailureOr<SmallVector<tile::LoadOp>>
  planRegisterPrefetch(scf::ForOp loop, SmallVector<Operation *> &slice);
  /// Loads whose registers the enclosing loop carries (see emitFor), with
  /// the carried words of those that travel packed (16-bit elements: see
  /// packsIntoWords), unpacked where the load stood.
  DenseSet<Operation *> preloaded;
  DenseMap<Operation *, SmallVector<Value>> preloadedWords;
  /// A load's registers, or (`packed`) its 16-bit elements two per i32 word,
  /// so that values merged from branches or carried by a loop are the
  /// loaded words themselves (unpacking them where they are loaded would
  /// make the thread wait for the load there).
  SmallVector<Value> loadRegisters(tile::LoadOp op, bool packed);
  /// 16-bit elements two to a 32-bit word (i32), the first in the low half,
  /// as a <2 x T> vector (an odd count leaves the last word's high half
  /// zero); 32-bit elements one to a word, bitcast to i32. unpackWords is
  /// the inverse (16-bit: two elements per word, an odd count's extra one
  /// included).
  SmallVector<Value> packWords(ArrayRef<Value> values);
  SmallVector<Value> unpackWords(Type element, ArrayRef<Value> words);
  /// Loads of 16-bit elements held as their loaded words (packsIntoWords)
  /// until the op of their block that first uses them, itself or in a
  /// nested region, or the block's terminator (`unpackBefore`). Unpacked
  /// where the load stands (right after the loads and the join of the
  /// interior and border paths), the 16-bit halves made every thread wait
  /// for the load there: compute_out's D x_t, loaded early so that its
  /// latency overlaps the state term's (9.4% of its stall samples were on
  /// those unpacks).
  DenseMap<Value, SmallVector<Value>> packedWords;
  DenseMap<Operation *, SmallVector<Value>> unpackBefore;
  void unpackPending(ArrayRef<Value> values);
  /// Buffer `stage` (i32) of a ring of `bytes`-byte buffers at `offset` of
  /// dynamic shared memory; of a prefetch's ring (stage 0 to distance).
  Value ringBuffer(int64_t offset, int64_t bytes, Value stage);
  Value prefetchBuffer(const Prefetch &p, Value stage) {
    return ringBuffer(p.offset, p.stride ? p.stride : p.stageBytes, stage);
  }
  /// Per load result, the buffer the current iteration reads.
  DenseMap<Value, Value> prefetchedAt;
  /// Per load result prefetched by cp.async, its distance.
  DenseMap<Value, int64_t> prefetchedAhead;
  /// Dynamic shared memory: a stack of pipeline buffers (a loop's are live
  /// while it runs); the high-water mark is what launches pass.
  int64_t dynamicTop = 0, dynamicBytes = 0;
  /// Whether `op` runs as wgmma.mma_async (sm_90a, the kernel allows it, a
  /// 16-bit mma, or a tf32 one with K-major operands, whose accumulator is
  /// in a warpgroup #tilegpu.mma layout: asyncAccLayout).
  bool usesWgmma(tile::MmaOp op);
  /// Where the kernel asks for warpgroup MMAs, warns that `op` takes
  /// mma.sync instead, and why.
  void warnWgmmaFallback(tile::MmaOp op);
  /// Whether something reads the shared-memory copy of `load` (staged for
  /// its mmas, or read into registers) through the generic proxy: an mma
  /// that is neither wgmma nor tcgen05 (mma.sync's ldmatrix), directly or
  /// through a transpose, or any other user (a fragment load's
  /// ldmatrix.trans).
  bool readsGeneric(tile::LoadOp load);
  /// How `op` stages its A (`isA`) or B operand, staged transposed when the
  /// operand is a folded permute.
  StageLayout operandStage(tile::MmaOp op, bool isA, bool transposed);
  /// The staging every mma use of a deferred load asks for; none when uses
  /// disagree.
  std::optional<StageLayout> loadStage(tile::LoadOp load);
  LogicalResult emitRemapInWarp(
      Value source, Value result,
      function_ref<SmallVector<Value>(ArrayRef<Value>)> sourceCoords);
  LogicalResult emitElementwise(Operation &op);
  FailureOr<Value> emitMath(Operation &op, Value x);
  LogicalResult emitFor(scf::ForOp op);
  /// Runs `fn` with `loop`'s induction variable at `iv` (none where `loop`
  /// is null) and `ops` (scalar index ops, each emitted once already, or
  /// defined from values that have registers) evaluated for it; the
  /// registers of those values are left as they were.
  void evaluatedAt(scf::ForOp loop, ArrayRef<Operation *> ops, Value iv,
                   function_ref<void()> fn);
  /// The iteration after `iv` by `by`, and whether it runs: below `upper`
  /// and (step by step, so that no sum wraps around unnoticed) past `iv`.
  std::pair<Value, Value> stepFrom(Value iv, Value upper, Value by);
  /// Lays `plan`'s rings out stage by stage from `base` (buffer j of every
  /// ring in stage j: `stride`); returns a stage's bytes.
  int64_t layOutByStage(llvm::MutableArrayRef<Prefetch> plan, int64_t base);
  /// The mbarriers of `plan`'s TMA rings (distance + 1 + `spare` buffers),
  /// one per buffer for the copies whose waits are adjacent
  /// (ringStageGroups).
  void assignRingMbarriers(llvm::MutableArrayRef<Prefetch> plan, int64_t spare);
  /// A loop whose prologue goes out where its anchor starts
  /// (tilegpu.prologue_early): its rings, laid out stage by stage at the
  /// bottom of the dynamic shared memory taken where the anchor starts,
  /// with their mbarriers; the slice its indices need; and the branches'
  /// conditions its prologue is issued under.
  struct EarlyLoop {
    scf::ForOp loop;
    SmallVector<Prefetch> plan;
    SmallVector<Operation *> slice;
    SmallVector<std::pair<Value, bool>> conditions;
    SmallVector<Operation *> outerSlice;
  };
  /// Plans the loops marked tilegpu.prologue_early whose anchor is
  /// `anchor`: their rings from the current top, the top raised past the
  /// largest of their prologues' stages (the anchor's rings go above).
  LogicalResult planEarlyLoops(scf::ForOp anchor,
                               SmallVector<EarlyLoop, 2> &early);
  /// Issues an early loop's prologue (where its anchor starts).
  void emitEarlyPrologue(const EarlyLoop &early);
  /// The early loops' plans, taken where they are emitted.
  DenseMap<Operation *, EarlyLoop> earlyPlans;
  tile::MmaOp deferredWgmma(scf::ForOp loop);
  /// The mmas whose group the enclosing loop leaves running into its next
  /// iteration (deferredWgmma).
  DenseSet<Operation *> deferredMmas;
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
  /// Runs `body` (side effects only) where `cond` holds.
  void onlyWhere(Value cond, function_ref<void()> body) {
    ifElse(
        cond, {},
        [&]() -> SmallVector<Value> {
          body();
          return {};
        },
        [] { return SmallVector<Value>(); });
  }
  /// `v == 0` for an i32 (thread 0, warp 0).
  Value isZero(Value v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, i32(0));
  }
  /// Orders this thread's generic shared-memory accesses before those of the
  /// asynchronous proxy (TMA copies, wgmma and tcgen05 reads).
  void fenceAsyncShared() {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }
  /// Before the copy engine first fills a loop's ring or a resident buffer
  /// in dynamic shared memory: orders earlier generic accesses there before
  /// its writes. Where there are none (!genericDynamicShared), only the copy
  /// engine writes there and only wgmma/tcgen05 read it, all through the
  /// asynchronous proxy: the barrier that follows (every reader done) is
  /// enough, and the fence, which waits for the thread's outstanding loads
  /// (MEMBAR in SASS), is left out. (The refills of later iterations inside
  /// a loop rely on the CTA barrier alone, as they always have; a
  /// warp-specialised consumer fences before freeing a buffer it read with
  /// ldmatrix: mma.sync's operands, fragment loads.)
  void fenceBeforeRefill() {
    if (genericDynamicShared)
      fenceAsyncShared();
  }
  /// A CTA barrier that also orders tcgen05 operations across it.
  void tcgen05Barrier() {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    barrier();
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  }
};

} // namespace tessel::codegen::emitter

#endif // TESSEL_CODEGEN_KERNELEMITTER_H
