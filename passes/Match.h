//===- Match.h - small IR predicates the passes share -----------*- C++ -*-===//

#ifndef TESSEL_PASSES_MATCH_H
#define TESSEL_PASSES_MATCH_H

#include "dialect/tile/TileOps.h"
#include "dialect/tilegpu/TileGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {

/// tilegpu-persistent-grid's marks: on a kernel it rewrote (its last three
/// parameters are the logical grid, i32 each), and on the loop over the
/// logical programs it wrapped the body in.
inline constexpr llvm::StringLiteral kPersistentAttr = "tilegpu.persistent";
inline constexpr llvm::StringLiteral kProgramLoopAttr = "tilegpu.program_loop";
/// The `tile.name`s of the three logical-grid parameters it appends.
inline constexpr llvm::StringLiteral kGridArgNames[] = {"grid_x", "grid_y",
                                                        "grid_z"};

/// The target `op`'s module is compiled for (`tilegpu.target`), or sm_90a.
inline llvm::StringRef targetOf(mlir::Operation *op) {
  auto module = mlir::isa<mlir::ModuleOp>(op)
                    ? mlir::cast<mlir::ModuleOp>(op)
                    : op->getParentOfType<mlir::ModuleOp>();
  auto target = module ? module->getAttrOfType<mlir::StringAttr>(
                             tilegpu::TileGPUDialect::getTargetAttrName())
                       : mlir::StringAttr();
  return target ? target.getValue() : "sm_90a";
}

/// The hint `name` of `kernel` for `target` (its entry, else `default`) as
/// a `T`, or null.
template <class T>
T kernelHintAs(mlir::func::FuncOp kernel, llvm::StringRef target,
               llvm::StringRef name) {
  auto hints = kernel->getAttrOfType<tile::HintsAttr>(
      tile::TileDialect::getHintsAttrName());
  return hints ? mlir::dyn_cast_or_null<T>(hints.lookup(target, name)) : T();
}

/// The integer hint `name` of `kernel` for `target`, or null.
inline mlir::IntegerAttr kernelHint(mlir::func::FuncOp kernel,
                                    llvm::StringRef target,
                                    llvm::StringRef name) {
  return kernelHintAs<mlir::IntegerAttr>(kernel, target, name);
}

/// A 2-D transpose: tile.permute [1, 0].
inline bool isTranspose(tile::PermuteOp op) {
  return op && op.getPerm().size() == 2 && op.getPerm()[0] == 1 &&
         op.getPerm()[1] == 0;
}

/// An arith or math op with operands, one result and no regions: on tiles,
/// the same operation element by element (a constant is not one).
inline bool isElementwise(mlir::Operation *op) {
  mlir::Dialect *dialect = op->getDialect();
  return dialect && op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         op->getNumOperands() > 0 &&
         (dialect->getNamespace() == "arith" ||
          dialect->getNamespace() == "math");
}

} // namespace tessel

#endif // TESSEL_PASSES_MATCH_H
