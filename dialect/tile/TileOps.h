//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_TILE_TILEOPS_H
#define TESSEL_DIALECT_TILE_TILEOPS_H

#include "dialect/tile/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialect/tile/TileOps.h.inc"

#endif // TESSEL_DIALECT_TILE_TILEOPS_H
