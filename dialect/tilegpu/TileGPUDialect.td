//===- TileGPUDialect.td - the tilegpu dialect ------------------*- tablegen -*-===//
//
// Target-specific tiles: how each tile is distributed over the threads of a
// CTA (layouts, carried as the encoding of the tile's tensor type), and the
// ops that move tiles between layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TILEGPU_DIALECT
#define TESSEL_TILEGPU_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::tessel::tilegpu";
  let summary = "Distributed tiles: layouts over lanes, warps and registers";
  let useDefaultAttributePrinterParser = 1;
  // The attributes that passes write and later passes read back as
  // integers or strings are checked where they are attached.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Module attribute naming the target being compiled for ("sm_90a").
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("tilegpu.target");
    }
    /// Kernel attribute: warps per CTA chosen for the kernel.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return ::llvm::StringLiteral("tilegpu.num_warps");
    }
    /// Module attribute (unit): the target has warpgroup MMA.
    static constexpr ::llvm::StringLiteral getWgmmaAvailableAttrName() {
      return ::llvm::StringLiteral("tilegpu.wgmma_available");
    }
    /// Module attribute (unit): the target has the tensor memory accelerator
    /// (cp.async.bulk.tensor with mbarrier completion).
    static constexpr ::llvm::StringLiteral getTmaAvailableAttrName() {
      return ::llvm::StringLiteral("tilegpu.tma_available");
    }
    /// Module attribute (unit): the target has the fifth-generation tensor
    /// cores (tcgen05.mma with accumulators in tensor memory).
    static constexpr ::llvm::StringLiteral getTcgen05AvailableAttrName() {
      return ::llvm::StringLiteral("tilegpu.tcgen05_available");
    }
    /// Kernel attribute (unit): tile.mma may use wgmma.mma_async.
    static constexpr ::llvm::StringLiteral getWgmmaAttrName() {
      return ::llvm::StringLiteral("tilegpu.wgmma");
    }
    /// tile.load / tile.store attribute (unit), set by tilegpu-insert-tma:
    /// the TMA copies this tile (passes/TmaPlan.h has the rules).
    static constexpr ::llvm::StringLiteral getTmaAttrName() {
      return ::llvm::StringLiteral("tilegpu.tma");
    }
    /// tile.load attribute (i64: the cluster's CTAs), set by
    /// tilegpu-insert-tma on a TMA load whose tile is the same in every CTA
    /// of the kernel's cluster (hint `multicast`): the lowering may copy it
    /// once for the cluster, each CTA issuing a slice of its rows into
    /// every CTA's shared memory (cp.async.bulk.tensor .multicast::cluster).
    static constexpr ::llvm::StringLiteral getMulticastAttrName() {
      return ::llvm::StringLiteral("tilegpu.multicast");
    }
    /// Kernel attribute (unit): tile.mma may use tcgen05.mma.
    static constexpr ::llvm::StringLiteral getTcgen05AttrName() {
      return ::llvm::StringLiteral("tilegpu.tcgen05");
    }
  }];
}

def TileGPU_BlockedLayout : AttrDef<TileGPU_Dialect, "BlockedLayout"> {
  let mnemonic = "blocked";
  let summary = "A tile split into equal blocks over registers, lanes, warps";
  let description = [{
    Along each dimension `d` a thread holds `sizePerThread[d]` consecutive
    elements; `threadsPerWarp[d]` lanes and `warpsPerCTA[d]` warps tile the
    dimension next to each other; the resulting CTA tile
    (`sizePerThread * threadsPerWarp * warpsPerCTA`) repeats to cover a larger
    tile, and wraps around a smaller one (several threads then hold the same
    element). `order` lists dimensions from fastest- to slowest-varying when
    lane and warp ids are split over dimensions.

    ```mlir
    tensor<256x16xf32, #tilegpu.blocked<sizePerThread = [1, 4],
        threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    unsigned getNumWarps() const;
    /// The default layout for a tile of `shape` with `elementBytes`-byte
    /// elements over `numWarps` warps: up to 16 bytes per thread along the
    /// last dimension (vector memory access), lanes then warps along the
    /// dimensions from the last.
    static BlockedLayoutAttr getDefault(::mlir::MLIRContext *ctx,
                                        ::llvm::ArrayRef<int64_t> shape,
                                        unsigned elementBytes,
                                        unsigned numWarps);
  }];
}

def TileGPU_MmaLayout : AttrDef<TileGPU_Dialect, "MmaLayout"> {
  let mnemonic = "mma";
  let summary = "The accumulator of mma.sync m16n8 spread over warps, or "
                "its transpose";
  let description = [{
    A 2-D tile held the way `mma.sync.aligned.m16n8kK` keeps its f32
    accumulator: warp (wm, wn) of the `warpsPerCTA` grid (warps numbered with
    wn fastest) owns the 16x8 blocks at rows `16 * wm + 16 * warpsPerCTA[0] *
    i` and columns `8 * wn + 8 * warpsPerCTA[1] * j`; in each block lane l
    holds rows `l / 4` and `l / 4 + 8`, columns `2 * (l % 4)` and the one after
    (the PTX ISA's c0..c3). A tile in this layout feeds and receives
    `tile.mma` with no data movement, so accumulators stay in registers across
    loop iterations; every elementwise op, load and store works on it as on
    any layout.

    With `transposed = true` the tile is the transpose of one in the layout
    without it: element (i, j) sits where the untransposed layout puts
    (j, i). A register-computed tile whose transpose is an mma's A operand
    takes it (tilegpu-assign-layouts), so that the `tile.permute` to A renames
    registers instead of moving data (the A fragments of m16n8k16, which the
    warpgroup MMA takes from registers and tcgen05 from tensor memory).

    ```mlir
    tensor<64x64xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
    tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                    DefaultValuedParameter<"bool", "false">:$transposed);
  let assemblyFormat = [{
    `<` `warpsPerCTA` `=` `[` $warpsPerCTA `]`
        (`,` `transposed` `=` $transposed^)? `>`
  }];
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<unsigned>":$warpsPerCTA), [{
      return $_get($_ctxt, warpsPerCTA, false);
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() const {
      return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
    }
    /// The layout for an M x N accumulator over `numWarps` warps: the split
    /// that re-reads the least of A and B; with `warpgroups`, warps along M
    /// only ([numWarps, 1], the accumulator of wgmma.mma_async, whose warp
    /// w holds rows 16 w .. 16 w + 15 of its 64) when the tile allows it.
    /// Null when the tile is not made of whole 16x8 blocks for every warp.
    static MmaLayoutAttr choose(::mlir::MLIRContext *ctx, int64_t M,
                                int64_t N, unsigned numWarps,
                                bool warpgroups = false);
    /// Whether an M x N accumulator in this layout can be computed by
    /// wgmma.mma_async (m64nNk16 per warpgroup).
    bool fitsWgmma(int64_t M, int64_t N) const {
      unsigned w = getWarpsPerCTA()[0];
      return !getTransposed() && getWarpsPerCTA()[1] == 1 && w % 4 == 0 &&
             M % (16 * w) == 0 && N % 8 == 0 && N <= 256;
    }
    /// The same warps with `transposed` flipped: the layout of the
    /// transpose of a tile in this one.
    MmaLayoutAttr getTransposedLayout() const {
      return MmaLayoutAttr::get(getContext(), getWarpsPerCTA(),
                                !getTransposed());
    }
  }];
}

def TileGPU_SliceLayout : AttrDef<TileGPU_Dialect, "SliceLayout"> {
  let mnemonic = "slice";
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The tile is the parent's tile with dimension `dim` taken away: a thread
    holds the elements whose other coordinates the parent gives it, whatever
    its lane or warp along `dim` (those threads hold copies). A row of
    per-token values in `#tilegpu.slice<dim = 1, parent = #mma>` sits in the
    threads that hold the matching rows of an `#mma` tile, so reshaping it to
    a column and broadcasting it over the tile moves no data.

    ```mlir
    tensor<64xf32, #tilegpu.slice<dim = 1,
        parent = #tilegpu.mma<warpsPerCTA = [2, 2]>>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure]> {
  let summary = "move a tile to another layout";
  let description = [{
    The same tile, distributed with the layout of the result type's encoding.
    Lowered through shared memory.
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

#endif // TESSEL_TILEGPU_DIALECT
