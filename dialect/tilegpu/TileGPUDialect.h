//===- TileGPUDialect.h - the tilegpu dialect -------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TILEGPU_TILEGPUDIALECT_H
#define TESSEL_DIALECT_TILEGPU_TILEGPUDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/tilegpu/TileGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/tilegpu/TileGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/tilegpu/TileGPUOps.h.inc"

namespace tessel::tilegpu {

/// The layout of a distributed tile (the encoding of its tensor type).
BlockedLayoutAttr getLayout(mlir::Type type);

/// Where each register of a thread sits in a tile: for register r, the tile
/// coordinate is `lane/warp-dependent base` + `regOffsets[r]` (then wrapped
/// modulo the shape). Computed once per (layout, shape).
struct Distribution {
  llvm::SmallVector<int64_t> shape;
  BlockedLayoutAttr layout;
  /// Registers per thread.
  int64_t numRegisters = 0;
  /// Per register, the coordinate offset within the thread's pattern.
  llvm::SmallVector<llvm::SmallVector<int64_t>> regOffsets;
  /// Per dimension: elements per CTA tile along it.
  llvm::SmallVector<int64_t> ctaTile;

  Distribution(llvm::ArrayRef<int64_t> shape, BlockedLayoutAttr layout);
};

} // namespace tessel::tilegpu

#endif // TESSEL_DIALECT_TILEGPU_TILEGPUDIALECT_H
