//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TILE_TILEDIALECT_H
#define TESSEL_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "dialect/tile/TileDialect.h.inc"

#include "dialect/tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/tile/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/tile/TileTypes.h.inc"

namespace tessel::tile {
/// Writes the prefix tessel's tools put before a diagnostic: "file:line:col: "
/// for a source location (a traced kernel's DSL line), else the location as
/// MLIR prints it and ": ".
void printLocationPrefix(llvm::raw_ostream &os, mlir::Location loc);
/// Element types a view may hold: what the kernels read and write (bf16,
/// f16, f32, f64, i8, i16, i32, i64).
bool isViewElementType(mlir::Type type);
} // namespace tessel::tile

#endif // TESSEL_DIALECT_TILE_TILEDIALECT_H
