//===- AssignLayouts.cpp - --tilegpu-assign-layouts
//------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TILEGPUASSIGNLAYOUTS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// Warps for `kernel` on `target`: its hint, else 4.
unsigned numWarpsFor(func::FuncOp kernel, StringRef target) {
  auto hints = kernel->getAttrOfType<tile::HintsAttr>(
      tile::TileDialect::getHintsAttrName());
  if (hints)
    if (auto value =
            dyn_cast_or_null<IntegerAttr>(hints.lookup(target, "num_warps")))
      return static_cast<unsigned>(value.getInt());
  return 4;
}

Type withLayout(Type type, unsigned numWarps) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  // A rank-0 tile is one value every thread holds: no layout to choose.
  if (!tensor || tensor.getEncoding() || tensor.getRank() == 0)
    return type;
  Type element = tensor.getElementType();
  // The layout depends on the shape only, so that elementwise ops mixing
  // element types (compares, selects, casts) find their operands' registers
  // in the same places: 4 elements per thread along the last dimension.
  auto layout = tilegpu::BlockedLayoutAttr::getDefault(
      type.getContext(), tensor.getShape(), /*elementBytes=*/4, numWarps);
  return RankedTensorType::get(tensor.getShape(), element, layout);
}

struct AssignLayouts
    : public tessel::impl::TileGPUAssignLayoutsBase<AssignLayouts> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto targetAttr = module->getAttrOfType<StringAttr>(
        tilegpu::TileGPUDialect::getTargetAttrName());
    StringRef target = targetAttr ? targetAttr.getValue() : "sm_90a";
    for (auto kernel : module.getOps<func::FuncOp>()) {
      unsigned numWarps = numWarpsFor(kernel, target);
      kernel->setAttr(tilegpu::TileGPUDialect::getNumWarpsAttrName(),
                      Builder(kernel).getI64IntegerAttr(numWarps));
      // Tile types appear as op results and region arguments (loops); the
      // kernel's own arguments are views and scalars.
      kernel.walk([&](Operation *op) {
        for (Value result : op->getResults())
          result.setType(withLayout(result.getType(), numWarps));
        // A constant's value carries its type too.
        if (auto constant = dyn_cast<arith::ConstantOp>(op))
          if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
            constant.setValueAttr(dense.reshape(
                cast<ShapedType>(constant.getResult().getType())));
        for (Region &region : op->getRegions())
          for (Block &block : region)
            for (BlockArgument arg : block.getArguments())
              arg.setType(withLayout(arg.getType(), numWarps));
      });
    }
  }
};

} // namespace
