//===- TileDialect.td - the tile dialect ------------------------*- tablegen -*-===//
//
// The target-independent tile dialect: whole-tile loads, stores, tensor-core
// products, scans and shape changes on builtin ranked tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TILE_DIALECT
#define TESSEL_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tessel::tile";
  let summary = "Target-independent tile programming on ranked tensors";
  let description = [{
    A tile kernel is a `func.func` whose arguments are global-memory views
    (`!tile.view`) and scalars. Each program of the launch grid reads tiles out
    of views (`tile.load`), computes on them with `arith`, `math`, `scf` and the
    ops of this dialect, and writes tiles back (`tile.store`). Tile values are
    builtin ranked tensors with static, power-of-two shapes; the compiler picks
    threads, layouts, shared memory and instructions.

    Kernel-wide hints (`num_warps`, `occupancy`, `cluster`, `num_stages`) are a
    `#tile.hints` attribute keyed by target, attached to the kernel function as
    `tile.hints`.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let extraClassDeclaration = [{
    /// Registers !tile.view (defined in TileTypes.cpp, beside its storage).
    void registerTypes();
    /// Name of the discardable kernel attribute holding a `#tile.hints`.
    static constexpr ::llvm::StringLiteral getHintsAttrName() {
      return ::llvm::StringLiteral("tile.hints");
    }
    /// Name of the discardable kernel attribute recording the compile-time
    /// constants (a dictionary of integers) the kernel was traced with.
    static constexpr ::llvm::StringLiteral getConfigAttrName() {
      return ::llvm::StringLiteral("tile.config");
    }
    /// Name of the argument attribute recording a kernel parameter's name.
    static constexpr ::llvm::StringLiteral getArgNameAttrName() {
      return ::llvm::StringLiteral("tile.name");
    }
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TESSEL_TILE_DIALECT
