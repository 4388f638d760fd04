//===- AssignLayouts.cpp - --tilegpu-assign-layouts
//------------------------===//

#include "passes/Passes.h"
#include "passes/Match.h"
#include "passes/TmaPlan.h"

#include <optional>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TILEGPUASSIGNLAYOUTS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// Whether `kernel` uses the MMA family of the 0/1 hint `name` (without
/// one, `byDefault`) on `target`, which has it when `available` (the module
/// attribute `availableAttr`, which tesselc sets from the target; the
/// family's instructions exist on `targetsWithIt`); such a kernel gets the
/// unit attribute `attr`. A hint of 1 where the family is missing is the
/// kernel's error: "... asks for <name> (hint '<name>' = 1): <what>, and
/// <target> <lacks>", or, on one of `targetsWithIt`, that the module lacks
/// `availableAttr` (hand-written IR).
FailureOr<bool> mmaFamily(func::FuncOp kernel, StringRef target, StringRef name,
                          bool available, StringRef availableAttr,
                          ArrayRef<StringRef> targetsWithIt, bool byDefault,
                          StringRef attr, StringRef what, StringRef lacks) {
  std::optional<int64_t> hint;
  if (IntegerAttr value = kernelHint(kernel, target, name))
    hint = value.getInt();
  if (hint == 1 && !available) {
    InFlightDiagnostic error =
        kernel.emitError() << "kernel '" << kernel.getSymName() << "' asks for "
                           << name << " (hint '" << name << "' = 1)";
    if (llvm::is_contained(targetsWithIt, target))
      error << ", and " << target << " has it, but this module lacks '"
            << availableAttr << "' (which tesselc sets for its target)";
    else
      error << ": " << what << ", and " << target << " " << lacks;
    return failure();
  }
  bool use = available && (hint ? *hint == 1 : byDefault);
  if (use)
    kernel->setAttr(attr, UnitAttr::get(kernel.getContext()));
  return use;
}

/// The element types the lowering has: a view's, and i1 (no 8- or 4-bit
/// floats, tf32 or wider floats).
bool compilable(Type type) {
  return type.isSignlessInteger(1) || tile::isViewElementType(type);
}

/// Every scalar parameter and tile of `kernel` has a compilable element
/// type, and no scf.while carries a tile (its layouts are not joined).
LogicalResult checkElementTypes(func::FuncOp kernel) {
  constexpr StringLiteral kList =
      "i1, i8, i16, i32, i64, f16, bf16, f32 or f64";
  for (Type type : kernel.getArgumentTypes())
    if (type.isIntOrFloat() && !compilable(type))
      return kernel.emitError()
             << "kernel '" << kernel.getSymName() << "' takes a scalar of "
             << type << ", which tessel cannot pass (scalars are " << kList
             << ")";
  WalkResult walked = kernel.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::WhileOp>(op))
      for (Type type : loop.getResultTypes())
        if (isa<RankedTensorType>(type)) {
          loop.emitOpError()
              << "an scf.while that carries a tile (" << type
              << ") is not supported: write the loop as scf.for (the DSL's "
                 "for_range)";
          return WalkResult::interrupt();
        }
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor && !compilable(tensor.getElementType())) {
        op->emitOpError() << "has a tile of " << tensor.getElementType()
                          << ", which tessel cannot compile (tiles hold "
                          << kList << ")";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

/// Warps for `kernel` on `target`: its hint, else 4.
unsigned numWarpsFor(func::FuncOp kernel, StringRef target) {
  if (IntegerAttr value = kernelHint(kernel, target, "num_warps"))
    return static_cast<unsigned>(value.getInt());
  return 4;
}

bool isTile(Value v) {
  auto tensor = dyn_cast<RankedTensorType>(v.getType());
  // A rank-0 tile is one value every thread holds: no layout to choose.
  return tensor && tensor.getRank() > 0;
}

/// Tiles that must share a layout: the operands and result of an
/// elementwise op (their registers are combined one by one), the values a
/// loop or an if carries (init, iteration argument, yield, result), a
/// cumsum's source and result, an mma's accumulator and result. Union-find
/// over tile values.
class LayoutClasses {
public:
  Value find(Value v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v)
      return v;
    Value root = find(it->second);
    parent[v] = root;
    return root;
  }
  void join(Value a, Value c) {
    if (!isTile(a) || !isTile(c) ||
        cast<ShapedType>(a.getType()).getShape() !=
            cast<ShapedType>(c.getType()).getShape())
      return;
    Value ra = find(a), rc = find(c);
    if (ra != rc)
      parent[ra] = rc;
  }

private:
  DenseMap<Value, Value> parent;
};

struct AssignLayouts
    : public tessel::impl::TileGPUAssignLayoutsBase<AssignLayouts> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef target = targetOf(module);
    // The pipeline marks targets with warpgroup MMA (codegen/Target.h).
    bool wgmmaAvailable =
        module->hasAttr(tilegpu::TileGPUDialect::getWgmmaAvailableAttrName());
    bool tcgen05Available =
        module->hasAttr(tilegpu::TileGPUDialect::getTcgen05AvailableAttrName());
    // The passes and the lowering compile the top module's kernels.
    for (auto nested : module.getOps<ModuleOp>()) {
      nested.emitError("a nested module is not compiled: put the kernels in "
                       "the top-level module");
      return signalPassFailure();
    }
    for (auto kernel : module.getOps<func::FuncOp>()) {
      // A kernel's parameters are views and scalars: a tile lives in one
      // program's registers or shared memory and cannot cross a call.
      for (Type type : llvm::concat<const Type>(kernel.getArgumentTypes(),
                                                kernel.getResultTypes()))
        if (isa<RankedTensorType>(type)) {
          kernel.emitError()
              << "kernel '" << kernel.getSymName() << "' takes or returns a "
              << "tile (" << type << "): a kernel's parameters are views and "
              << "scalars, and it returns nothing (store the tile instead)";
          return signalPassFailure();
        }
      if (kernel.getNumResults()) {
        kernel.emitError() << "kernel '" << kernel.getSymName()
                           << "' returns a value ("
                           << kernel.getResultTypes().front()
                           << "): a kernel returns nothing (store the value "
                              "instead)";
        return signalPassFailure();
      }
      if (failed(checkElementTypes(kernel)))
        return signalPassFailure();
      unsigned numWarps = numWarpsFor(kernel, target);
      kernel->setAttr(tilegpu::TileGPUDialect::getNumWarpsAttrName(),
                      Builder(kernel).getI64IntegerAttr(numWarps));
      // wgmma when the kernel's hint asks for it (not yet the default: on the
      // H200 it is still slower than mma.sync, see codegen/README.md);
      // tcgen05 wherever the target has it, unless the hint 'tcgen05' = 0
      // keeps the kernel on mma.sync.
      FailureOr<bool> wgmma = mmaFamily(
          kernel, target, "wgmma", wgmmaAvailable,
          tilegpu::TileGPUDialect::getWgmmaAvailableAttrName(), {"sm_90a"},
          /*byDefault=*/false, tilegpu::TileGPUDialect::getWgmmaAttrName(),
          "warpgroup MMA is an sm_90a instruction",
          "does not have it (ask for it on sm_90a only)");
      FailureOr<bool> tcgen05 = mmaFamily(
          kernel, target, "tcgen05", tcgen05Available,
          tilegpu::TileGPUDialect::getTcgen05AvailableAttrName(),
          {"sm_100a", "sm_103a"}, /*byDefault=*/true,
          tilegpu::TileGPUDialect::getTcgen05AttrName(),
          "the fifth-generation tensor cores are sm_100a/sm_103a "
          "instructions",
          "does not have them (ask for them on sm_100a or sm_103a only)");
      if (failed(wgmma) || failed(tcgen05))
        return signalPassFailure();
      // tcgen05 reads both operands from shared memory whatever the
      // accumulator's split, and tensor memory hands each warp of a
      // warpgroup its own rows: accumulators put the warps along M.
      // The hint that keeps a register-computed A off the registers (tensor
      // memory) path of the family in use.
      IntegerAttr registerA = kernelHint(
          kernel, target, *tcgen05 ? "tcgen05_tmem_a" : "wgmma_register_a");
      assign(kernel, numWarps, *wgmma || (*tcgen05 && numWarps == 4),
             !registerA || registerA.getInt() != 0, *tcgen05);
    }
  }

  /// The source of `a`, an mma's A operand, when `a` is the transpose of a
  /// tile computed in registers (an elementwise op's result: x scaled per
  /// token, say) used only as A operands: that tile can be laid out as the
  /// transpose of the accumulator's layout, which makes the transpose a
  /// renaming of registers into the A fragments the warpgroup MMA takes
  /// from registers (tcgen05 from tensor memory), instead of a trip through
  /// shared memory. A transposed load stays a load: the mma reads its
  /// staged copy the other way round.
  static Value transposedRegisterA(Value a) {
    auto permute = a.getDefiningOp<tile::PermuteOp>();
    if (!permute || !isTranspose(permute))
      return {};
    for (OpOperand &use : permute.getResult().getUses())
      if (!isa<tile::MmaOp>(use.getOwner()) || use.getOperandNumber() != 0)
        return {};
    Operation *def = permute.getSource().getDefiningOp();
    if (!def || !isElementwise(def))
      return {};
    // (A tile that is also an mma operand itself keeps its own layout.)
    for (Operation *user : permute.getSource().getUsers())
      if (isa<tile::MmaOp>(user))
        return {};
    return permute.getSource();
  }

  /// Whether every load into `root`'s class could be copied by the TMA and
  /// read as fragments (16-bit tiles the TMA can box): in the transposed
  /// layout, any other load would be one 2-byte global load per element.
  static bool fragmentLoadsOnly(func::FuncOp kernel, LayoutClasses &classes,
                                Value root) {
    bool ok = true;
    kernel.walk([&](tile::LoadOp load) {
      if (classes.find(load.getResult()) != root)
        return;
      Type element = load.getType().getElementType();
      ok &= (element.isBF16() || element.isF16()) &&
            load.getPadding() == tile::Padding::zero &&
            tmaCopyProblem(load).empty();
    });
    return ok;
  }

  /// Whether `source`'s class (a 1-D tile a reshape or broadcast takes into
  /// an mma-laid-out tile) loads its elements and computes a transcendental
  /// function of them (exp2 of a cumulative sum, say) that `layout` (a
  /// slice of the mma layout) would replicate over kReplicationLimit or
  /// more threads: then every thread loads and computes each of its
  /// elements (chunk_state: 32 loads and 16 exp2 per thread per token
  /// block, the same 64 tokens in all 128 threads), where in the blocked
  /// layout each element is loaded and computed about once and the reshape
  /// moves the results through shared memory (a store, a barrier and a
  /// vector load per thread). Such a class keeps the blocked layout.
  static constexpr int64_t kReplicationLimit = 8;
  static bool replicatedWork(func::FuncOp kernel, LayoutClasses &classes,
                             unsigned numWarps, Value source,
                             Attribute layout) {
    auto type = cast<RankedTensorType>(source.getType());
    if (type.getRank() != 1)
      return false;
    Value root = classes.find(source);
    bool loads = false, transcendental = false;
    kernel.walk([&](Operation *op) {
      if (op->getNumResults() != 1 || classes.find(op->getResult(0)) != root)
        return;
      loads |= isa<tile::LoadOp>(op);
      transcendental |=
          isa<math::Exp2Op, math::ExpOp, math::LogOp, math::Log2Op,
              math::Log1pOp, math::TanhOp, math::SqrtOp, math::RsqrtOp,
              math::SinOp, math::CosOp, math::PowFOp>(op);
    });
    if (!loads || !transcendental)
      return false;
    tilegpu::Distribution dist(type.getShape(), layout);
    return int64_t(32 * numWarps) * dist.numRegisters >=
           kReplicationLimit * type.getNumElements();
  }

  /// The layout that gives every warp the whole of `source`, a 1-D tile of
  /// at most 64 elements of 16 or 32 bits, each lane one or two elements of
  /// it (two 16-bit elements in one 32-bit word, two 32-bit ones in two);
  /// null where that does not fit.
  static Attribute wordsPerLane(Value source, unsigned numWarps) {
    auto type = cast<RankedTensorType>(source.getType());
    Type element = type.getElementType();
    if (type.getRank() != 1 || !element.isIntOrFloat())
      return {};
    int64_t n = type.getDimSize(0), bits = element.getIntOrFloatBitWidth();
    int64_t spt = n > 32 ? 2 : 1;
    if (!llvm::isPowerOf2_64(n) || n > 64 || (bits != 16 && bits != 32))
      return {};
    MLIRContext *ctx = source.getContext();
    return tilegpu::BlockedLayoutAttr::get(
        ctx, {unsigned(spt)}, {32u}, {numWarps}, {0u});
  }

  /// Broadcasts and unit-dimension reshapes into an mma-laid-out tile: their
  /// sources take the same layout (sliced where the reshape inserts unit
  /// dimensions), so that per-row or per-column values meet the tile in the
  /// threads that hold it and the shape change moves no data. Only sources
  /// without a layout of their own are changed; repeated until nothing
  /// changes (a chain of reshapes and broadcasts).
  static void propagateToSources(func::FuncOp kernel, LayoutClasses &classes,
                                 unsigned numWarps,
                                 DenseMap<Value, Attribute> &chosen) {
    MLIRContext *ctx = kernel.getContext();
    auto mmaRooted = [](Attribute layout) {
      while (auto slice = dyn_cast_or_null<tilegpu::SliceLayoutAttr>(layout))
        layout = slice.getParent();
      return isa_and_nonnull<tilegpu::MmaLayoutAttr>(layout);
    };
    bool changed = true;
    while (changed) {
      changed = false;
      auto offer = [&](Value source, Attribute layout) {
        Value root = classes.find(source);
        if (chosen.count(root))
          return;
        chosen[root] = layout;
        changed = true;
      };
      kernel.walk([&](Operation *op) {
        if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
            !isa<tile::BroadcastOp, tile::ReshapeOp>(op))
          return;
        Value source = op->getOperand(0), result = op->getResult(0);
        if (!isTile(source) || !isTile(result))
          return;
        Attribute layout = chosen.lookup(classes.find(result));
        if (!mmaRooted(layout))
          return;
        auto srcShape = cast<ShapedType>(source.getType()).getShape();
        auto shape = cast<ShapedType>(result.getType()).getShape();
        if (isa<tile::BroadcastOp>(op)) {
          if (srcShape.size() == shape.size())
            offer(source, layout);
          return;
        }
        std::optional<SmallVector<int64_t>> srcDimOf =
            tilegpu::alignUnitDims(srcShape, shape);
        if (!srcDimOf || shape.size() != srcShape.size() + llvm::count(
                                                               *srcDimOf, -1))
          return; // only insertions of unit dimensions
        for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d)
          if ((*srcDimOf)[d] < 0)
            layout = tilegpu::SliceLayoutAttr::get(ctx, d, layout);
        if (replicatedWork(kernel, classes, numWarps, source, layout)) {
          // In every warp whole instead, each lane's elements in one or
          // two 32-bit words, where that fits: the reshape then fetches
          // each word (a 32-bit element, or a pair of 16-bit ones) with a
          // warp shuffle (remapWordsInWarp) instead of through shared
          // memory and a CTA barrier, and each element is computed once
          // per warp.
          if (Attribute inWarp = wordsPerLane(source, numWarps))
            offer(source, inWarp);
          return;
        }
        offer(source, layout);
      });
    }
  }

  /// A broadcast of a one-element tile used by several ops is cloned for
  /// each, so that the elementwise ops it feeds do not tie their tiles into
  /// one layout class (compute_out's Acs of a block's first token, CSE'd
  /// into one broadcast, would give the per-column decay the per-row
  /// factor's layout; copies of one value cost nothing in any layout).
  static void untieBroadcasts(func::FuncOp kernel) {
    SmallVector<tile::BroadcastOp> shared;
    kernel.walk([&](tile::BroadcastOp op) {
      auto source = dyn_cast<RankedTensorType>(op.getSource().getType());
      if (source && source.getNumElements() == 1 &&
          !op.getResult().hasOneUse() && !op.getResult().use_empty())
        shared.push_back(op);
    });
    for (tile::BroadcastOp op : shared) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op.getResult().getUses())
        uses.push_back(&use);
      OpBuilder b(op);
      b.setInsertionPointAfter(op);
      for (OpOperand *use : llvm::drop_begin(uses))
        use->set(b.clone(*op)->getResult(0));
    }
  }

  void assign(func::FuncOp kernel, unsigned numWarps, bool wgmma,
              bool registerA, bool tcgen05) {
    MLIRContext *ctx = kernel.getContext();
    untieBroadcasts(kernel);
    LayoutClasses classes;
    SmallVector<Value> tiles;
    // Anchors: layouts an op asks for, per tile.
    SmallVector<std::pair<Value, Attribute>> anchors;
    // Register A operands reached through a transpose (transposedRegisterA),
    // with their accumulator layout: anchored once the classes are known.
    SmallVector<std::tuple<Value, Value, tilegpu::MmaLayoutAttr>> registerAs;
    // A operands computed in registers (elementwise), with the accumulator
    // layout they take where nothing else decides their group's layout.
    SmallVector<std::pair<OpOperand *, tilegpu::MmaLayoutAttr>> computedAs;
    // Every mma A and B operand.
    SmallVector<OpOperand *> mmaOperands;
    kernel.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (isTile(result))
          tiles.push_back(result);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isTile(arg))
              tiles.push_back(arg);
      if (isElementwise(op)) {
        for (Value operand : op->getOperands())
          classes.join(operand, op->getResult(0));
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (auto [init, arg, next, result] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                       yield.getOperands(), loop.getResults())) {
          classes.join(init, arg);
          classes.join(arg, next);
          classes.join(next, result);
        }
      } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
          if (region->empty())
            continue;
          auto yield = cast<scf::YieldOp>(region->front().getTerminator());
          for (auto [next, result] :
               llvm::zip(yield.getOperands(), ifOp.getResults()))
            classes.join(next, result);
        }
      } else if (auto cumsum = dyn_cast<tile::CumsumOp>(op)) {
        // Same type in and out (the op's verifier says so).
        classes.join(cumsum.getSource(), cumsum.getResult());
      } else if (auto mma = dyn_cast<tile::MmaOp>(op)) {
        classes.join(mma.getAcc(), mma.getResult());
        mmaOperands.push_back(&mma->getOpOperand(0));
        mmaOperands.push_back(&mma->getOpOperand(1));
        auto type = cast<RankedTensorType>(mma.getType());
        // The warpgroup / tensor-memory MMAs take 16-bit operands, and tf32
        // ones staged K-major (A as it is, B a transpose the mma folds).
        auto foldedTranspose = [](Value v) {
          auto permute = v.getDefiningOp<tile::PermuteOp>();
          return permute && foldsIntoMma(permute);
        };
        bool asyncForm =
            mma.getPrecision() == tile::Precision::bf16 ||
            mma.getPrecision() == tile::Precision::f16 ||
            (mma.getPrecision() == tile::Precision::tf32 &&
             !foldedTranspose(mma.getA()) && foldedTranspose(mma.getB()));
        tilegpu::MmaLayoutAttr layout = tilegpu::MmaLayoutAttr::choose(
            ctx, type.getDimSize(0), type.getDimSize(1), numWarps,
            wgmma && asyncForm);
        if (!layout)
          return;
        anchors.push_back({mma.getResult(), layout});
        // A 16-bit A computed in registers and transposed into the mma:
        // computed in the transposed accumulator layout, the transpose
        // holds A's fragments (see transposedRegisterA).
        bool sixteenBit = mma.getPrecision() == tile::Precision::bf16 ||
                          mma.getPrecision() == tile::Precision::f16;
        // (tcgen05: where A fits in tensor memory beside the accumulator,
        // K / 2 columns per 64 rows after N, stored in power-of-two repeats,
        // as the lowering requires; other tcgen05 mmas may still take
        // columns, and then the lowering stages A from the registers.)
        int64_t M = type.getDimSize(0), N = type.getDimSize(1),
                K = cast<RankedTensorType>(mma.getA().getType()).getDimSize(1);
        bool fitsTmem = !tcgen05 || (N + M / 64 * K / 2 <= 512 &&
                                     llvm::isPowerOf2_64(K / 8));
        if (wgmma && registerA && sixteenBit && fitsTmem &&
            layout.fitsWgmma(M, N)) {
          if (Value source = transposedRegisterA(mma.getA()))
            registerAs.push_back({source, mma.getA(), layout});
          else if (Operation *def = mma.getA().getDefiningOp();
                   def && isElementwise(def))
            computedAs.push_back({&mma->getOpOperand(0), layout});
        }
      }
    });
    for (auto [source, a, layout] : registerAs)
      if (fragmentLoadsOnly(kernel, classes, classes.find(source))) {
        anchors.push_back({source, layout.getTransposedLayout()});
        anchors.push_back({a, layout});
      }
    // A class takes its anchors' layout when they agree, else the default.
    DenseMap<Value, Attribute> chosen;
    DenseSet<Value> conflicted;
    for (auto [value, layout] : anchors) {
      Value root = classes.find(value);
      auto [it, inserted] = chosen.try_emplace(root, layout);
      if (!inserted && it->second != layout)
        conflicted.insert(root);
    }
    for (Value root : conflicted)
      chosen.erase(root);
    // An A computed in registers whose group nothing else lays out (no mma
    // result among its operands: C·Bᵀ read from memory, say, then masked)
    // takes the accumulator's layout, which hands the mma its A fragments
    // from registers (tcgen05: through tensor memory) instead of staging a
    // blocked tile; not where another tile of its group is an mma operand
    // itself (that one keeps its staging).
    for (auto [use, layout] : computedAs) {
      Value root = classes.find(use->get());
      bool shared = llvm::any_of(mmaOperands, [&](OpOperand *other) {
        return other != use && classes.find(other->get()) == root;
      });
      if (!shared && !conflicted.contains(root))
        chosen.try_emplace(root, layout);
    }
    // A loaded 16-bit tile transposed into an accumulator-laid-out tile (a
    // block of C·Bᵀ stored the other way round, say, then masked and fed to
    // an mma from registers): loaded in the transposed accumulator layout,
    // the transpose renames registers and the load is read as fragments
    // from its TMA copy (ldmatrix.trans), instead of a trip through shared
    // memory in the blocked layout.
    if (wgmma)
      kernel.walk([&](tile::PermuteOp permute) {
        if (!isTranspose(permute))
          return;
        auto layout = dyn_cast_or_null<tilegpu::MmaLayoutAttr>(
            chosen.lookup(classes.find(permute.getResult())));
        Value source = classes.find(permute.getSource());
        if (!layout || layout.getTransposed() || chosen.count(source) ||
            !permute.getSource().getDefiningOp<tile::LoadOp>() ||
            !fragmentLoadsOnly(kernel, classes, source))
          return;
        chosen[source] = layout.getTransposedLayout();
      });
    propagateToSources(kernel, classes, numWarps, chosen);
    // The default blocked layout of a class is made for its narrowest
    // element: 16 bytes of it per thread along the last dimension (vector
    // memory accesses); wider elements take several vectors.
    DenseMap<Value, int64_t> narrowest;
    for (Value v : tiles) {
      Type element = cast<RankedTensorType>(v.getType()).getElementType();
      int64_t bytes = element.isIntOrFloat() && element.getIntOrFloatBitWidth() >= 8
                          ? element.getIntOrFloatBitWidth() / 8
                          : 4;
      auto [it, inserted] = narrowest.try_emplace(classes.find(v), bytes);
      if (!inserted)
        it->second = std::min(it->second, bytes);
    }
    // Except where every memory access of the class runs along a squeezed
    // (so non-unit-stride) view dimension: no access of it can be a vector,
    // and consecutive elements per thread would only replicate the tile
    // over more lanes, each thread issuing that many scalar accesses. There
    // one element per thread along the last dimension (16 "bytes").
    DenseSet<Value> vectorAccess, scalarAccess;
    auto noteAccess = [&](Value tile, tile::ViewType view,
                          std::optional<ArrayRef<int64_t>> squeeze) {
      auto type = dyn_cast<RankedTensorType>(tile.getType());
      if (!type || type.getRank() == 0)
        return;
      bool lastSqueezed =
          squeeze && llvm::is_contained(*squeeze, view.getRank() - 1);
      (lastSqueezed ? scalarAccess : vectorAccess).insert(classes.find(tile));
    };
    kernel.walk([&](Operation *op) {
      if (auto load = dyn_cast<tile::LoadOp>(op))
        noteAccess(load.getResult(), load.getView().getType(),
                   load.getSqueeze());
      else if (auto store = dyn_cast<tile::StoreOp>(op))
        noteAccess(store.getValue(), store.getView().getType(),
                   store.getSqueeze());
    });
    for (Value root : scalarAccess)
      if (!vectorAccess.contains(root))
        narrowest[root] = 16;
    for (Value v : tiles) {
      auto tensor = cast<RankedTensorType>(v.getType());
      if (tensor.getEncoding())
        continue;
      Value root = classes.find(v);
      Attribute layout = chosen.lookup(root);
      if (!layout)
        layout = tilegpu::BlockedLayoutAttr::getDefault(
            ctx, tensor.getShape(), narrowest.lookup(root), numWarps);
      v.setType(RankedTensorType::get(tensor.getShape(),
                                      tensor.getElementType(), layout));
    }
    // A constant's value carries its type too.
    kernel.walk([&](arith::ConstantOp constant) {
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constant.setValueAttr(
            dense.reshape(cast<ShapedType>(constant.getResult().getType())));
    });
  }
};

} // namespace
