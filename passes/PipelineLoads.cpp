//===- PipelineLoads.cpp - the software pipeline's first two steps --------===//
//
// tilegpu-assign-latencies and tilegpu-schedule-loads (passes/PipelinePlan.h
// has the whole pipeline and the rules they share with the lowering, which
// expands the scheduled loops).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PipelinePlan.h"
#include "passes/TmaPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TILEGPUASSIGNLATENCIES
#define GEN_PASS_DEF_TILEGPUSCHEDULELOADS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// The kernel's `num_stages` hint for the module's target, or 0.
int64_t numStagesHint(func::FuncOp kernel) {
  auto module = kernel->getParentOfType<ModuleOp>();
  auto target = module ? module->getAttrOfType<StringAttr>(
                             tilegpu::TileGPUDialect::getTargetAttrName())
                       : StringAttr();
  auto hints = kernel->getAttrOfType<tile::HintsAttr>(
      tile::TileDialect::getHintsAttrName());
  auto value = hints ? dyn_cast_or_null<IntegerAttr>(hints.lookup(
                           target ? target.getValue() : "sm_90a",
                           "num_stages"))
                     : IntegerAttr();
  return value ? value.getInt() : 0;
}

struct AssignLatencies
    : public tessel::impl::TileGPUAssignLatenciesBase<AssignLatencies> {
  using TileGPUAssignLatenciesBase::TileGPUAssignLatenciesBase;

  void runOnOperation() override {
    Builder builder(&getContext());
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      int64_t stages = numStagesHint(kernel);
      kernel.walk([&](tile::LoadOp load) {
        if (!load->getParentOfType<scf::ForOp>())
          return; // (not in a loop: nothing to say)
        if (std::string problem = pipelineProblem(load); !problem.empty()) {
          if (remarks)
            load->emitRemark("no latency: ") << problem;
          return;
        }
        // The load's own hint, else the kernel's depth, else one iteration
        // (two buffers: measured best for the Mamba-2 kernels on the H200).
        int64_t latency = 1;
        StringRef from = "the default";
        if (IntegerAttr hint = load.getLatencyAttr()) {
          latency = hint.getInt();
          from = "the load's hint";
        } else if (stages > 0) {
          latency = stages - 1;
          from = "the kernel's num_stages";
        }
        if (latency < 1) {
          if (remarks)
            load->emitRemark("no latency: ") << from << " asks for none";
          return;
        }
        load->setAttr(kLatencyAttr, builder.getI64IntegerAttr(latency));
        if (remarks)
          load->emitRemark("latency ") << latency << " (" << from << ")";
      });
    }
  }
};

struct ScheduleLoads
    : public tessel::impl::TileGPUScheduleLoadsBase<ScheduleLoads> {
  using TileGPUScheduleLoadsBase::TileGPUScheduleLoadsBase;

  /// Schedules the loops in `block` with `available` bytes of shared memory
  /// left for their rings; returns what its resident operands keep.
  int64_t scheduleBlock(Block &block, int64_t available) {
    int64_t kept = 0;
    for (Operation &op : block) {
      if (auto load = dyn_cast<tile::LoadOp>(op)) {
        // A loop-invariant TMA operand: its own buffer, live until the
        // block ends.
        if (load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()) &&
            residentOperand(load)) {
          int64_t bytes = ringBufferBytes(load);
          kept += bytes;
          available -= bytes;
        }
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        scheduleLoop(loop, available);
        continue;
      }
      int64_t most = 0;
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          most = std::max(most, scheduleBlock(inner, available));
      kept += most;
      available -= most;
    }
    return kept;
  }

  void scheduleLoop(scf::ForOp loop, int64_t available) {
    Builder builder(&getContext());
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto load = dyn_cast<tile::LoadOp>(op);
      if (!load)
        continue;
      auto latency = load->getAttrOfType<IntegerAttr>(kLatencyAttr);
      if (!latency)
        continue;
      if (std::string problem = pipelineProblem(load); !problem.empty()) {
        if (remarks)
          load->emitRemark("not scheduled: ") << problem;
        continue;
      }
      // First come, first served: as deep as the latency asks, as shallow
      // as the room left allows.
      int64_t bytes = ringBufferBytes(load);
      int64_t distance =
          std::min<int64_t>(latency.getInt(), available / bytes - 1);
      if (distance < 1) {
        if (remarks)
          load->emitRemark("not scheduled: two buffers of ")
              << bytes << " bytes do not fit in the " << available
              << " bytes of shared memory left for rings";
        continue;
      }
      available -= (distance + 1) * bytes;
      load->setAttr(kDistanceAttr, builder.getI64IntegerAttr(distance));
      if (remarks) {
        auto remark = load->emitRemark("issued ")
                      << distance << " iteration" << (distance > 1 ? "s" : "")
                      << " ahead (" << distance + 1 << " buffers of " << bytes
                      << " bytes)";
        if (distance < latency.getInt())
          remark << "; latency " << latency.getInt()
                 << " cut to fit in shared memory";
      }
    }
    (void)scheduleBlock(*loop.getBody(), available);
  }

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>())
      for (Block &block : kernel.getBody())
        (void)scheduleBlock(block, kRingBudgetBytes);
  }
};

} // namespace
