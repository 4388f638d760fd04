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

#include "passes/Match.h"
#include "passes/Passes.h"
#include "passes/PipelinePlan.h"
#include "passes/TmaPlan.h"

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
#include "llvm/ADT/MapVector.h"

#include <cmath>

#include <map>

namespace tessel {
#define GEN_PASS_DEF_CONVERTTILEGPUTOLLVM
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using tilegpu::Distribution;

namespace {

constexpr StringLiteral kSharedName = "tessel_smem";
constexpr StringLiteral kDynamicSharedName = "tessel_dsmem";
constexpr StringLiteral kMbarrierName = "tessel_mbar";
constexpr StringLiteral kTmemSlotName = "tessel_tmem";

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

/// The part of load/store addressing shared by both: per register, whether it
/// is in bounds and its address; plus the vector groups that may be accessed
/// as one 16-byte (or narrower) access.
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

struct Access {
  SmallVector<Value> inBounds;      // i1 per register
  SmallVector<Value> address;       // ptr<1> per register
  int64_t vector = 1;               // registers per vector access
  SmallVector<Value> groupInBounds; // i1 per group of `vector` registers
};

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
  /// Writes a tile row-major at `byteOffset` of shared memory (no barriers),
  /// rows `rowPad` elements longer than the shape says.
  void writeTile(Value tile, int64_t byteOffset, StageLayout layout = {});
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
  /// Reads the registers of a tile of `type` stored row-major at `byteOffset`
  /// of the scratch buffer, or (`at`) at that shared-memory address, which
  /// `byteOffset` then only says the alignment of (a ring buffer's: 0).
  SmallVector<Value> readTile(RankedTensorType type, int64_t byteOffset,
                              int64_t rowPad = 0, Value at = {});
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
  void issueTma(tile::LoadOp load, Value dst, MbarRef bar) {
    issueTmaGroup({{load, dst}}, bar);
  }
  /// Issues the copies of every (load, buffer) of `copies`, all completing
  /// on `bar`: one thread arrives once, expecting the bytes of them all.
  void issueTmaGroup(ArrayRef<std::pair<tile::LoadOp, Value>> copies,
                     MbarRef bar);
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
  /// The running thread's parity bit of mbarrier `i`.
  Value phaseSlot(int64_t i);
  /// mbarriers: two for operands staged in the scratch buffer (A, B), two
  /// per TMA load a loop prefetches (one per buffer).
  int64_t numMbarriers = 0;
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
  /// A load read into registers from its TMA copy (loadsThroughShared):
  /// waits for the copy (issued ahead into a ring; a load the schedule left
  /// without one is loaded from global memory) and reads the thread's
  /// registers from it, row-major.
  LogicalResult emitSharedRegisterLoad(tile::LoadOp op);
  LogicalResult emitStore(tile::StoreOp op);
  LogicalResult emitCounter(Operation *op);
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
  /// One wgmma.mma_async m64nNk16 step with A from registers (`a`: a0..a3)
  /// and B by descriptor, accumulating into `d` (a struct of N / 2 f32).
  Value wgmmaRegisterA(Type structType, Value d, ArrayRef<Value> a,
                       Value descB, int64_t N, Type element, bool bT);
  LogicalResult emitCumsumInWarps(tile::CumsumOp op);
  LogicalResult emitReduce(tile::ReduceOp op);
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
    return ringBuffer(p.offset, p.stageBytes, stage);
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

SmallVector<Value> KernelEmitter::threadBase(const Distribution &dist) {
  size_t rank = dist.shape.size(), rootRank = dist.order.size();
  if (rank == 0 || rootRank == 0)
    return SmallVector<Value>(rank, i32(0));
  SmallVector<Value> laneC(rootRank), warpC(rootRank);
  Value l = lane, w = warp;
  for (unsigned d : dist.order) {
    unsigned t = dist.threadsPerWarp[d];
    laneC[d] = arith::RemUIOp::create(b, loc, l, i32(t));
    l = arith::DivUIOp::create(b, loc, l, i32(t));
    unsigned wp = dist.warpsPerCTA[d];
    warpC[d] = arith::RemUIOp::create(b, loc, w, i32(wp));
    w = arith::DivUIOp::create(b, loc, w, i32(wp));
  }
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
  Value l = lane, w = warp;
  for (unsigned d : dist.order) {
    unsigned t = dist.threadsPerWarp[d], wp = dist.warpsPerCTA[d];
    if (!kept[d]) {
      if (t > 1)
        both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   arith::RemUIOp::create(b, loc, l, i32(t)),
                                   i32(0)));
      if (wp > 1)
        both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   arith::RemUIOp::create(b, loc, w, i32(wp)),
                                   i32(0)));
    }
    l = arith::DivUIOp::create(b, loc, l, i32(t));
    w = arith::DivUIOp::create(b, loc, w, i32(wp));
  }
  return owns;
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
  auto wrapped = [](const Distribution &dist, int64_t d, int64_t offset) {
    return dist.ctaTile[d] > dist.shape[d] ? offset & (dist.shape[d] - 1)
                                           : offset;
  };
  std::map<SmallVector<int64_t>, int64_t> bySrcOffsets;
  for (int64_t r = 0; r < src.numRegisters; ++r) {
    SmallVector<int64_t> key;
    for (size_t d = 0; d < dst.shape.size(); ++d)
      if (srcDimOf[d] >= 0)
        key.push_back(wrapped(src, srcDimOf[d], src.regOffsets[r][srcDimOf[d]]));
    bySrcOffsets.try_emplace(key, r);
  }
  SmallVector<int64_t> out;
  for (int64_t r = 0; r < dst.numRegisters; ++r) {
    SmallVector<int64_t> key;
    for (size_t d = 0; d < dst.shape.size(); ++d)
      if (srcDimOf[d] >= 0)
        key.push_back(wrapped(dst, d, dst.regOffsets[r][d]));
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
  const int64_t perWord = 32 / bits, numWords = (spt + perWord - 1) / perWord;
  if (spt > 2 || layout.getThreadsPerWarp()[0] != 32 || spt * 32 < n ||
      src.numRegisters != spt)
    return false;
  for (int64_t e = 0; e < spt; ++e)
    if (src.regOffsets[e][0] != e)
      return false;
  int64_t dim = llvm::find(srcDimOf, 0) - srcDimOf.begin();
  if (dim >= int64_t(srcDimOf.size()))
    return false;
  Type word = b.getI32Type(), half = b.getIntegerType(bits);
  // The lane's elements packed into its words, low element first.
  SmallVector<Value> packed(numWords);
  auto bitcast = [&](Type to, Value v) {
    return v.getType() == to ? v : LLVM::BitcastOp::create(b, loc, to, v);
  };
  for (int64_t e = 0; e < spt; ++e) {
    Value v = bitcast(half, regs[source][e]);
    if (bits < 32)
      v = arith::ExtUIOp::create(b, loc, word, v);
    if (int64_t shift = e % perWord * bits)
      v = arith::ShLIOp::create(b, loc, v, i32(shift));
    Value &w = packed[e / perWord];
    w = w ? Value(arith::OrIOp::create(b, loc, w, v)) : v;
  }
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
  // shuffled from it).
  DenseMap<int64_t, Value> laneOf;
  std::map<std::pair<int64_t, int64_t>, Value> shuffled;
  SmallVector<Value> out;
  for (int64_t r = 0; r < dist.numRegisters; ++r) {
    int64_t offset = dist.regOffsets[r][dim], e = offset % spt;
    Value &srcLane = laneOf[offset / spt];
    if (!srcLane)
      srcLane = arith::DivUIOp::create(b, loc, coordsOf(dist, base, r)[dim],
                                       i32(spt));
    Value &w = shuffled[{offset / spt, e / perWord}];
    if (!w)
      w = NVVM::ShflOp::create(b, loc, word, i32(-1), packed[e / perWord],
                               srcLane, i32(31), idxKind, UnitAttr());
    Value v = w;
    if (int64_t shift = e % perWord * bits)
      v = arith::ShRUIOp::create(b, loc, v, i32(shift));
    if (bits < 32)
      v = arith::TruncIOp::create(b, loc, half, v);
    out.push_back(bitcast(element, v));
  }
  regs[result] = out;
  return true;
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
  Type element = value.getType();
  Value addr = sharedAddress(linear, element, byteOffset);
  if (element.isInteger(1))
    value = arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, addr);
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
                              StageLayout layout) {
  auto type = cast<RankedTensorType>(tile.getType());
  int64_t elements = layout.elements(type.getShape());
  int64_t &bytes = stagingInRings ? dynamicBytes : sharedBytes;
  bytes = std::max(bytes,
                   byteOffset + elements * storageBytes(type.getElementType()));
  if (type.getRank() == 0) {
    storeShared(i32(0), regs[tile][0], byteOffset);
    return;
  }
  Distribution dist = distributionOf(type);
  if (stmatrixFits(type, dist, byteOffset, layout)) {
    writeTileMatrices(tile, dist, byteOffset, layout);
    return;
  }
  SmallVector<Value> base = threadBase(dist);
  // Groups of consecutive registers are consecutive elements of a row: one
  // vector store each where the alignment allows.
  int64_t v = sharedVector(type, dist, byteOffset, layout);
  Type element = type.getElementType();
  for (int64_t r = 0; r < dist.numRegisters; r += v) {
    Value index =
        stagedIndex(coordsOf(dist, base, r), type.getShape(), layout,
                    storageBytes(element));
    auto store = [&]() {
      if (v == 1) {
        storeShared(index, regs[tile][r], byteOffset);
        return;
      }
      auto vecType = VectorType::get({v}, element);
      Value vec = LLVM::UndefOp::create(b, loc, vecType);
      for (int64_t k = 0; k < v; ++k)
        vec = LLVM::InsertElementOp::create(b, loc, vec, regs[tile][r + k],
                                            i32(k));
      LLVM::StoreOp::create(b, loc, vec,
                            sharedAddress(index, element, byteOffset),
                            v * storageBytes(element));
    };
    // Where several threads hold an element, its owner writes it (the same
    // value from every holder would still be a write-write race).
    storeOwned(dist, base, r, store);
  }
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
  // Every element held by one thread: no CTA tile larger than the tile, and
  // the layout's warps are the kernel's.
  int64_t warps = 1;
  for (unsigned w : dist.warpsPerCTA)
    warps *= w;
  if (warps != numWarps)
    return false;
  for (int64_t d = 0; d < 2; ++d)
    if (dist.ctaTile[d] > dist.shape[d])
      return false;
  if (dist.numRegisters % 2)
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
                                           int64_t byteOffset, int64_t rowPad,
                                           Value at) {
  Distribution dist = distributionOf(type);
  SmallVector<Value> base = threadBase(dist);
  SmallVector<Value> out;
  int64_t v = sharedVector(type, dist, byteOffset, rowPad);
  Type element = type.getElementType();
  auto address = [&](Value index) {
    return at ? elementAddress(at, index, element)
              : sharedAddress(index, element, byteOffset);
  };
  for (int64_t r = 0; r < dist.numRegisters; r += v) {
    Value index = linearIndex(coordsOf(dist, base, r), type.getShape(), rowPad);
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
  // (Each branch starts from the scratch state before; after, either's.)
  bool before = scratchTouched;
  fill(ifOp.getThenRegion(), thenFn);
  bool afterThen = scratchTouched;
  scratchTouched = before;
  fill(ifOp.getElseRegion(), elseFn);
  scratchTouched |= afterThen;
  return SmallVector<Value>(ifOp.getResults());
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static Access planAccess(OpBuilder &, Location, const ViewParts &, ValueRange,
                         RankedTensorType, std::optional<ArrayRef<int64_t>>,
                         ArrayRef<Value>,
                         function_ref<SmallVector<Value>(int64_t)>,
                         const Distribution &, bool);

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
    steps[rank - 1] = (box[rank - 1] + perLine - 1) / perLine;
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

SmallVector<Value> KernelEmitter::unpackWords(Type element,
                                              ArrayRef<Value> words) {
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
  stagingInRings = last && !warpSpecialized && dynamicBytes > 0;
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

/// tile.signal: a CTA barrier (every thread's writes before it), then thread
/// 0 releases them at GPU scope and adds to the counter (the release
/// pattern of a split-K semaphore: barrier, fence, relaxed atomic). TMA
/// stores, issued by thread 0, are waited for first (writes done, not only
/// read from shared memory) and ordered before the fence.
/// tile.wait: thread 0 polls the counter with acquire loads (backing off
/// with nanosleep) until it reaches the count, then a CTA barrier hands the
/// acquired writes to every thread, and a proxy fence orders them before
/// the TMA copies that follow; with no count (<= 0) or the counter out of
/// bounds, griddepcontrol.wait, the kernel's usual dependency wait.
LogicalResult KernelEmitter::emitCounter(Operation *op) {
  auto signal = dyn_cast<tile::SignalOp>(op);
  auto wait = dyn_cast<tile::WaitOp>(op);
  if (warpSpecialized || producerMode)
    return op->emitError() << "is not supported in a warp-specialised kernel "
                              "(its producer's copies would not wait)";
  Value viewValue = signal ? signal.getView() : wait.getView();
  ValueRange indices = signal ? signal.getIndices() : wait.getIndices();
  Value amount = regs[signal ? signal.getValue() : wait.getExpected()][0];
  const ViewParts &view = views[viewValue];
  Value inBounds = arith::ConstantIntOp::create(b, loc, 1, 1);
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
  Value address = LLVM::GEPOp::create(b, loc, view.ptr.getType(),
                                      b.getI32Type(), view.ptr,
                                      ValueRange{offset});
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
  ifElse(
      counted, {},
      [&]() -> SmallVector<Value> {
        onlyWhere(isZero(tid), [&] {
          auto poll = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(b.createBlock(&poll.getBefore()));
          Value have = LLVM::LoadOp::create(
              b, loc, b.getI32Type(), address, /*alignment=*/4,
              /*isVolatile=*/false, /*isNonTemporal=*/false,
              /*isInvariant=*/false, /*isInvariantGroup=*/false,
              LLVM::AtomicOrdering::acquire, "device");
          Value below = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, have, amount);
          scf::ConditionOp::create(b, loc, below, ValueRange{});
          b.setInsertionPointToEnd(b.createBlock(&poll.getAfter()));
          NVVM::NanosleepOp::create(b, loc, i32(64));
          scf::YieldOp::create(b, loc);
        });
        barrier();
        NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_global,
                                   NVVM::SharedSpaceAttr());
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

/// The K extent of one warpgroup or tensor-memory MMA: 32 bytes of
/// operand (16 bf16/f16 elements, 8 tf32).
static int64_t asyncKStep(tile::MmaOp op) {
  return op.getPrecision() == tile::Precision::tf32 ? 8 : 16;
}

/// The accumulator's mma layout when the mma's operands are 16-bit, or tf32
/// staged K-major (A as it is, B a folded transpose: the only tf32 form the
/// warpgroup and tensor-memory MMAs read), and its result keeps that layout
/// (what those MMAs take), else null.
static tilegpu::MmaLayoutAttr asyncAccLayout(tile::MmaOp op) {
  auto foldedTranspose = [](Value v) {
    auto permute = v.getDefiningOp<tile::PermuteOp>();
    return permute && foldsIntoMma(permute);
  };
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
  barrier();
  dynamicUsed = true;
  Value base = LLVM::AddressOfOp::create(b, loc, dynamicShared);
  Value dst = LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                                  ArrayRef<LLVM::GEPArg>{offset});
  // The phase this copy completes: every use waits for it (a completed
  // phase answers at once).
  Value slot = phaseSlot(bar);
  Value parity = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);
  LLVM::StoreOp::create(b, loc,
                        arith::XOrIOp::create(b, loc, parity, i32(1)), slot);
  issueTma(load, dst, MbarRef{bar, Value()});
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
  if (Value slot = phaseSlots.lookup(i))
    return slot;
  Value slot = newSlot();
  phaseSlots[i] = slot;
  return slot;
}

void KernelEmitter::waitTma(MbarRef bar) {
  if (bar.stage && !bar.parity)
    if (auto it = sharedStages.find(bar.first); it != sharedStages.end()) {
      if (it->second)
        return;
      it->second = true;
    }
  Type i32Type = b.getI32Type();
  Value addr = mbarAddress(bar);
  // 10 ms: the suspend-time hint of each try (the op loops until the phase
  // completes).
  Value ticks = i32(10000000);
  if (bar.parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, addr, bar.parity, ticks);
    return;
  }
  if (!bar.stage) {
    Value slot = phaseSlot(bar.first);
    Value phase = LLVM::LoadOp::create(b, loc, i32Type, slot);
    NVVM::MBarrierTryWaitParityOp::create(b, loc, addr, phase, ticks);
    LLVM::StoreOp::create(
        b, loc, arith::XOrIOp::create(b, loc, phase, i32(1)), slot);
    return;
  }
  if (bar.slots > 2) {
    // A deeper ring: the parity bit of the buffer this stage names, and
    // that one flipped (selects, so that the bits stay in registers).
    SmallVector<Value> slots, bits, named;
    Value phase;
    for (int64_t j = 0; j < bar.slots; ++j) {
      slots.push_back(phaseSlot(bar.first + j));
      bits.push_back(LLVM::LoadOp::create(b, loc, i32Type, slots.back()));
      named.push_back(arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, bar.stage, i32(j)));
      phase = j == 0 ? bits[0]
                     : arith::SelectOp::create(b, loc, named[j], bits[j],
                                               phase)
                           .getResult();
    }
    NVVM::MBarrierTryWaitParityOp::create(b, loc, addr, phase, ticks);
    Value flipped = arith::XOrIOp::create(b, loc, phase, i32(1));
    for (int64_t j = 0; j < bar.slots; ++j)
      LLVM::StoreOp::create(
          b, loc, arith::SelectOp::create(b, loc, named[j], flipped, bits[j]),
          slots[j]);
    return;
  }
  // Two buffers: the parity bit of the one this stage names (selects, so
  // that the bits stay in registers).
  Value s0 = phaseSlot(bar.first), s1 = phaseSlot(bar.first + 1);
  Value p0 = LLVM::LoadOp::create(b, loc, i32Type, s0);
  Value p1 = LLVM::LoadOp::create(b, loc, i32Type, s1);
  Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                       bar.stage, i32(0));
  Value phase = arith::SelectOp::create(b, loc, second, p1, p0);
  NVVM::MBarrierTryWaitParityOp::create(b, loc, addr, phase, ticks);
  Value flipped = arith::XOrIOp::create(b, loc, phase, i32(1));
  LLVM::StoreOp::create(b, loc,
                        arith::SelectOp::create(b, loc, second, p0, flipped),
                        s0);
  LLVM::StoreOp::create(b, loc,
                        arith::SelectOp::create(b, loc, second, flipped, p1),
                        s1);
}

void KernelEmitter::issueTmaGroup(
    ArrayRef<std::pair<tile::LoadOp, Value>> copies, MbarRef bar) {
  int64_t bytes = 0;
  for (auto [load, dst] : copies) {
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
  // (The producer's walk runs in its one thread already.)
  auto issuer = [&](function_ref<void()> body) {
    if (producerMode)
      body();
    else
      onlyWhere(isZero(tid), body);
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
      for (int64_t p = 0; p < panels; ++p) {
        SmallVector<Value> coords = panelCoords(origin, p, panel);
        Value at = LLVM::GEPOp::create(b, loc, dst.getType(), b.getI8Type(),
                                       dst,
                                       ArrayRef<LLVM::GEPArg>{p * rows * 128});
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, LLVM::AddrSpaceCastOp::create(b, loc, clusterPtr, at),
            mapParams[tmaOf.lookup(load)], coords, mbar, ValueRange{},
            Value(), Value(),
            NVVM::TMALoadModeAttr::get(b.getContext(),
                                       NVVM::TMALoadMode::TILE),
            b.getBoolAttr(false), NVVM::CTAGroupKindAttr(), Value());
      }
    }
  });
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

//===----------------------------------------------------------------------===//
// Scans, reductions, shape changes
//===----------------------------------------------------------------------===//

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

/// An A operand in an accumulator layout with warps along M only holds, in
/// each thread, the A fragments of its warp (mma.sync's m16n8k16, which
/// wgmma's register form takes per warp too): a0..a3 of 16-row block i at
/// k0 are rows g and g + 8 of the 8-column blocks k0 / 8 and k0 / 8 + 1 (the
/// accumulator's register order with K / 8 column blocks), as pairs.
SmallVector<Value> KernelEmitter::registerFragmentA(Value a, int64_t K,
                                                    int64_t i, int64_t k0,
                                                    bool asWords) {
  ArrayRef<Value> aRegs = regs[a];
  Type element = cast<RankedTensorType>(a.getType()).getElementType();
  int64_t repsK = K / 8, j = k0 / 8;
  auto pair = [&](int64_t h, int64_t jj) -> Value {
    int64_t r = (2 * i + h) * (2 * repsK) + 2 * jj;
    auto vecType = VectorType::get({2}, element);
    Value v = LLVM::UndefOp::create(b, loc, vecType);
    v = LLVM::InsertElementOp::create(b, loc, v, aRegs[r], i32(0));
    v = LLVM::InsertElementOp::create(b, loc, v, aRegs[r + 1], i32(1));
    return asWords ? Value(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v))
                   : v;
  };
  return {pair(0, j), pair(1, j), pair(0, j + 1), pair(1, j + 1)};
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
  auto aLayout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
      tilegpu::getLayout(op.getA().getType()));
  // tcgen05 reads such an A from tensor memory, where its threads store it
  // (data path layout of M = 64: the warps' rows as the accumulator's).
  // Either unless the kernel's hint says 0.
  IntegerAttr registerA =
      kernelHint(tcgen05 ? "tcgen05_tmem_a" : "wgmma_register_a");
  // (Not tf32: its register fragments are not the 16-bit pairs.)
  bool aInRegs = !tf32 && !aT && aLayout && regs.count(aSrc) &&
                 aLayout == tilegpu::getLayout(op.getAcc().getType()) &&
                 (!registerA || registerA.getInt() != 0);
  // In tensor memory A takes K / 2 columns (two 16-bit elements a column)
  // per 64-row block next to the accumulator's N, stored 8 columns per
  // 16x128b repeat (a power of two).
  if (tcgen05 && aInRegs)
    aInRegs = tmemAColumn0(op, M / 64, N) + M / 64 * K / 2 <= 512 &&
              llvm::isPowerOf2_64(K / 8);
  bool aPre = aInRegs || prefetchedAt.count(aSrc) || residentAt.count(aSrc),
       bPre = prefetchedAt.count(bSrc) || residentAt.count(bSrc);
  int64_t offB = aPre ? 0 : (M * K * eb + 127) / 128 * 128;
  if (bStage.swizzled)
    offB = (offB + 1023) / 1024 * 1024;
  if (!(aPre && bPre)) {
    if ((!aPre && aStage.swizzled) || (!bPre && bStage.swizzled))
      fenceAsyncShared();
    barrier();
  }
  Staged aStaged = aInRegs ? Staged{Value(), false, false}
                           : stageOperand(aSrc, 0, aStage, 0);
  Staged bStaged = stageOperand(bSrc, offB, bStage, 1);
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
  SmallVector<SmallVector<Value>> aFrags;
  if (aInRegs)
    for (int64_t i = 0; i < repsM; ++i)
      for (int64_t k0 = 0; k0 < K; k0 += 16) {
        SmallVector<Value> frag = registerFragmentA(aSrc, K, i, k0, true);
        for (Value &word : frag)
          word = LLVM::InlineAsmOp::create(
                     b, loc, b.getI32Type(), ValueRange{word}, "", "=r,0",
                     /*has_side_effects=*/true, /*is_align_stack=*/false,
                     LLVM::tailcallkind::TailCallKind::None,
                     LLVM::AsmDialectAttr(), ArrayAttr())
                     .getResult(0);
        aFrags.push_back(std::move(frag));
      }
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  SmallVector<Value> results;
  for (int64_t i = 0; i < repsM; ++i) {
    Value d = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t j = 0; j < repsN; ++j)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e)
          d = LLVM::InsertValueOp::create(b, loc, d, acc[reg(i, h, j, e)],
                                          4 * j + 2 * h + e);
    Value m0 = arith::AddIOp::create(b, loc, wgRow, i64(i * 16 * W));
    for (int64_t k0 = 0; k0 < K; k0 += kStep) {
      if (aInRegs) {
        d = wgmmaRegisterA(structType, d, aFrags[i * (K / 16) + k0 / 16],
                           descB(k0), N, element, bT);
        continue;
      }
      d = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, structType, d, descA(m0, k0), descB(k0),
          NVVM::MMAShapeAttr::get(b.getContext(), 64, N, kStep),
          NVVM::WGMMATypesAttr::get(b.getContext(), type),
          NVVM::WGMMATypesAttr::get(b.getContext(), type),
          NVVM::WGMMATypesAttr::get(b.getContext(), NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(b.getContext(),
                                       NVVM::WGMMAScaleOut::one),
          NVVM::WGMMAScaleInAttr::get(b.getContext(), NVVM::WGMMAScaleIn::one),
          NVVM::WGMMAScaleInAttr::get(b.getContext(), NVVM::WGMMAScaleIn::one),
          NVVM::MMALayoutAttr::get(b.getContext(), aT ? NVVM::MMALayout::col
                                                      : NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(b.getContext(), bT ? NVVM::MMALayout::col
                                                      : NVVM::MMALayout::row),
          NVVM::MMAIntOverflowAttr());
    }
    results.push_back(d);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
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
  auto vecType = VectorType::get({2}, element);
  for (int64_t i = 0; i * 16 * W < cols; ++i)
    for (int64_t k0 = 0; k0 < rows; k0 += 16) {
      SmallVector<Value> words = loadMatrices(
          address(arith::AddIOp::create(b, loc, laneRow, i32(k0)),
                  arith::AddIOp::create(b, loc, laneCol, i32(i * 16 * W))),
          4, /*trans=*/true);
      for (int64_t q = 0; q < 4; ++q) {
        // a_q: rows k0 + 8 (q / 2) + {0, 1}, column 16 W i + 8 (q % 2).
        Value pair = LLVM::BitcastOp::create(b, loc, vecType, words[q]);
        for (int64_t e = 0; e < 2; ++e) {
          auto it =
              regOf.find({k0 + 8 * (q / 2) + e, i * 16 * W + 8 * (q % 2)});
          if (it == regOf.end())
            return fail(op, "an ldmatrix fragment outside the tile's "
                            "registers (tile " +
                                Twine(rows) + "x" + Twine(cols) + ")");
          out[it->second] =
              LLVM::ExtractElementOp::create(b, loc, pair, i32(e));
        }
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
  Staged staged = stageOperand(value, 0, StageLayout::plainTma(), /*slot=*/0);
  waitTma(staged.tma);
  // (The buffer is 128-byte aligned: vectors of up to 16 bytes.)
  regs[value] = readTile(type, 0, 0, staged.base);
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

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Whether every element of `value` is known to lie in [0, 1] (or be NaN):
/// exp(-|y|).
static bool inUnitInterval(Value value) {
  auto exp = value.getDefiningOp<math::ExpOp>();
  if (!exp)
    return false;
  auto neg = exp.getOperand().getDefiningOp<arith::NegFOp>();
  return neg && neg.getOperand().getDefiningOp<math::AbsFOp>();
}

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
  // exp2 is the fast one: ex2.approx.ftz, a single MUFU.EX2 (results below
  // 2^-126 flush to zero; without .ftz ptxas wraps each one in a range
  // check, a halving and a squaring).
  if (isa<math::Exp2Op>(op))
    y = intrinsic("llvm.nvvm.ex2.approx.ftz.f32", f32Type, {x});
  else if (isa<math::ExpOp>(op))
    y = expf(x);
  else if (auto log2 = dyn_cast<math::Log2Op>(op);
           log2 && bitEnumContainsAll(log2.getFastmath(),
                                      arith::FastMathFlags::afn))
    // fast_log2: one MUFU.LG2 (lg2.approx.ftz.f32, about 22 bits).
    y = intrinsic("llvm.nvvm.lg2.approx.ftz.f", f32Type, {x});
  else if (isa<math::Log2Op>(op))
    y = arith::MulFOp::create(b, loc, logf(x), f32(log2e));
  else if (isa<math::LogOp>(op))
    y = logf(x);
  else if (isa<math::Log1pOp>(op)) {
    // On [-1/2, 1]: log1p(x) = 2 atanh(s), s = x / (2 + x), |s| <= 1/3, by
    // its odd series (no range reduction, no special cases). Elsewhere
    // log(u) * x / (u - 1) with u = 1 + x, exact when u == 1. A branch, not
    // both: arguments usually fall on one side. An argument known to lie in
    // [0, 1] (exp of a value <= 0, as in softplus) takes the series alone:
    // no branch, so the elements of a thread schedule together.
    auto series = [&]() -> SmallVector<Value> {
      Value sv = fastDiv(x, arith::AddFOp::create(b, loc, f32(2.0), x));
      Value s2 = arith::MulFOp::create(b, loc, sv, sv);
      Value sum = polynomial(s2, {2.0 / 13, 2.0 / 11, 2.0 / 9, 2.0 / 7,
                                  2.0 / 5, 2.0 / 3, 2.0});
      return {arith::MulFOp::create(b, loc, sum, sv)};
    };
    if (inUnitInterval(op.getOperand(0))) {
      y = series()[0];
    } else {
      Value small = arith::AndIOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                f32(-0.5)),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x,
                                f32(1.0)));
      y = ifElse(
          small, {f32Type}, series,
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
            Value same = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OEQ, d, f32(0.0));
            return {arith::SelectOp::create(b, loc, same, x, scaled)};
          })[0];
    }
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
  } else {
    return fail(&op, "unsupported math function");
  }
  if (!type.isF32())
    y = arith::TruncFOp::create(b, loc, type, y);
  return y;
}

/// The value `v` clamps to [-largest, largest] (arith.minimumf and
/// arith.maximumf with those splat constants, in either order), or null.
static Value finiteClampSource(Value v, double largest) {
  auto constantIs = [](Value c, double want) {
    APFloat value(0.0);
    if (!matchPattern(c, m_ConstantFloat(&value))) {
      auto splat = c.getDefiningOp<tensor::SplatOp>();
      if (!splat || !matchPattern(splat.getInput(), m_ConstantFloat(&value)))
        return false;
    }
    return value.convertToDouble() == want;
  };
  // One side of the clamp: the operand `op` bounds by `bound`, or null.
  auto bounded = [&](Operation *op, double bound) -> Value {
    if (!op || op->getNumOperands() != 2)
      return {};
    for (int i : {0, 1})
      if (constantIs(op->getOperand(1 - i), bound))
        return op->getOperand(i);
    return {};
  };
  Operation *outer = v.getDefiningOp();
  if (isa_and_nonnull<arith::MinimumFOp>(outer)) {
    Value inner = bounded(outer, largest);
    return inner && isa_and_nonnull<arith::MaximumFOp>(inner.getDefiningOp())
               ? bounded(inner.getDefiningOp(), -largest)
               : Value();
  }
  if (isa_and_nonnull<arith::MaximumFOp>(outer)) {
    Value inner = bounded(outer, -largest);
    return inner && isa_and_nonnull<arith::MinimumFOp>(inner.getDefiningOp())
               ? bounded(inner.getDefiningOp(), largest)
               : Value();
  }
  return {};
}

LogicalResult KernelEmitter::emitElementwise(Operation &op) {
  Value result = op.getResult(0);
  int64_t n = numRegisters(result.getType());
  Type element = elementTypeOf(result.getType());
  SmallVector<Value> out;
  // f32 -> bf16/f16 of a select's result, two registers at a time: one
  // cvt.rn.{bf16,f16}x2.f32 per pair, after an f32 select. As plain
  // fptruncs, LLVM's instcombine sinks each cast below the select when an
  // arm is a constant (where(mask, p, 0)), and NVPTX can no longer pair
  // the conversions: a cvt, a selp.b16 and a repack per element (so was
  // compute_out's masked block before its select moved into the branches
  // of its seq_idx if_; test_masked_cast_* keep the pattern). Elsewhere the
  // fptruncs stay: NVPTX pairs them itself, next to their use (chunk_state
  // was 8% slower on the H200 with all of its conversions as these calls,
  // emitted ahead of the stores). Same rounding either way.
  // f32 -> bf16/f16 of a value clamped to the 16-bit type's finite range
  // (saturating_cast: maximumf with -largest, then minimumf with +largest,
  // in either order), two registers at a time: one cvt.rn.satfinite.
  // {bf16,f16}x2.f32 per pair of the unclamped value, which rounds to the
  // same results (the largest finite value is exact in f32: above it
  // satfinite gives it where rounding the clamped value gives it too; NaN
  // stays NaN). The clamp's minimum and maximum are then unused unless
  // something else reads them.
  // Both: one conversion intrinsic per pair of f32 registers.
  auto convertPairs = [&](StringRef name, ArrayRef<Value> in) {
    auto pair = VectorType::get({2}, element);
    for (int64_t r = 0; r < n; r += 2) {
      // cvt d, a, b puts a in the high half: element 1.
      Value v = intrinsic(name, pair, {in[r + 1], in[r]});
      for (int64_t i : {0, 1})
        out.push_back(LLVM::ExtractElementOp::create(b, loc, v, i32(i)));
    }
    regs[result] = out;
    return success();
  };
  // (Round to nearest even only: a truncf with another rounding mode takes
  // the generic path, which keeps it.)
  if (auto trunc = dyn_cast<arith::TruncFOp>(op);
      trunc && !trunc.getRoundingmodeAttr() && n % 2 == 0 &&
      (element.isBF16() || element.isF16()) &&
      elementTypeOf(trunc.getIn().getType()).isF32()) {
    double largest =
        APFloat::getLargest(cast<FloatType>(element).getFloatSemantics())
            .convertToDouble();
    if (Value unclamped = finiteClampSource(trunc.getIn(), largest);
        unclamped && regs[unclamped].size() == static_cast<size_t>(n))
      return convertPairs(element.isBF16() ? "llvm.nvvm.ff2bf16x2.rn.satfinite"
                                           : "llvm.nvvm.ff2f16x2.rn.satfinite",
                          regs[unclamped]);
    if (trunc.getIn().getDefiningOp<arith::SelectOp>() &&
        regs[trunc.getIn()].size() == static_cast<size_t>(n))
      return convertPairs(element.isBF16() ? "llvm.nvvm.ff2bf16x2.rn"
                                           : "llvm.nvvm.ff2f16x2.rn",
                          regs[trunc.getIn()]);
  }
  // 16-bit float add, sub, mul and fma two registers at a time, on <2 x
  // bf16> or <2 x f16>: NVPTX then selects the paired instruction
  // ({add,sub,mul,fma}.rn.{bf16,f16}x2), one instead of two scalar ones (or,
  // where the operands arrive as loaded 32-bit words, instead of an unpack, two
  // f32 operations and a repack). Same rounding per element either way:
  // each result is the exact one rounded to the 16-bit type. Registers 2k
  // and 2k + 1 pair up (a loaded word's halves, see unpackWords). (The
  // operands have the result's type, broadcasts already expanded: n
  // registers each.)
  auto nRegisters = [&](Value operand) {
    return regs[operand].size() == static_cast<size_t>(n);
  };
  // Likewise minimum and maximum (min.NaN / max.NaN .{bf16,f16}x2), and
  // exp2 on pairs: ex2.approx.ftz.bf16x2 / ex2.approx.f16x2, one MUFU
  // instruction per pair instead of a widening, an ex2.approx.ftz.f32 and a
  // rounding per element. That one is approximate in the 16-bit type (PTX:
  // a maximum relative error of 2^-7 for bf16, 2^-9.9 for f16, against the
  // f32 path's correctly rounded 16-bit result of a 2-ulp f32 value).
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, math::FmaOp,
          arith::MinimumFOp, arith::MaximumFOp, math::Exp2Op>(op) &&
      (element.isBF16() || element.isF16()) && n % 2 == 0 &&
      llvm::all_of(op.getOperands(), nRegisters)) {
    auto pairType = VectorType::get({2}, element);
    for (int64_t r = 0; r < n; r += 2) {
      SmallVector<Value> operands;
      for (Value operand : op.getOperands()) {
        Value v = LLVM::UndefOp::create(b, loc, pairType);
        v = LLVM::InsertElementOp::create(b, loc, v, regs[operand][r], i32(0));
        operands.push_back(LLVM::InsertElementOp::create(
            b, loc, v, regs[operand][r + 1], i32(1)));
      }
      Value pair;
      if (isa<math::Exp2Op>(op)) {
        pair = intrinsic(element.isBF16() ? "llvm.nvvm.ex2.approx.ftz.v2bf16"
                                          : "llvm.nvvm.ex2.approx.v2f16",
                         pairType, operands);
      } else {
        OperationState state(loc, op.getName());
        state.addOperands(operands);
        state.addAttributes(op.getAttrs());
        state.addTypes(pairType);
        pair = b.create(state)->getResult(0);
      }
      for (int64_t i : {0, 1})
        out.push_back(LLVM::ExtractElementOp::create(b, loc, pair, i32(i)));
    }
    regs[result] = out;
    return success();
  }
  for (int64_t r = 0; r < n; ++r) {
    SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      ArrayRef<Value> rs = regs[operand];
      operands.push_back(rs.size() == 1 ? rs[0] : rs[r]);
    }
    // (math.fma stays an op: convert-math-to-llvm makes it llvm.fma,
    // fma.rn in PTX.)
    if (op.getDialect()->getNamespace() == "math" && !isa<math::FmaOp>(op)) {
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

FailureOr<SmallVector<KernelEmitter::Prefetch>>
KernelEmitter::planPrefetch(scf::ForOp loop, SmallVector<Operation *> &slice,
                            SmallVector<WsRing *> &wsHere) {
  SmallVector<Prefetch> plan;
  Block *body = loop.getBody();
  DenseSet<Operation *> inSlice;
  // The rings go after the buffers of the loops this one is nested in
  // (tilegpu-schedule-loads planned them within the same budget).
  int64_t top = dynamicTop;
  for (Operation &op : body->without_terminator()) {
    auto load = dyn_cast<tile::LoadOp>(op);
    auto distance =
        load ? load->getAttrOfType<IntegerAttr>(kDistanceAttr) : IntegerAttr();
    // (Loads into registers: planRegisterPrefetch.)
    if (!distance || !stagedLoad(load))
      continue;
    if (std::string problem = pipelineProblem(load); !problem.empty())
      return load->emitError() << "'" << kDistanceAttr
                               << "' on a load the loop cannot issue ahead: "
                               << problem;
    if (distance.getInt() < 1 || distance.getInt() > kMaxDistance)
      return load->emitError()
             << "'" << kDistanceAttr << "' must be in [1, " << kMaxDistance
             << "], got " << distance.getInt();
    // Staged as its mma will read it (every use the same way). A tile the
    // threads cannot copy asynchronously (a view without unit stride, say)
    // is loaded where its mma stands, as without a schedule.
    std::optional<StageLayout> layout = loadStage(load);
    if (!layout || (!layout->tma() && !asyncCopyGroup(load, *layout)))
      continue;
    if (warpSpecialized)
      if (auto it = wsRingOf.find(load); it != wsRingOf.end()) {
        wsHere.push_back(&wsRings[it->second]);
        continue;
      }
    SmallVector<Operation *> ops;
    (void)laterIterationSlice(loop, load, ops); // (pipelineProblem checked)
    int64_t bytes = ringBufferBytes(load, *layout);
    int64_t ring = (distance.getInt() + 1) * bytes;
    int64_t at = alignFor(top, *layout);
    // A load into registers through shared memory whose ring does not fit
    // (above a producer warpgroup's rings, which tilegpu-schedule-loads does
    // not count) stays an ordinary global load (emitSharedRegisterLoad).
    if (at + ring > kRingBudgetBytes && loadsThroughShared(load))
      continue;
    if (at + ring > kRingBudgetBytes)
      return load->emitError()
             << "the ring of " << distance.getInt() + 1 << " buffers of "
             << bytes << " bytes does not fit in the "
             << std::max<int64_t>(kRingBudgetBytes - at, 0)
             << " bytes of shared memory left for rings";
    top = at + ring;
    plan.push_back({load, *layout, distance.getInt(), bytes, 0});
    inSlice.insert(ops.begin(), ops.end());
  }
  for (Operation &op : body->without_terminator())
    if (inSlice.contains(&op))
      slice.push_back(&op);
  return plan;
}

/// Where the body waits for a ring load's copy: at the load, read into
/// registers (fragments, or through shared memory), else at its first mma.
static Operation *ringWaitSite(tile::LoadOp load) {
  if (loadsIntoFragments(load) || loadsThroughShared(load))
    return load;
  Operation *first = nullptr;
  auto note = [&](Operation *user) {
    if (!first || user->isBeforeInBlock(first))
      first = user;
  };
  for (Operation *user : load->getUsers()) {
    if (isa<tile::PermuteOp>(user))
      for (Operation *mma : user->getUsers())
        note(mma);
    else
      note(user);
  }
  return first;
}

/// Nothing between two waits that could run before the second copy lands:
/// loads (a copy's wait, or global loads issued), transposes that fold into
/// their mma, scalar index arithmetic.
static bool waitsAdjacent(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isa<tile::LoadOp, tile::PermuteOp>(op) && !isScalarIndexOp(op))
      return false;
  return true;
}

SmallVector<unsigned>
KernelEmitter::ringStageGroups(ArrayRef<Prefetch> plan, bool share) {
  // The TMA copies in the order of their waits; each starts a group unless
  // its wait follows the previous one's with nothing in between
  // (waitsAdjacent) and it is issued as far ahead. One wait for copies used
  // apart would hold the first use back until the last copy lands:
  // compute_out's loops, with one per distance, were up to 4% slower on the
  // H200 (bench/results/2026-12-04-ring-barriers.md).
  SmallVector<unsigned> groupOf(plan.size());
  SmallVector<std::pair<Operation *, unsigned>> sites;
  for (auto [i, p] : llvm::enumerate(plan)) {
    groupOf[i] = i;
    // (A load without a use in the body keeps its own mbarriers.)
    if (Operation *site = p.layout.tma() ? ringWaitSite(p.load) : nullptr)
      sites.push_back({site, unsigned(i)});
  }
  if (!share)
    return groupOf;
  llvm::sort(sites, [](auto &x, auto &y) {
    return x.first == y.first ? x.second < y.second
                              : x.first->isBeforeInBlock(y.first);
  });
  for (size_t k = 1; k < sites.size(); ++k) {
    auto [site, i] = sites[k];
    auto [before, j] = sites[k - 1];
    if (plan[i].distance == plan[j].distance &&
        (site == before || waitsAdjacent(before, site)))
      groupOf[i] = groupOf[j];
  }
  return groupOf;
}

/// A load in a loop body whose tile lands in registers waits for global
/// memory where it stands. Issued d iterations ahead instead (d sets of
/// its registers carried by the loop), the latency overlaps d iterations'
/// work. Taken: the loads into registers tilegpu-schedule-loads marked
/// (`tilegpu.distance` = d in [1, kMaxRegisterDistance]: directly in the body, of views the loop does
/// not write, whose indices can be evaluated for the next iteration, within
/// the kernel's `prefetch_registers` hint); a mark the rules do not allow
/// is an error. 16-bit tiles travel as the loaded 32-bit words (see
/// loadRegisters). Opt-in: the registers held across an iteration can cost
/// more than the latency saves (compute_out spills with it); fwd_pass_state
/// is 20-25% faster with it on the H200
/// (bench/results/2026-11-29-mamba2-states-bf16.md).
FailureOr<SmallVector<tile::LoadOp>>
KernelEmitter::planRegisterPrefetch(scf::ForOp loop,
                                    SmallVector<Operation *> &slice) {
  SmallVector<tile::LoadOp> plan;
  DenseSet<Operation *> inSlice(slice.begin(), slice.end());
  IntegerAttr hinted = kernelHint("prefetch_registers");
  int64_t budget = hinted ? hinted.getInt() : 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<tile::LoadOp>(op);
    auto distance =
        load ? load->getAttrOfType<IntegerAttr>(kDistanceAttr) : IntegerAttr();
    if (!distance || stagedLoad(load))
      continue;
    if (std::string problem = registerPipelineProblem(load); !problem.empty())
      return load->emitError() << "'" << kDistanceAttr
                               << "' on a load the loop cannot carry ahead: "
                               << problem;
    if (distance.getInt() < 1 || distance.getInt() > kMaxRegisterDistance)
      return load->emitError()
             << "'" << kDistanceAttr << "' on a load into registers must be "
             << "in [1, " << kMaxRegisterDistance
             << "] (the loop carries a set of its registers per iteration), "
                "got "
             << distance.getInt();
    budget -= carriedWords(load) * distance.getInt();
    if (budget < 0)
      return load->emitError()
             << "the loads carried ahead take more registers per thread "
                "than the kernel's prefetch_registers ("
             << (hinted ? hinted.getInt() : 0) << ")";
    SmallVector<Operation *> ops;
    (void)laterIterationSlice(loop, load, ops); // (checked above)
    plan.push_back(load);
    inSlice.insert(ops.begin(), ops.end());
  }
  slice.clear();
  for (Operation &op : loop.getBody()->without_terminator())
    if (inSlice.contains(&op))
      slice.push_back(&op);
  return plan;
}

Value KernelEmitter::ringBuffer(int64_t offset, int64_t bytes, Value stage) {
  dynamicUsed = true;
  Value base = LLVM::AddressOfOp::create(b, loc, dynamicShared);
  Value at = arith::AddIOp::create(
      b, loc, i32(offset), arith::MulIOp::create(b, loc, stage, i32(bytes)));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{at});
}

std::pair<Value, Value> KernelEmitter::wsStageAndPhase(const WsRing &ring,
                                                       Value k) {
  Value n = i32(ring.slots);
  Value stage = arith::RemUIOp::create(b, loc, k, n);
  Value phase = arith::AndIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, k, n), i32(1));
  return {stage, phase};
}

/// Scalar ops the producer can evaluate by itself: integer and index
/// arithmetic, constants, program ids, grid sizes and view sizes (the index
/// ops of isScalarIndexOp without math).
static bool producerOp(Operation *op) {
  return isScalarIndexOp(op) && !isa<math::MathDialect>(op->getDialect());
}

/// A branch the producer can evaluate by itself (a loop bound chosen by a
/// kernel flag): scalar integer results only, and each branch nothing but
/// producerOps and such branches (no loads, no tiles). Its condition and
/// the values it reads from outside are checked where it is used.
static bool producerBranch(scf::IfOp ifOp) {
  if (ifOp.getNumResults() == 0 ||
      !llvm::all_of(ifOp.getResultTypes(),
                    [](Type t) { return isa<IntegerType>(t); }))
    return false;
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
    if (region->empty())
      return false;
    for (Operation &op : region->front()) {
      if (isa<scf::YieldOp>(op))
        continue;
      auto nested = dyn_cast<scf::IfOp>(op);
      if (nested ? !producerBranch(nested) : !producerOp(&op))
        return false;
    }
  }
  return true;
}

LogicalResult KernelEmitter::planWarpSpecialization() {
  IntegerAttr hint = kernelHint("warp_specialize");
  if (!hint || !hint.getInt()) {
    if (IntegerAttr ring = kernelHint("ring_slots"); ring && ring.getInt())
      return kernel.emitError()
             << "'ring_slots' shares the producer's ring: it needs "
                "'warp_specialize' (for this target)";
    return success();
  }
  auto problem = [&]() {
    InFlightDiagnostic d = kernel.emitError();
    d << "'warp_specialize' on a kernel that cannot be warp-specialised: ";
    return d;
  };
  if (numWarps % 4)
    return problem() << "its " << numWarps
                     << " warps are not whole warpgroups (setmaxnreg)";
  if (numWarps > 28)
    return problem() << "its " << numWarps
                     << " warps and the producer's 4 exceed a CTA's 32";
  DenseSet<Value> stored;
  kernel.walk([&](tile::StoreOp store) { stored.insert(store.getView()); });
  // Values the producer can compute: the kernel's scalar arguments, the
  // induction variables of the loops it replicates (those around ring
  // loads), and producerOps of such values.
  DenseMap<Value, bool> memo;
  std::function<bool(Value, Operation *)> computable = [&](Value v,
                                                           Operation *at) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == kernel.getOperation())
        return !isa<tile::ViewType>(v.getType());
      auto loop = dyn_cast<scf::ForOp>(owner);
      return loop && v == loop.getInductionVar() && loop->isAncestor(at);
    }
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    // A scalar branch: its condition, and what either side yields.
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      bool ok = producerBranch(ifOp) && computable(ifOp.getCondition(), at);
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        for (Value yielded : region->front().getTerminator()->getOperands())
          ok = ok && computable(yielded, at);
      return memo[v] = ok;
    }
    bool ok = producerOp(def);
    if (ok && !isa<tile::DimOp>(def))
      for (Value operand : def->getOperands())
        ok = ok && computable(operand, at);
    return memo[v] = ok;
  };
  std::string why;
  int64_t top = 0;
  kernel.walk([&](tile::LoadOp load) {
    auto distance = load->getAttrOfType<IntegerAttr>(kDistanceAttr);
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    // The producer fills the rings of mma operands and of loads read as mma
    // fragments (ldmatrix where the load stands: generic reads, fenced
    // before the buffer is freed); a load read into registers through
    // shared memory (a few hundred bytes of Acs, dt) keeps a ring the
    // consumers fill themselves, which a shared ring's buffers (each the
    // size of the largest load) would waste.
    if (!why.empty() || !distance || !loop ||
        !(loadsIntoMma(load) || loadsIntoFragments(load)) ||
        !tmaOf.count(load))
      return;
    auto fail = [&](const Twine &reason) {
      if (why.empty())
        why = reason.str();
    };
    if (stored.contains(load.getView()))
      return fail("it stores to a view it loads through the TMA ahead");
    if (loop->hasAttr(kPrologueAheadAttr))
      return fail("a loop issues its prologue ahead (prologue_ahead)");
    for (Value index : load.getIndices())
      if (!computable(index, load))
        return fail("a box origin of a load issued ahead depends on values "
                    "the producer cannot compute (tiles, loop-carried "
                    "values)");
    for (Operation *p = loop; p != kernel.getOperation();
         p = p->getParentOp()) {
      if (auto f = dyn_cast<scf::ForOp>(p)) {
        if (!computable(f.getLowerBound(), load) ||
            !computable(f.getUpperBound(), load) ||
            !computable(f.getStep(), load))
          return fail("the bounds of a loop around a load issued ahead "
                      "depend on values the producer cannot compute");
      } else if (auto i = dyn_cast<scf::IfOp>(p)) {
        if (!computable(i.getCondition(), load))
          return fail("a branch around a load issued ahead depends on "
                      "values the producer cannot compute");
      } else {
        return fail(Twine("a load issued ahead sits in '") +
                    p->getName().getStringRef() + "'");
      }
    }
    if (distance.getInt() < 1 || distance.getInt() > kMaxDistance)
      return fail(Twine("a load's '") + kDistanceAttr + "' is " +
                  Twine(distance.getInt()) + ", not in [1, " +
                  Twine(kMaxDistance) + "]");
    std::optional<StageLayout> layout = loadStage(load);
    WsRing ring;
    ring.load = load;
    // (A fragment load is read by ldmatrix where it stands, whatever
    // reads its registers.)
    ring.genericReads = readsGeneric(load) || loadsIntoFragments(load);
    ring.slots = distance.getInt() + 1;
    ring.bytes = ringBufferBytes(load, *layout);
    ring.layout = *layout;
    wsRingOf[load] = wsRings.size();
    wsRings.push_back(ring);
  });
  if (!why.empty())
    return problem() << why;
  if (wsRings.empty())
    return problem() << "no loop issues a TMA copy ahead (a load into an "
                        "mma, or read as mma fragments, marked "
                        "tilegpu.distance by tilegpu-schedule-loads, through "
                        "the TMA)";
  // One ring for all (hint ring_slots = N): copies go out and are taken in
  // program order (the producer's walk, and the consumers' counter read
  // where each load stands), so a buffer stays taken from its load to the
  // end of that iteration. A load before a nested loop (or a branch) that
  // cycles the ring would hold its buffer while the producer needs it:
  // refused. Then at most the loads of one iteration are held at once, and
  // N above that leaves the producer room to run ahead.
  // `slots` buffers' `full` and `empty` mbarriers (the first of each).
  auto ringBarriers = [&](int64_t slots) {
    int64_t full = numMbarriers, empty = numMbarriers + slots;
    numMbarriers += 2 * slots;
    for (int64_t j = 0; j < slots; ++j)
      mbarArrivals[empty + j] = numWarps; // one per consumer warp
    return std::make_pair(full, empty);
  };
  IntegerAttr sharedHint = kernelHint("ring_slots");
  int64_t shared = sharedHint ? sharedHint.getInt() : 0;
  if (shared > 0) {
    int64_t held = 0;
    std::string order;
    kernel.walk([&](scf::ForOp loop) {
      int64_t direct = 0;
      for (Operation &op : loop.getBody()->without_terminator()) {
        auto load = dyn_cast<tile::LoadOp>(op);
        if (load && wsRingOf.count(load))
          ++direct;
        else if (direct && order.empty() && holdsRingLoad(op))
          order = "a load the producer fills comes before a nested '" +
                  op.getName().getStringRef().str() +
                  "' that holds one too in the same loop body";
      }
      held = std::max(held, direct);
    });
    if (!order.empty())
      return problem() << "'ring_slots' shares one ring, but " << order;
    if (shared <= held)
      return problem() << "'ring_slots' is " << shared
                       << ", but a loop iteration holds " << held
                       << " of the ring's buffers at once (ask for more)";
    // Buffers of the largest load, each aligned as every load needs.
    int64_t bytes = 0;
    for (WsRing &ring : wsRings)
      bytes = std::max(bytes, ring.bytes);
    for (WsRing &ring : wsRings)
      bytes = alignFor(bytes, ring.layout);
    auto [full, empty] = ringBarriers(shared);
    for (WsRing &ring : wsRings) {
      ring.slots = shared;
      ring.bytes = bytes;
      ring.offset = 0;
      ring.full = full;
      ring.empty = empty;
      ring.counterOf = 0; // one counter, the first ring's
    }
    top = shared * bytes;
  } else {
    for (auto [i, ring] : llvm::enumerate(wsRings)) {
      ring.offset = alignFor(top, ring.layout);
      top = ring.offset + ring.slots * ring.bytes;
      std::tie(ring.full, ring.empty) = ringBarriers(ring.slots);
      ring.counterOf = i;
    }
  }
  if (top > kRingBudgetBytes)
    return problem() << "its rings take " << top << " bytes of the "
                     << kRingBudgetBytes
                     << " of shared memory available to rings";
  // The rings live as long as the kernel: everything else goes above them.
  dynamicTop = top;
  dynamicBytes = std::max(dynamicBytes, top);
  // The registers each thread starts with (.maxnreg: the occupancy hint's
  // share of the 64K-register file, else all of it); the producer warpgroup
  // keeps `producer_registers` (default 40) and gives the rest to the
  // consumers.
  IntegerAttr occupancy = kernelHint("occupancy");
  int64_t ctas = occupancy ? occupancy.getInt() : 1;
  int64_t threads = 32 * numWarps + 128;
  wsLaunchRegs = std::min<int64_t>(65536 / (ctas * threads) / 8 * 8, 248);
  if (wsLaunchRegs < 24)
    return kernel.emitError()
           << "'warp_specialize': " << ctas << " CTAs of " << threads
           << " threads per SM leave " << wsLaunchRegs
           << " registers per thread (setmaxnreg needs at least 24)";
  IntegerAttr producer = kernelHint("producer_registers");
  wsProducerRegs =
      std::min<int64_t>(producer ? producer.getInt() : 40, wsLaunchRegs);
  wsConsumerRegs = std::min<int64_t>(
      (wsLaunchRegs * threads - wsProducerRegs * 128) / (32 * numWarps) / 8 *
          8,
      256);
  return success();
}

void KernelEmitter::emitProducer(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    loc = op.getLoc();
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (!holdsRingLoad(op))
        continue;
      auto loop = scf::ForOp::create(b, loc, regs[forOp.getLowerBound()][0],
                                     regs[forOp.getUpperBound()][0],
                                     regs[forOp.getStep()][0]);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      regs[forOp.getInductionVar()] = {loop.getInductionVar()};
      emitProducer(*forOp.getBody());
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      // A scalar branch (producerBranch) whose condition the producer has,
      // evaluated as the kernel does: each side's scalar ops, then what it
      // yields (where a side leaves a yielded value unknown, so is the
      // branch: nothing the copies need reads it, planWarpSpecialization
      // checked).
      if (!holdsRingLoad(op) && producerBranch(ifOp) &&
          regs.count(ifOp.getCondition())) {
        bool known = true;
        SmallVector<Value> results = ifElse(
            regs[ifOp.getCondition()][0],
            SmallVector<Type>(ifOp.getResultTypes()),
            [&]() -> SmallVector<Value> {
              return producerYield(ifOp.getThenRegion().front(), known);
            },
            [&]() -> SmallVector<Value> {
              return producerYield(ifOp.getElseRegion().front(), known);
            });
        if (known)
          for (auto [result, value] : llvm::zip(ifOp.getResults(), results))
            regs[result] = {value};
        else {
          // (Nothing outside reads what either side computed: forget it
          // with the erased branch.)
          results.front().getDefiningOp()->erase();
          ifOp->walk([&](Operation *inner) {
            for (Value v : inner->getResults())
              regs.erase(v);
          });
        }
        continue;
      }
      if (!holdsRingLoad(op))
        continue;
      ifElse(
          regs[ifOp.getCondition()][0], {},
          [&]() -> SmallVector<Value> {
            emitProducer(ifOp.getThenRegion().front());
            return {};
          },
          [&]() -> SmallVector<Value> {
            if (!ifOp.getElseRegion().empty())
              emitProducer(ifOp.getElseRegion().front());
            return {};
          });
      continue;
    }
    if (auto load = dyn_cast<tile::LoadOp>(op)) {
      auto it = wsRingOf.find(load);
      if (it == wsRingOf.end())
        continue;
      // Copy k goes to buffer k mod n once the consumers freed it (phase
      // (k / n) - 1 of its `empty` barrier; for the first n copies the
      // phase before the first, which counts as complete).
      WsRing &ring = wsRings[it->second];
      Value slot = ringCounter(ring);
      Value k = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);
      auto [stage, phase] = wsStageAndPhase(ring, k);
      waitTma(MbarRef{ring.empty, stage, ring.slots,
                      arith::XOrIOp::create(b, loc, phase, i32(1))});
      issueTma(load, ringBuffer(ring.offset, ring.bytes, stage),
               MbarRef{ring.full, stage, ring.slots});
      LLVM::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, k, i32(1)),
                            slot);
      continue;
    }
    if (producerOp(&op) &&
        (isa<tile::DimOp>(op) ||
         llvm::all_of(op.getOperands(), [&](Value v) { return regs.count(v); })))
      (void)emitOp(op); // (scalar ops: cannot fail)
  }
}

SmallVector<Value> KernelEmitter::producerYield(Block &block, bool &known) {
  emitProducer(block);
  SmallVector<Value> out;
  for (Value v : block.getTerminator()->getOperands()) {
    auto it = regs.find(v);
    if (it == regs.end() || it->second.size() != 1 ||
        it->second[0].getType() != v.getType()) {
      known = false;
      out.push_back(LLVM::PoisonOp::create(b, loc, v.getType()));
      continue;
    }
    out.push_back(it->second[0]);
  }
  return out;
}

/// `value` through `mov` in a side-effecting asm: the same value, which LLVM
/// can neither hoist nor merge with another read.
static Value opaque(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  bool pointer = isa<LLVM::LLVMPointerType>(type);
  Value v = pointer ? LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), value)
                    : value;
  Type t = v.getType();
  // (Kernel scalars are i32, i64 or f32; any other type goes as it is.)
  if (!t.isF32() && !t.isInteger(64) && !t.isInteger(32))
    return value;
  const char *cons = t.isF32() ? "=f,0" : t.isInteger(64) ? "=l,0" : "=r,0";
  Value out = LLVM::InlineAsmOp::create(
                  b, loc, t, ValueRange{v}, "", cons,
                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                  LLVM::tailcallkind::TailCallKind::None,
                  LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
  return pointer ? LLVM::IntToPtrOp::create(b, loc, type, out).getResult()
                 : out;
}

KernelEmitter::ParameterState KernelEmitter::refreshParameters() {
  ParameterState saved;
  saved.tid = tid;
  saved.lane = lane;
  saved.warp = warp;
  saved.views = views;
  saved.mapParams = mapParams;
  tid = opaque(b, loc, tid);
  lane = arith::AndIOp::create(b, loc, tid, i32(31));
  warp = arith::ShRUIOp::create(b, loc, tid, i32(5));
  // In parameter order (not the maps' order), so that the output does not
  // depend on where values happen to be allocated.
  for (BlockArgument arg : kernel.getArguments()) {
    if (auto it = views.find(arg); it != views.end()) {
      ViewParts &parts = it->second;
      parts.ptr = opaque(b, loc, parts.ptr);
      for (Value &v : parts.sizes)
        v = opaque(b, loc, v);
      for (Value &v : parts.strides)
        v = opaque(b, loc, v);
      continue;
    }
    if (!regs.count(arg))
      continue;
    saved.scalars[arg] = regs[arg];
    regs[arg] = {opaque(b, loc, regs[arg][0])};
  }
  for (Value &m : mapParams)
    m = opaque(b, loc, m);
  return saved;
}

void KernelEmitter::restoreParameterState(const ParameterState &state) {
  tid = state.tid;
  lane = state.lane;
  warp = state.warp;
  views = state.views;
  for (auto &[arg, r] : state.scalars)
    regs[arg] = r;
  mapParams = state.mapParams;
}

/// scf.for keeps its shape, carrying the per-thread registers. Loads that
/// only feed mma operands and that tilegpu-schedule-loads issued d
/// iterations ahead (`tilegpu.distance`) are software-pipelined: a ring of
/// d + 1 buffers per load in dynamic shared memory; the copies for the
/// first iterations go out before the loop, and each iteration, after a
/// barrier (everyone is done with the buffer read the iteration before),
/// starts the copy for iteration i + d into that buffer before computing
/// on its own, so that global-memory latency overlaps the work of d
/// iterations. Loads into registers it marked are issued one iteration
/// ahead into registers the loop carries (see planRegisterPrefetch).
LogicalResult KernelEmitter::emitFor(scf::ForOp op) {
  // The body follows itself: what it accesses counts as accessed at its
  // start, and after the loop.
  noteAccesses(op);
  Value lb = regs[op.getLowerBound()][0], ub = regs[op.getUpperBound()][0],
        step = regs[op.getStep()][0];
  SmallVector<Operation *> slice;
  // Warp-specialised, the producer issues the copies of the loads in
  // `wsHere`; the loop waits for them where they are used and frees their
  // buffers when an iteration ends.
  SmallVector<WsRing *> wsHere;
  FailureOr<SmallVector<Prefetch>> planned = planPrefetch(op, slice, wsHere);
  if (failed(planned))
    return failure();
  SmallVector<Prefetch> plan = std::move(*planned);
  FailureOr<SmallVector<tile::LoadOp>> registerPlan =
      planRegisterPrefetch(op, slice);
  if (failed(registerPlan))
    return failure();
  SmallVector<tile::LoadOp> preload = std::move(*registerPlan);
  // tilegpu-schedule-loads marked the loop to issue its prologue for the
  // enclosing loop's next iteration as soon as it ends (then the prologue
  // where it starts runs only in the enclosing loop's first iteration).
  scf::ForOp outer;
  SmallVector<Operation *> outerSlice;
  if (op->hasAttr(kPrologueAheadAttr)) {
    if (std::string problem = prologueAheadProblem(op, &outerSlice);
        !problem.empty())
      return op.emitError() << "'" << kPrologueAheadAttr
                            << "' on a loop whose prologue cannot be issued "
                               "ahead: "
                            << problem;
    outer = cast<scf::ForOp>(op->getParentOp());
  }
  // What the loop carries per preloaded load of distance d: d sets (the
  // iterations ahead, the nearest first) of its registers, or its words.
  SmallVector<SmallVector<Type>> preloadSet; // per load, one set's types
  SmallVector<int64_t> preloadDistance;
  for (tile::LoadOp load : preload) {
    int64_t n = numRegisters(load.getType());
    SmallVector<Type> set;
    if (packsIntoWords(load))
      set.append(n / 2, b.getI32Type());
    else
      llvm::append_range(set, flatTypes(load.getType()));
    preloadSet.push_back(set);
    preloadDistance.push_back(
        load->getAttrOfType<IntegerAttr>(kDistanceAttr).getInt());
  }
  // The sets of the preloads issued at distance d, in order, and their
  // types.
  auto preloadsAt = [&](int64_t d) {
    SmallVector<unsigned> at;
    for (unsigned i = 0; i < preload.size(); ++i)
      if (preloadDistance[i] == d)
        at.push_back(i);
    return at;
  };
  auto typesAt = [&](int64_t d) {
    SmallVector<Type> types;
    for (unsigned i : preloadsAt(d))
      llvm::append_range(types, preloadSet[i]);
    return types;
  };
  // `values` (laid out as typesAt(d)) cut into the sets of the preloads at
  // distance d: fn(i, preload i's set).
  auto forEachSet = [&](int64_t d, ArrayRef<Value> values,
                        function_ref<void(unsigned, ArrayRef<Value>)> fn) {
    size_t k = 0;
    for (unsigned i : preloadsAt(d)) {
      size_t n = preloadSet[i].size();
      fn(i, values.slice(k, n));
      k += n;
    }
  };
  int64_t savedTop = dynamicTop;
  bool anyTma = false, anyCpAsync = false;
  // The distances the loop issues loads at.
  SmallVector<int64_t> distances;
  for (int64_t d : preloadDistance)
    if (!llvm::is_contained(distances, d))
      distances.push_back(d);
  // TMA copies whose waits follow one another in the body share one
  // mbarrier per buffer: the thread that issues them arrives once,
  // expecting all their bytes, and the body waits once per iteration, where
  // the first of them is used (ringStageGroups). The kernel hint
  // ring_barrier_per_load gives each load its own.
  IntegerAttr perLoad = kernelHint("ring_barrier_per_load");
  SmallVector<unsigned> groupOf =
      ringStageGroups(plan, /*share=*/!perLoad || !perLoad.getInt());
  DenseMap<unsigned, int64_t> groupMbar;
  for (auto [i, p] : llvm::enumerate(plan)) {
    anyCpAsync |= !p.layout.tma();
    p.offset = alignFor(dynamicTop, p.layout);
    dynamicTop = p.offset + (p.distance + 1) * p.stageBytes;
    if (p.layout.tma()) {
      auto [it, fresh] = groupMbar.try_emplace(groupOf[i], numMbarriers);
      if (fresh)
        numMbarriers += p.distance + 1;
      p.mbar = it->second;
      anyTma = true;
    }
    if (!llvm::is_contained(distances, p.distance))
      distances.push_back(p.distance);
  }
  llvm::sort(distances);
  int64_t deepest = distances.empty() ? 0 : distances.back();
  dynamicBytes = std::max(dynamicBytes, dynamicTop);
  // Runs `fn` with `loop`'s induction variable at `iv` and its body's
  // `ops` (scalar index ops, each emitted once already) evaluated for it;
  // the registers of those values are left as they were.
  auto evaluatedAt = [&](scf::ForOp loop, ArrayRef<Operation *> ops, Value iv,
                         function_ref<void()> fn) {
    DenseMap<Value, SmallVector<Value>> saved;
    auto save = [&](Value v) {
      auto it = regs.find(v);
      saved[v] = it == regs.end() ? SmallVector<Value>() : it->second;
    };
    save(loop.getInductionVar());
    for (Operation *o : ops)
      save(o->getResult(0));
    regs[loop.getInductionVar()] = {iv};
    for (Operation *o : ops)
      (void)emitOp(*o); // (lowered once before: cannot fail now)
    fn();
    for (auto &[v, r] : saved) {
      if (r.empty())
        regs.erase(v);
      else
        regs[v] = r;
    }
  };
  // The same for this loop's index slice at iteration `iv`.
  auto atIteration = [&](Value iv, function_ref<void()> fn) {
    evaluatedAt(op, slice, iv, fn);
  };
  // Issues the copies of the planned loads of `distance` for iteration `iv`
  // into buffer `stage` of their rings and the register loads of that
  // distance, whose values it returns (typesAt(distance)).
  auto issueFor = [&](Value iv, Value stage, int64_t distance) {
    SmallVector<Value> values;
    atIteration(iv, [&] {
      // The copies onto each mbarrier, in the plan's order.
      llvm::MapVector<int64_t, SmallVector<std::pair<tile::LoadOp, Value>>>
          onto;
      for (Prefetch &p : plan) {
        if (p.distance != distance)
          continue;
        if (p.mbar < 0)
          issueCopy(p.load, prefetchBuffer(p, stage), p.layout);
        else
          onto[p.mbar].push_back({p.load, prefetchBuffer(p, stage)});
      }
      for (auto &[mbar, copies] : onto)
        issueTmaGroup(copies, MbarRef{mbar, stage, distance + 1});
      for (unsigned i : preloadsAt(distance))
        llvm::append_range(
            values, loadRegisters(preload[i], packsIntoWords(preload[i])));
    });
    return values;
  };
  auto poison = [&](int64_t d) {
    SmallVector<Value> values;
    for (Type t : typesAt(d))
      values.push_back(LLVM::PoisonOp::create(b, loc, t));
    return values;
  };
  // The iteration after `iv`, and whether it runs: below ub, and (step by
  // step, so that no sum wraps around unnoticed) past `iv` (an iteration
  // past INT_MAX wraps around and is none).
  auto stepFrom = [&](Value iv, Value upper,
                      Value by) -> std::pair<Value, Value> {
    Value next = arith::AddIOp::create(b, loc, iv, by);
    Value ok = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next, upper),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, next, iv));
    return {next, ok};
  };
  // The prologue for a run of the loop from `lower` to `upper` by `by`,
  // when `guard` holds: the iterations -deepest .. -1 the loop would have
  // run before its first, each issuing iteration v + distance into buffer
  // v + distance of each ring and committing its group, so that the copy
  // of iteration i at distance d is always d groups behind iteration i's
  // own (cp.async.wait_group d waits for it). Returns the preloaded
  // registers of iterations 0 .. d - 1 as the loop carries them.
  auto emitPrologue = [&](Value lower, Value upper, Value by, Value guard) {
    // Per preload, its sets of iterations 0 .. d - 1.
    SmallVector<SmallVector<SmallVector<Value>>> sets;
    for (int64_t d : preloadDistance)
      sets.emplace_back(d);
    // Iteration lower + t * by for t < deepest, and whether it runs.
    SmallVector<Value> target = {lower}, runs = {arith::CmpIOp::create(
                                             b, loc, arith::CmpIPredicate::slt,
                                             lower, upper)};
    if (guard)
      runs[0] = arith::AndIOp::create(b, loc, runs[0], guard);
    for (int64_t t = 1; t < deepest; ++t) {
      auto [next, ok] = stepFrom(target.back(), upper, by);
      runs.push_back(arith::AndIOp::create(b, loc, runs.back(), ok));
      target.push_back(next);
    }
    for (int64_t v = -deepest; v < 0; ++v) {
      for (int64_t d : distances) {
        int64_t t = v + d;
        if (t < 0)
          continue;
        SmallVector<Value> values = ifElse(
            runs[t], typesAt(d), [&] { return issueFor(target[t], i32(t), d); },
            [&] { return poison(d); });
        forEachSet(d, values, [&](unsigned i, ArrayRef<Value> set) {
          sets[i][t].assign(set.begin(), set.end());
        });
      }
      if (anyCpAsync)
        NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
    SmallVector<Value> preloaded;
    for (auto &perLoad : sets)
      for (auto &set : perLoad)
        llvm::append_range(preloaded, set);
    return preloaded;
  };
  SmallVector<Value> first;
  // What is pending at run time if the loop runs no iteration (the barriers
  // emitted below from here on may not run): kept after the loop.
  DenseSet<Value> pendingLoads = loadedViews;
  StoredViews pendingStores = storedViews;
  bool firstUse = false;
  if (!plan.empty() || !preload.empty()) {
    // The buffers may have been read just before (an earlier loop's at the
    // same offsets, or this loop's in the previous run of an enclosing
    // loop): everyone must be done before the first copy lands.
    // Not before the first use of the dynamic shared memory, outside every
    // loop (no earlier run of this one either): nothing can have read the
    // buffers. (The barrier after the mbarriers' initialisation comes
    // before the kernel's first use of one, at the latest this prologue's
    // first TMA copy.)
    firstUse = !dynamicUsed && !warpSpecialized &&
               !op->getParentOfType<scf::ForOp>();
    if (!plan.empty() && !firstUse) {
      // (Generic accesses there come before the copy engine's writes.)
      if (anyTma)
        fenceBeforeRefill();
      barrier();
      pendingLoads.clear();
      pendingStores.clear();
      scratchTouched = false;
    }
    // (Ahead: only in the enclosing loop's first iteration; its later ones
    // had theirs issued at the end of the previous one.)
    Value isFirst;
    if (outer)
      isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      regs[outer.getInductionVar()][0],
                                      regs[outer.getLowerBound()][0]);
    first = emitPrologue(lb, ub, step, isFirst);
    noteAccesses(op);
  }
  // Accumulators that stay in tensor memory across the loop (tcgen05): in
  // before it, out after it, instead of a tcgen05.st and .ld around every
  // mma. (A zero one is stored too: one store per loop, and every MMA then
  // accumulates; predicating the first iteration's MMAs instead, and storing
  // zeros only when the loop runs no iteration, made ptxas spill.)
  struct Resident {
    unsigned index;
    tile::MmaOp mma;
    int64_t blocks, N, column0;
  };
  SmallVector<Resident> residents;
  // Each at the first columns no enclosing loop's resident accumulator
  // holds; the loop's other tcgen05 mmas go after them (emitTcgen05).
  int64_t savedReserved = tmemReserved;
  for (unsigned i = 0; i < op.getNumRegionIterArgs(); ++i) {
    tile::MmaOp mma = tmemResidentMma(op, i);
    if (!mma)
      continue;
    auto cType = cast<RankedTensorType>(mma.getAcc().getType());
    Resident r{i, mma, cType.getDimSize(0) / 64, cType.getDimSize(1),
               tmemReserved};
    tmemReserved += r.blocks * r.N;
    residentColumn[mma] = r.column0;
    tmemStoreAcc(tmemBase(), tmemLaneBase(), regs[op.getInitArgs()[i]],
                 r.blocks, r.N, r.column0);
    // (The mma's barrier orders everyone's stores before its MMAs.)
    NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::STORE);
    residents.push_back(r);
  }
  SmallVector<Value> init = flatten(op.getInitArgs());
  size_t numCarried = init.size();
  llvm::append_range(init, first);
  // The scratch buffer's state where the loop starts (what the first
  // iteration starts from, and what follows a loop of no iteration).
  bool atLoop = scratchTouched;
  scratchTouched = true; // (later iterations: whatever the body left)
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, init);
  OpBuilder::InsertionGuard guard(b);
  Block *body = loop.getBody();
  if (!body->empty())
    body->back().erase();
  b.setInsertionPointToEnd(body);
  regs[op.getInductionVar()] = {loop.getInductionVar()};
  for (const Resident &r : residents)
    residentAcc.insert(r.mma);
  // A persistent kernel's program loop (and, with the kernel hint
  // refresh_in_loops, every loop): each iteration reads the thread index and
  // the kernel's parameters afresh, through side-effecting moves that LLVM
  // cannot hoist, so that what the body derives from them is computed per
  // iteration instead of held in registers across the whole loop (which
  // made ptxas spill: bench/results/2026-11-30-persistent.md).
  std::optional<ParameterState> savedParameters;
  IntegerAttr refresh = kernelHint("refresh_in_loops");
  if (op->hasAttr(kProgramLoopAttr) || (refresh && refresh.getInt()))
    savedParameters = refreshParameters();
  ValueRange iterArgs = loop.getRegionIterArgs();
  unflatten(op.getRegionIterArgs(), iterArgs.take_front(numCarried));
  SmallVector<Value> current(iterArgs.drop_front(numCarried));
  // Set j (iteration k + j) of preload i, as the loop carries it.
  auto carriedSet = [&](unsigned i, int64_t j) {
    size_t at = 0;
    for (unsigned i2 = 0; i2 < i; ++i2)
      at += preloadDistance[i2] * preloadSet[i2].size();
    at += j * preloadSet[i].size();
    return SmallVector<Value>(current.begin() + at,
                              current.begin() + at + preloadSet[i].size());
  };
  SmallVector<SmallVector<Value>> issued(preload.size());
  SmallVector<Value> nextValues;
  if (!plan.empty() || !preload.empty()) {
    Value iv = loop.getInductionVar();
    // Iteration k = (iv - lb) / step reads buffer k mod (d + 1) of a ring
    // of distance d.
    Value index =
        arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb),
                               step);
    DenseMap<int64_t, Value> stageOf;
    for (int64_t d : distances)
      stageOf[d] =
          d == 1 ? arith::AndIOp::create(b, loc, index, i32(1)).getResult()
                 : arith::RemSIOp::create(b, loc, index, i32(d + 1))
                       .getResult();
    // Everyone is done with the buffers the iteration before read, which
    // this one's copies overwrite. Not in the first iteration: the barrier
    // before the prologue freed every buffer of the rings (or nothing had
    // used them: firstUse), and nothing has read them since (a loop of one
    // or two iterations, compute_out's, meets one barrier fewer per run).
    // Where that barrier ran, one has come between the accesses before
    // this point and the ones after it on every path.
    if (!plan.empty()) {
      onlyWhere(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv,
                                      lb),
                [&] { barrierInstruction(); });
      if (!firstUse) {
        loadedViews.clear();
        storedViews.clear();
      }
      // Iteration 0 as the loop found it, the others behind the barrier.
      scratchTouched = atLoop;
    }
    for (int64_t d : distances) {
      Value stage = stageOf[d];
      // Iteration k + d, into buffer (k + d) mod (d + 1) (the one read
      // before), if it runs.
      Value next = iv, more;
      for (int64_t j = 0; j < d; ++j) {
        auto [after, ok] = stepFrom(next, ub, step);
        next = after;
        more = j == 0 ? ok : arith::AndIOp::create(b, loc, more, ok);
      }
      Value other =
          d == 1 ? arith::XOrIOp::create(b, loc, stage, i32(1)).getResult()
                 : arith::SelectOp::create(
                       b, loc,
                       arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             stage, i32(0)),
                       i32(d), arith::SubIOp::create(b, loc, stage, i32(1)))
                       .getResult();
      // (Past the end: the sets the iteration has, unused.)
      SmallVector<Value> values = ifElse(
          more, typesAt(d), [&] { return issueFor(next, other, d); },
          [&] {
            SmallVector<Value> same;
            for (unsigned i : preloadsAt(d))
              llvm::append_range(same, carriedSet(i, 0));
            return same;
          });
      forEachSet(d, values, [&](unsigned i, ArrayRef<Value> set) {
        issued[i].assign(set.begin(), set.end());
      });
    }
    // Each preload's sets move one iteration nearer; the one issued now
    // comes last.
    for (unsigned i = 0; i < preload.size(); ++i) {
      for (int64_t j = 1; j < preloadDistance[i]; ++j)
        llvm::append_range(nextValues, carriedSet(i, j));
      llvm::append_range(nextValues, issued[i]);
    }
    // Committed even when empty: a load of distance d waits for all groups
    // but the d newest, the last of which must be this one.
    if (anyCpAsync)
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    for (Prefetch &p : plan) {
      Value stage = stageOf[p.distance];
      prefetchedAt[p.load.getResult()] = prefetchBuffer(p, stage);
      if (p.mbar >= 0)
        prefetchedMbar[p.load.getResult()] =
            MbarRef{p.mbar, stage, p.distance + 1};
      else
        prefetchedAhead[p.load.getResult()] = p.distance;
    }
    for (unsigned i = 0; i < preload.size(); ++i) {
      tile::LoadOp load = preload[i];
      SmallVector<Value> carried = carriedSet(i, 0);
      preloaded.insert(load);
      if (packsIntoWords(load))
        preloadedWords[load] = carried;
      else
        regs[load.getResult()] = carried;
    }
  }
  // This iteration's copies from the producer, taken where the loads stand
  // (takeRingCopy).
  SmallVector<std::pair<WsRing *, MbarRef>> wsStages;
  for (WsRing *ring : wsHere)
    wsPending[ring->load] = ring;
  auto *outerTaken = wsTaken;
  wsTaken = &wsStages;
  // Stages several copies share: the body's first wait for one waits for
  // them all.
  DenseMap<int64_t, unsigned> copiesOnto;
  for (Prefetch &p : plan)
    if (p.mbar >= 0)
      ++copiesOnto[p.mbar];
  for (auto [mbar, copies] : copiesOnto)
    if (copies > 1)
      sharedStages[mbar] = false;
  LogicalResult bodyEmitted = emitBlock(*op.getBody());
  for (auto [mbar, copies] : copiesOnto)
    sharedStages.erase(mbar);
  scratchTouched |= atLoop;
  wsTaken = outerTaken;
  if (failed(bodyEmitted))
    return failure();
  if (!wsStages.empty()) {
    // The warp is done with this iteration's buffers (the MMAs reading them
    // waited for each copy, and for their own completion): one arrival per
    // consumer warp frees each for the producer's next copy. (Every use of
    // a ring load the producer fills is in the loop body itself: an mma,
    // loadsIntoMma, or the ldmatrix where a fragment load stands,
    // loadsIntoFragments, so each copy was waited for; waiting again here
    // cost the GEMM of bench/results/2026-11-30-warp-specialize.md its
    // 8-9%.) Buffers read by generic loads (ldmatrix for mma.sync or a
    // fragment load) are ordered before the copy engine's next write by a
    // proxy fence; wgmma and tcgen05 read through the async proxy.
    bool generic = false;
    for (auto [ring, full] : wsStages)
      generic |= ring->genericReads;
    if (generic)
      fenceAsyncShared();
    NVVM::SyncWarpOp::create(b, loc, i32(-1));
    onlyWhere(isZero(lane), [&] {
      for (auto [ring, full] : wsStages)
        NVVM::MBarrierArriveOp::create(
            b, loc, Type(), mbarAddress(MbarRef{ring->empty, full.stage}),
            Value());
    });
  }
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  SmallVector<Value> yielded = flatten(yield.getOperands());
  llvm::append_range(yielded, nextValues);
  scf::YieldOp::create(b, loc, yielded);
  b.setInsertionPointAfter(loop);
  if (savedParameters)
    restoreParameterState(*savedParameters);
  if (outer) {
    // The prologue of the enclosing loop's next iteration, now: everyone is
    // done with the rings (generic reads before the copy engine's writes),
    // and the copies' latency overlaps the rest of this iteration.
    Value s = regs[outer.getInductionVar()][0];
    auto [sNext, sOk] = stepFrom(s, regs[outer.getUpperBound()][0],
                                 regs[outer.getStep()][0]);
    fenceBeforeRefill();
    barrier();
    ifElse(sOk, {}, [&] {
      // With the enclosing body's values the bounds and indices use
      // evaluated for its next iteration.
      evaluatedAt(outer, outerSlice, sNext, [&] {
        emitPrologue(regs[op.getLowerBound()][0],
                     regs[op.getUpperBound()][0], regs[op.getStep()][0],
                     Value());
      });
      return SmallVector<Value>();
    }, [&] { return SmallVector<Value>(); });
  }
  for (Prefetch &p : plan) {
    prefetchedAt.erase(p.load.getResult());
    prefetchedMbar.erase(p.load.getResult());
    prefetchedAhead.erase(p.load.getResult());
  }
  for (WsRing *ring : wsHere) {
    prefetchedAt.erase(ring->load.getResult());
    prefetchedMbar.erase(ring->load.getResult());
    wsPending.erase(ring->load);
  }
  for (tile::LoadOp load : preload) {
    preloaded.erase(load);
    preloadedWords.erase(load);
  }
  dynamicTop = savedTop;
  loadedViews.insert(pendingLoads.begin(), pendingLoads.end());
  mergeStores(pendingStores);
  noteAccesses(op);
  unflatten(op.getResults(), loop.getResults());
  // The resident accumulators out of tensor memory: what the last
  // iteration's MMAs wrote (every thread waited for their commit), or, when
  // the loop ran no iteration, what was stored before it.
  tmemReserved = savedReserved;
  for (const Resident &r : residents) {
    residentAcc.erase(r.mma);
    residentColumn.erase(r.mma);
    regs[op.getResult(r.index)] =
        tmemLoadAcc(tmemBase(), tmemLaneBase(), r.blocks, r.N, r.column0);
  }
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
  // Each branch starts from the accesses pending before the if (a barrier
  // in one branch does not run in the other); after it, what either left.
  // Buffers of loop-invariant operands in a branch die with it (every use
  // is in the branch, and their copies complete before it ends): each
  // branch and what follows start from the dynamic shared memory before.
  DenseSet<Value> beforeLoads = loadedViews;
  StoredViews beforeStores = storedViews;
  int64_t beforeTop = dynamicTop;
  bool beforeScratch = scratchTouched;
  if (failed(fill(ifOp.getThenRegion(), op.getThenRegion())))
    return failure();
  bool thenScratch = scratchTouched;
  scratchTouched = beforeScratch;
  DenseSet<Value> thenLoads = loadedViews;
  StoredViews thenStores = std::move(storedViews);
  loadedViews = beforeLoads;
  storedViews = std::move(beforeStores);
  dynamicTop = beforeTop;
  if (hasElse) {
    if (failed(fill(ifOp.getElseRegion(), op.getElseRegion())))
      return failure();
  } else {
    Region empty;
    if (failed(fill(ifOp.getElseRegion(), empty)))
      return failure();
  }
  loadedViews.insert(thenLoads.begin(), thenLoads.end());
  mergeStores(thenStores);
  scratchTouched |= thenScratch;
  dynamicTop = beforeTop;
  unflatten(op.getResults(), ifOp.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

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

void KernelEmitter::takeRingCopy(WsRing &ring) {
  // Buffer and phase from the count of copies taken so far (of this ring,
  // or of the one ring all loads share).
  Value k = LLVM::LoadOp::create(b, loc, b.getI32Type(), ringCounter(ring));
  auto [stage, phase] = wsStageAndPhase(ring, k);
  prefetchedAt[ring.load.getResult()] =
      ringBuffer(ring.offset, ring.bytes, stage);
  MbarRef full{ring.full, stage, ring.slots, phase};
  prefetchedMbar[ring.load.getResult()] = full;
  LLVM::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, k, i32(1)),
                        ringCounter(ring));
  wsTaken->push_back({&ring, full});
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
    if (loadsThroughShared(load))
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
  // saved (bench/results/2026-11-30-early-dx.md).
  genericDynamicShared = false;
  kernel.walk([&](tile::LoadOp load) {
    if (!stagedLoad(load) && !residentLoads.contains(load))
      return;
    genericDynamicShared |=
        !tmaOf.count(load) || loadsIntoFragments(load) ||
        (readsGeneric(load) && !loadsThroughShared(load));
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
  // (Thread 0's own first copies before it, the barrier before the first
  // wait instead, measured 0.7-1.5% faster on the H200, but racecheck
  // reported warnings on five TMA test kernels that went unexplained: not
  // kept, bench/results/2026-12-04-early-copies.patch.)
  Operation *firstMbarrierUse = nullptr;
  bool barrierBeforeUse = false;
  for (Operation &op : *entry) {
    if (isa<NVVM::Barrier0Op>(op)) {
      barrierBeforeUse = true;
      break;
    }
    WalkResult found = op.walk([&](LLVM::AddressOfOp address) {
      return address.getGlobalName() == mbarriers.getSymName()
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
  tile::SignalOp firstSignal;
  bool waits = false;
  kernel.walk([&](Operation *op) {
    if (auto signal = dyn_cast<tile::SignalOp>(op); signal && !firstSignal)
      firstSignal = signal;
    waits |= isa<tile::WaitOp>(op);
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
    if (!barrierBeforeUse) {
      if (firstMbarrierUse)
        b.setInsertionPoint(firstMbarrierUse);
      NVVM::Barrier0Op::create(b, loc);
    }
  }
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
