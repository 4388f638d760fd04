//===- PipelineLoads.cpp - the software pipeline's first two steps --------===//
//
// tilegpu-assign-latencies and tilegpu-schedule-loads (passes/PipelinePlan.h
// has the whole pipeline and the rules they share with the lowering, which
// expands the scheduled loops).
//
//===----------------------------------------------------------------------===//

#include "passes/Match.h"
#include "passes/Passes.h"
#include "passes/PipelinePlan.h"
#include "passes/TmaPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MathExtras.h"

namespace tessel {
#define GEN_PASS_DEF_TILEGPUASSIGNLATENCIES
#define GEN_PASS_DEF_TILEGPUSCHEDULELOADS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// The kernel's integer hint `name` for the module's target, or 0.
int64_t hintOrZero(func::FuncOp kernel, StringRef name) {
  IntegerAttr value = kernelHint(kernel, targetOf(kernel), name);
  return value ? value.getInt() : 0;
}

struct AssignLatencies
    : public tessel::impl::TileGPUAssignLatenciesBase<AssignLatencies> {
  using TileGPUAssignLatenciesBase::TileGPUAssignLatenciesBase;

  void runOnOperation() override {
    Builder builder(&getContext());
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      int64_t stages = hintOrZero(kernel, "num_stages");
      int64_t registers = hintOrZero(kernel, "prefetch_registers");
      kernel.walk([&](tile::LoadOp load) {
        if (!load->getParentOfType<scf::ForOp>())
          return; // (not in a loop: nothing to say)
        // Into shared memory (an mma's operand), or into registers the loop
        // carries (within the kernel's prefetch_registers).
        std::string problem = pipelineProblem(load);
        if (!problem.empty() && !stagedLoad(load))
          problem = registers > 0
                        ? registerPipelineProblem(load)
                        : "a tile into registers, and the kernel's "
                          "prefetch_registers hint is 0 or absent";
        if (!problem.empty()) {
          if (remarks)
            load->emitRemark("no latency: ") << problem;
          return;
        }
        // The load's own hint, else the kernel's depth (of rings: a load
        // into registers is governed by prefetch_registers), else one
        // iteration (two buffers: measured best for the Mamba-2 kernels on
        // the H200).
        int64_t latency = 1;
        StringRef from = "the default";
        if (IntegerAttr hint = load.getLatencyAttr()) {
          latency = hint.getInt();
          from = "the load's hint";
        } else if (stages > 0 && stagedLoad(load)) {
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

  /// Schedules the loops in `block`, whose buffers go from `used` bytes of
  /// the rings' shared memory on: a loop-invariant TMA operand's buffer
  /// lives until its block ends, a loop's rings while the loop runs, and
  /// the buffers in a branch until the branch ends (as the lowering
  /// allocates them: offsets aligned the same way, sizes bounded from
  /// above, so that every offset here is at least the lowering's).
  void scheduleBlock(Block &block, int64_t used) {
    for (Operation &op : block) {
      if (auto load = dyn_cast<tile::LoadOp>(op)) {
        if (load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName()) &&
            residentOperand(load))
          used = llvm::alignTo(used, 1024) + ringBufferBytes(load);
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (scheduledEarly.contains(loop))
          continue; // (with its anchor: earlyPrologues)
        // The loops whose prologue goes out where this one starts keep
        // their prologues' buffers below its rings until they start; what
        // follows in the block goes above them too.
        if (int64_t kept = earlyPrologues(loop, used))
          used = llvm::alignTo(used, 1024) + kept;
        scheduleLoop(loop, used);
        // A loop whose prologue will be issued ahead (runOnOperation marks
        // it by the same test) keeps that prologue's buffers until the
        // enclosing body ends: what follows it there goes above them.
        if (isa<scf::ForOp>(block.getParentOp()) &&
            hintOrZero(loop->getParentOfType<func::FuncOp>(),
                       "prologue_ahead") &&
            prologueAheadProblem(loop).empty())
          used = llvm::alignTo(used, 1024) + keptPrologueBytes(loop);
        continue;
      }
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          scheduleBlock(inner, used);
    }
  }

  /// Loops scheduled where their anchor stands (earlyPrologues).
  llvm::DenseSet<Operation *> scheduledEarly;

  /// With the kernel hint prologue_early, the loops whose anchor
  /// (earlyAnchorProblem) is `anchor`, scheduled first, from `used` (their
  /// rings lie at the bottom, where the lowering puts them), and marked
  /// kPrologueEarlyAttr where prologueEarlyProblem allows; returns at most
  /// the bytes of their prologues' buffers (kept while the anchor runs: the
  /// largest, as they lie on different paths). A candidate that cannot
  /// have its prologue early loses the distances given here and is
  /// scheduled where it stands, above those buffers.
  int64_t earlyPrologues(scf::ForOp anchor, int64_t used) {
    if (!hintOrZero(anchor->getParentOfType<func::FuncOp>(), "prologue_early"))
      return 0;
    SmallVector<scf::ForOp> candidates;
    for (Operation *op = anchor->getNextNode(); op; op = op->getNextNode())
      op->walk([&](scf::ForOp loop) {
        EarlyPrologue early;
        if (earlyAnchorProblem(loop, &early).empty() && early.anchor == anchor)
          candidates.push_back(loop);
      });
    int64_t kept = 0;
    UnitAttr unit = UnitAttr::get(&getContext());
    auto unschedule = [](scf::ForOp loop) {
      loop.walk([](tile::LoadOp load) { load->removeAttr(kDistanceAttr); });
    };
    for (scf::ForOp loop : candidates) {
      // (Tried without remarks; scheduled again with them where it is
      // early, the same way: where it stands otherwise.)
      bool saved = remarks;
      remarks = false;
      scheduleLoop(loop, used);
      remarks = saved;
      bool early = prologueEarlyProblem(loop).empty();
      unschedule(loop);
      if (!early)
        continue;
      scheduleLoop(loop, used);
      loop->setAttr(kPrologueEarlyAttr, unit);
      scheduledEarly.insert(loop);
      kept = std::max(kept, keptPrologueBytes(loop));
    }
    return kept;
  }

  /// At most the bytes of `loop`'s rings the lowering keeps taken after
  /// the loop when its prologue is issued ahead: the prologue's stages (its
  /// rings laid out stage by stage) where every load is issued as far
  /// ahead, else the whole rings (with a spare buffer each where the
  /// kernel may defer its wgmma waits).
  int64_t keptPrologueBytes(scf::ForOp loop) {
    auto kernel = loop->getParentOfType<func::FuncOp>();
    SmallVector<std::pair<int64_t, int64_t>> rings; // distance, bytes
    for (Operation &op : loop.getBody()->without_terminator())
      if (auto load = dyn_cast<tile::LoadOp>(op))
        if (auto d = load->getAttrOfType<IntegerAttr>(kDistanceAttr))
          rings.push_back(
              {d.getInt(), llvm::alignTo(ringBufferBytes(load), 1024)});
    bool stageMajor =
        !hintOrZero(kernel, "wgmma_defer_wait") &&
        llvm::all_of(rings, [&](auto r) { return r.first == rings[0].first; });
    int64_t bytes = 0;
    for (auto [d, b] : rings)
      bytes += (stageMajor ? d : d + 2) * b;
    return bytes;
  }

  void setDistance(tile::LoadOp load, int64_t distance) {
    load->setAttr(kDistanceAttr,
                  Builder(&getContext()).getI64IntegerAttr(distance));
  }

  /// The loads into registers of one loop body, in order, with their
  /// latencies: each first one iteration ahead while the prefetch_registers
  /// budget (32-bit registers per thread) lasts, then, with what is left and
  /// in body order, deeper, as far as its latency asks (at most
  /// kMaxRegisterDistance); the loop carries one set of a load's registers
  /// per iteration ahead. (Deepening first would let one load's distance
  /// starve another of any.)
  void scheduleInRegisters(
      ArrayRef<std::pair<tile::LoadOp, int64_t>> loads, int64_t registers) {
    struct Taken {
      tile::LoadOp load;
      int64_t latency, words; // words: 32-bit registers per set carried
    };
    SmallVector<Taken> taken;
    for (auto [load, latency] : loads) {
      if (std::string problem = registerPipelineProblem(load);
          !problem.empty()) {
        if (remarks)
          load->emitRemark("not scheduled: ") << problem;
        continue;
      }
      int64_t words = carriedWords(load);
      if (words > registers) {
        if (remarks)
          load->emitRemark("not scheduled: ")
              << words << " registers, more than the " << registers
              << " of the prefetch_registers budget left";
        continue;
      }
      registers -= words;
      taken.push_back({load, latency, words});
    }
    for (auto [load, latency, words] : taken) {
      int64_t distance = std::min(latency, kMaxRegisterDistance);
      if (words)
        distance = std::min(distance, 1 + registers / words);
      registers -= words * (distance - 1);
      setDistance(load, distance);
      if (!remarks)
        continue;
      auto remark = load->emitRemark("issued ")
                    << distance << (distance == 1 ? " iteration" : " iterations")
                    << " ahead into " << words * distance
                    << " registers the loop carries";
      if (latency > distance)
        remark << "; latency " << latency << " cut to " << distance << " ("
               << (distance == kMaxRegisterDistance
                       ? "registers carry at most " +
                             std::to_string(kMaxRegisterDistance) +
                             " iterations"
                       : std::string("the prefetch_registers budget"))
               << ")";
    }
  }

  void scheduleLoop(scf::ForOp loop, int64_t used) {
    int64_t registers = hintOrZero(loop->getParentOfType<func::FuncOp>(),
                                   "prefetch_registers");
    SmallVector<std::pair<tile::LoadOp, int64_t>> inRegisters;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto load = dyn_cast<tile::LoadOp>(op);
      if (!load)
        continue;
      auto latency = load->getAttrOfType<IntegerAttr>(kLatencyAttr);
      if (!latency)
        continue;
      if (latency.getInt() < 1) {
        if (remarks)
          load->emitRemark("not scheduled: a latency below 1");
        continue;
      }
      if (!stagedLoad(load)) {
        inRegisters.push_back({load, latency.getInt()});
        continue;
      }
      if (std::string problem = pipelineProblem(load); !problem.empty()) {
        if (remarks)
          load->emitRemark("not scheduled: ") << problem;
        continue;
      }
      // First come, first served: as deep as the latency asks (at most
      // kMaxDistance), as shallow as the room left allows.
      bool tma = load->hasAttr(tilegpu::TileGPUDialect::getTmaAttrName());
      int64_t bytes = ringBufferBytes(load);
      int64_t at = llvm::alignTo(used, tma ? 1024 : 16);
      int64_t room = std::max<int64_t>(kRingBudgetBytes - at, 0);
      int64_t distance = std::min<int64_t>(
          {latency.getInt(), room / bytes - 1, kMaxDistance});
      if (distance < 1) {
        if (remarks)
          load->emitRemark("not scheduled: two buffers of ")
              << bytes << " bytes do not fit in the " << room
              << " bytes of shared memory left for rings";
        continue;
      }
      used = at + (distance + 1) * bytes;
      setDistance(load, distance);
      if (remarks) {
        auto remark = load->emitRemark("issued ")
                      << distance << " iteration" << (distance > 1 ? "s" : "")
                      << " ahead (" << distance + 1 << " buffers of " << bytes
                      << " bytes)";
        if (distance < latency.getInt())
          remark << "; latency " << latency.getInt()
                 << (distance == kMaxDistance ? " cut to the deepest ring"
                                              : " cut to fit in shared memory");
      }
    }
    scheduleInRegisters(inRegisters, registers);
    scheduleBlock(*loop.getBody(), used);
  }

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>())
      for (Block &block : kernel.getBody())
        scheduleBlock(block, 0);
    // Early prologues (marked by earlyPrologues): a mark on any other loop
    // goes (hand-written, or the hint off); remarks say why not.
    getOperation().walk([&](scf::ForOp loop) {
      std::string problem;
      if (!hintOrZero(loop->getParentOfType<func::FuncOp>(), "prologue_early"))
        problem = "the kernel's prologue_early hint is 0 or absent";
      else if (!scheduledEarly.contains(loop)) {
        problem = prologueEarlyProblem(loop);
        if (problem.empty())
          problem = "the loop before it has its prologue issued early too";
      }
      if (!problem.empty())
        loop->removeAttr(kPrologueEarlyAttr);
      if (!remarks || problem == kNoLoadAhead ||
          !hintOrZero(loop->getParentOfType<func::FuncOp>(), "prologue_early"))
        return;
      if (problem.empty())
        loop.emitRemark("prologue issued where the loop before it starts");
      else
        loop.emitRemark("prologue issued where the loop starts: ") << problem;
    });
    // A loop in a loop: its prologue for the enclosing loop's next
    // iteration goes out as soon as this run of it ends.
    UnitAttr unit = UnitAttr::get(&getContext());
    getOperation().walk([&](scf::ForOp inner) {
      if (!isa<scf::ForOp>(inner->getParentOp()))
        return;
      std::string problem = prologueAheadProblem(inner);
      if (problem == kNoLoadAhead)
        return; // (nothing to say)
      if (!hintOrZero(inner->getParentOfType<func::FuncOp>(),
                      "prologue_ahead"))
        problem = "the kernel's prologue_ahead hint is 0 or absent";
      if (problem.empty())
        inner->setAttr(kPrologueAheadAttr, unit);
      else
        inner->removeAttr(kPrologueAheadAttr); // (a hand-written mark)
      if (!remarks)
        return;
      if (problem.empty())
        inner.emitRemark("prologue issued during the enclosing loop's "
                         "previous iteration");
      else
        inner.emitRemark("prologue issued where the loop starts: ")
            << problem;
    });
  }
};

} // namespace

void tessel::buildTileGPUPipeline(OpPassManager &pm) {
  pm.addPass(createTileGPUAssignLatencies());
  pm.addPass(createTileGPUScheduleLoads());
}

void tessel::registerTileGPUPipeline() {
  PassPipelineRegistration<>(
      "tilegpu-pipeline",
      "The software pipeline: tilegpu-assign-latencies, then "
      "tilegpu-schedule-loads (convert-tilegpu-to-llvm expands the loops)",
      buildTileGPUPipeline);
}
