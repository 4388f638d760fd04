//===- InsertTma.cpp - --tilegpu-insert-tma -------------------------------===//
//
// Decides which loads and stores the tensor memory accelerator copies and
// marks them `tilegpu.tma`; convert-tilegpu-to-llvm then builds one tensor
// map per (view, box, direction), copies those tiles with
// cp.async.bulk.tensor into (or out of) swizzled shared memory completing
// on mbarriers, and exports the table the runtime encodes the maps from.
// The rules (passes/TmaPlan.h) are shared with the lowering, which rejects a
// mark they do not allow.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/TmaPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TILEGPUINSERTTMA
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

struct InsertTma : public tessel::impl::TileGPUInsertTmaBase<InsertTma> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module->hasAttr(tilegpu::TileGPUDialect::getTmaAvailableAttrName()))
      return;
    UnitAttr unit = UnitAttr::get(&getContext());
    StringRef name = tilegpu::TileGPUDialect::getTmaAttrName();
    for (auto kernel : module.getOps<func::FuncOp>()) {
      kernel.walk([&](tile::StoreOp store) {
        if (tmaStoreProblem(store).empty())
          store->setAttr(name, unit);
      });
      kernel.walk([&](tile::LoadOp load) {
        if (tmaLoadProblem(load).empty())
          load->setAttr(name, unit);
      });
    }
  }
};

} // namespace
