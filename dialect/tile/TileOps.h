//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TILE_TILEOPS_H
#define TESSEL_DIALECT_TILE_TILEOPS_H

#include "dialect/tile/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::tile {
/// The L2 cache as a side-effect resource (tile.prefetch writes it; nothing
/// a load or store observes aliases it).
struct L2CacheResource
    : public ::mlir::SideEffects::Resource::Base<L2CacheResource> {
  ::llvm::StringRef getName() final { return "tile.L2Cache"; }
};
} // namespace tessel::tile

#define GET_OP_CLASSES
#include "dialect/tile/TileOps.h.inc"

#endif // TESSEL_DIALECT_TILE_TILEOPS_H
