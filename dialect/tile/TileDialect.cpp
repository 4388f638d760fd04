//===- TileDialect.cpp - tile dialect registration and attributes --------===//

#include "dialect/tile/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel::tile;

#include "dialect/tile/TileDialect.cpp.inc"
#include "dialect/tile/TileEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialect/tile/TileAttrs.cpp.inc"

void tessel::tile::printLocationPrefix(llvm::raw_ostream &os, Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn() << ": ";
  else
    os << loc << ": ";
}

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/tile/TileOps.cpp.inc"
      >();
  registerTypes();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/tile/TileAttrs.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// #tile.hints
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> HintsAttr::getKnownTargets() {
  static const StringRef keys[] = {"sm_90a", "sm_100a", "sm_103a", "default"};
  return keys;
}

Attribute HintsAttr::lookup(StringRef target, StringRef name) const {
  for (StringRef key : {target, StringRef("default")}) {
    auto entry = dyn_cast_or_null<DictionaryAttr>(getEntries().get(key));
    if (!entry)
      continue;
    if (Attribute value = entry.get(name))
      return value;
  }
  return {};
}

static LogicalResult verifyHint(function_ref<InFlightDiagnostic()> emitError,
                                StringRef target, NamedAttribute hint) {
  StringRef name = hint.getName().getValue();
  auto intHint = [&](int64_t lo, int64_t hi, bool pow2) -> LogicalResult {
    auto value = dyn_cast<IntegerAttr>(hint.getValue());
    // `true` is an i1 IntegerAttr; it must not read as -1.
    if (!value || !value.getType().isSignlessInteger() ||
        value.getType().isInteger(1))
      return emitError() << "hint '" << name << "' of target '" << target
                         << "' must be an integer";
    // Compared as an APInt: an i128 hint must not be truncated to 64 bits.
    const APInt &v = value.getValue();
    if (v.slt(lo) || v.sgt(hi) || (pow2 && !v.isPowerOf2()))
      return emitError() << "hint '" << name << "' of target '" << target
                         << "' must be " << (pow2 ? "a power of two " : "")
                         << "in [" << lo << ", " << hi << "], got "
                         << llvm::toString(v, 10, /*Signed=*/true);
    return success();
  };
  if (name == "num_warps")
    return intHint(1, 32, /*pow2=*/true);
  if (name == "occupancy")
    return intHint(1, 32, /*pow2=*/false);
  if (name == "num_stages")
    return intHint(1, 8, /*pow2=*/false);
  if (name == "tcgen05_tmem_acc" || name == "wgmma_defer_wait")
    return intHint(0, 2, /*pow2=*/false);
  if (name == "wgmma" || name == "wgmma_register_a" || name == "tcgen05" ||
      name == "tcgen05_tmem_a" || name == "pdl" ||
      name == "route_mma_operands" || name == "persistent" ||
      name == "prologue_ahead" || name == "prologue_early" ||
      name == "refresh_in_loops" || name == "warp_specialize" || name == "tma_register_loads" ||
      name == "ring_barrier_per_load" || name == "stmatrix" ||
      name == "row_fragments" || name == "wgmma_interleave" ||
      name == "early_copies" || name == "multicast" ||
      name == "operand_in_place")
    return intHint(0, 1, /*pow2=*/false);
  if (name == "producer_registers") {
    if (failed(intHint(24, 256, /*pow2=*/false)))
      return failure();
    if (cast<IntegerAttr>(hint.getValue()).getInt() % 8)
      return emitError() << "hint 'producer_registers' of target '" << target
                         << "' must be a multiple of 8 (setmaxnreg)";
    return success();
  }
  if (name == "prefetch_registers")
    return intHint(0, 255, /*pow2=*/false);
  if (name == "ring_slots")
    return intHint(0, 16, /*pow2=*/false);
  if (name == "cluster") {
    auto dims = dyn_cast<DenseI64ArrayAttr>(hint.getValue());
    if (!dims || dims.empty() || dims.size() > 3)
      return emitError() << "hint 'cluster' of target '" << target
                         << "' must be an array<i64> of 1 to 3 sizes";
    // Saturating, so that huge sizes cannot wrap around to a small product.
    uint64_t product = 1;
    for (int64_t d : dims.asArrayRef()) {
      if (d < 1)
        return emitError() << "hint 'cluster' of target '" << target
                           << "' has a non-positive size " << d;
      product = llvm::SaturatingMultiply(product, static_cast<uint64_t>(d));
    }
    // 8: the portable cluster size, which the runtime launches (16 would
    // need the non-portable opt-in, which it does not set).
    if (product > 8)
      return emitError() << "hint 'cluster' of target '" << target
                         << "' asks for " << product
                         << " CTAs per cluster; at most 8 (the portable "
                            "cluster size) are supported";
    return success();
  }
  return emitError()
         << "unknown hint '" << name << "' for target '" << target
         << "' (known: num_warps, occupancy, num_stages, "
            "cluster, wgmma, wgmma_register_a, tcgen05, "
            "tcgen05_tmem_a, tcgen05_tmem_acc, pdl, route_mma_operands, "
            "prefetch_registers, persistent, prologue_ahead, prologue_early, "
            "refresh_in_loops, "
            "warp_specialize, producer_registers, ring_slots, "
            "tma_register_loads, ring_barrier_per_load, stmatrix, "
            "row_fragments, wgmma_interleave, wgmma_defer_wait, early_copies, "
            "multicast, operand_in_place)";
}

LogicalResult HintsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                DictionaryAttr entries) {
  for (NamedAttribute entry : entries) {
    StringRef target = entry.getName().getValue();
    if (!llvm::is_contained(getKnownTargets(), target))
      return emitError()
             << "unknown target '" << target
             << "' in hints (known: sm_90a, sm_100a, sm_103a, default)";
    auto hints = dyn_cast<DictionaryAttr>(entry.getValue());
    if (!hints)
      return emitError() << "hints of target '" << target
                         << "' must be a dictionary";
    for (NamedAttribute hint : hints)
      if (failed(verifyHint(emitError, target, hint)))
        return failure();
  }
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getHintsAttrName()) {
    if (!isa<HintsAttr>(attr.getValue()))
      return op->emitError() << "'" << getHintsAttrName()
                             << "' must be a #tile.hints attribute";
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << getHintsAttrName()
                             << "' may only be attached to a kernel function";
    return success();
  }
  if (attr.getName() == getConfigAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict || !llvm::all_of(dict, [](NamedAttribute entry) {
          return isa<IntegerAttr>(entry.getValue());
        }))
      return op->emitError() << "'" << getConfigAttrName()
                             << "' must be a dictionary of integers";
    return success();
  }
  return op->emitError() << "unknown tile dialect attribute '"
                         << attr.getName().getValue() << "'";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == getArgNameAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << getArgNameAttrName() << "' of argument #"
                             << argIndex << " must be a string";
    return success();
  }
  return op->emitError() << "unknown tile dialect argument attribute '"
                         << attr.getName().getValue() << "'";
}

// No tile.* attribute is defined on function results; without this hook MLIR
// would accept (and silently ignore) a misspelled or misplaced one.
LogicalResult TileDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  return op->emitError() << "unknown tile dialect result attribute '"
                         << attr.getName().getValue() << "' on result #"
                         << resultIndex;
}
