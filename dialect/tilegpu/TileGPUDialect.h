//===- TileGPUDialect.h - the tilegpu dialect -------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TILEGPU_TILEGPUDIALECT_H
#define TESSEL_DIALECT_TILEGPU_TILEGPUDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/tilegpu/TileGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/tilegpu/TileGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/tilegpu/TileGPUOps.h.inc"

namespace tessel::tilegpu {

/// The layout of a distributed tile (the encoding of its tensor type): a
/// BlockedLayoutAttr, an MmaLayoutAttr or a SliceLayoutAttr of one; null when
/// it has none.
mlir::Attribute getLayout(mlir::Type type);
/// The blocked layout of a tile, or null.
BlockedLayoutAttr getBlockedLayout(mlir::Type type);
/// Warps a layout spreads over (0 for an unknown attribute).
unsigned getNumWarps(mlir::Attribute layout);
/// Dimensions of the tiles a layout describes (-1 for an unknown attribute).
int64_t getLayoutRank(mlir::Attribute layout);

/// For a reshape that only inserts or removes dimensions of size 1: per
/// result dimension, the source dimension it is (-1 for an inserted one).
/// None when the reshape moves elements between dimensions.
std::optional<llvm::SmallVector<int64_t>>
alignUnitDims(llvm::ArrayRef<int64_t> source, llvm::ArrayRef<int64_t> result);

/// Where each register of a thread sits in a tile, for any layout: the lane
/// and the warp are split into coordinates along the dimensions of the root
/// layout (the layout with its slices undone: fastest dimension first, as
/// `order` lists them, `threadsPerWarp` / `warpsPerCTA` ids per dimension);
/// along tile dimension d (root dimension `dimMap[d]`) the running thread's
/// pattern starts at `laneCoord * laneScale + warpCoord * warpScale`, and
/// register r sits at that base plus `regOffsets[r]`, wrapped modulo the
/// shape when a CTA tile is larger than the tile (then several threads hold
/// each element). Computed once per (layout, shape).
struct Distribution {
  llvm::SmallVector<int64_t> shape;
  mlir::Attribute layout;
  /// The layout with its slices undone, and per tile dimension its
  /// dimension there. Two tiles whose layouts share a root and whose
  /// dimensions map to the same root dimensions (with equal sizes) are held
  /// by the same threads at the same coordinates.
  mlir::Attribute root;
  llvm::SmallVector<unsigned> dimMap;
  /// Non-null when `layout` is blocked (paths that rely on its structure).
  BlockedLayoutAttr blocked;
  /// Registers per thread.
  int64_t numRegisters = 0;
  /// Per register, the coordinate offset within the thread's pattern.
  llvm::SmallVector<llvm::SmallVector<int64_t>> regOffsets;
  /// Per tile dimension: elements per CTA tile along it.
  llvm::SmallVector<int64_t> ctaTile;
  /// Per root dimension: lane and warp ids, and the elements between
  /// neighbours.
  llvm::SmallVector<unsigned> threadsPerWarp, warpsPerCTA, order;
  llvm::SmallVector<int64_t> laneScale, warpScale;
  /// Consecutive registers r, r+1, ... r+vectorWidth-1 (r a multiple of it)
  /// are consecutive elements along the last dimension.
  int64_t vectorWidth = 1;

  Distribution(llvm::ArrayRef<int64_t> shape, mlir::Attribute layout);
};

} // namespace tessel::tilegpu

#endif // TESSEL_DIALECT_TILEGPU_TILEGPUDIALECT_H
