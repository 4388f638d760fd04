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
#include "passes/Match.h"
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
  using TileGPUInsertTmaBase::TileGPUInsertTmaBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    UnitAttr unit = UnitAttr::get(&getContext());
    StringRef name = tilegpu::TileGPUDialect::getTmaAttrName();
    auto decide = [&](Operation *op, const std::string &problem) {
      if (problem.empty())
        op->setAttr(name, unit);
      if (!remarks)
        return;
      if (problem.empty())
        op->emitRemark("copied by the TMA");
      else
        op->emitRemark("not copied by the TMA: ") << problem;
    };
    for (auto kernel : module.getOps<func::FuncOp>()) {
      kernel.walk([&](tile::StoreOp store) {
        if (store.getTma())
          decide(store, tmaStoreProblem(store));
      });
      kernel.walk([&](tile::LoadOp load) { decide(load, tmaLoadProblem(load)); });
      // Among the TMA's loads, those the cluster's CTAs may share (hint
      // multicast; remarks only where the kernel asks for it).
      IntegerAttr multicast = kernelHint(kernel, targetOf(kernel), "multicast");
      if (!multicast || multicast.getInt() != 1)
        continue;
      int64_t ctas = clusterCtas(kernel);
      kernel.walk([&](tile::LoadOp load) {
        if (!load->hasAttr(name))
          return;
        std::string problem = multicastProblem(load);
        if (problem.empty())
          load->setAttr(tilegpu::TileGPUDialect::getMulticastAttrName(),
                        IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                         ctas));
        if (!remarks)
          return;
        if (problem.empty())
          load.emitRemark("multicast to the cluster's ") << ctas << " CTAs";
        else
          load.emitRemark("not multicast: ") << problem;
      });
    }
  }
};

} // namespace
