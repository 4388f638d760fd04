//===- Match.h - small IR predicates the passes share -----------*- C++ -*-===//

#ifndef TESSEL_PASSES_MATCH_H
#define TESSEL_PASSES_MATCH_H

#include "dialect/tile/TileOps.h"

namespace tessel {

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
