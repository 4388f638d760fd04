//===- PipelinePlan.h - which loads a loop issues ahead ---------*- C++ -*-===//
//
// The software pipeline of loads in loops, in three steps as Triton splits
// it (../shared/DESIGN.md, "tilegpu-pipeline"):
//
//   tilegpu-assign-latencies  every pipelinable load gets `tilegpu.latency`:
//                             how many iterations its copy should be in
//                             flight (the load's `latency` hint, else the
//                             kernel's `num_stages` - 1, else 1);
//   tilegpu-schedule-loads    each gets `tilegpu.distance` (0 < distance <=
//                             latency): the iteration ahead it is issued,
//                             fitting every loop's rings in shared memory
//                             (a load into registers: at most 4, within
//                             the kernel's prefetch_registers);
//   convert-tilegpu-to-llvm   expands each loop: a ring of distance + 1
//                             buffers per scheduled load (and distance + 1
//                             mbarriers for a TMA copy), a prologue issuing
//                             the first iterations, each iteration issuing
//                             iteration i + distance's copy.
//
// These are the rules the passes share with the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PASSES_PIPELINEPLAN_H
#define TESSEL_PASSES_PIPELINEPLAN_H

#include "dialect/tile/TileOps.h"
#include "dialect/tilegpu/TileGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>
#include <string>

namespace tessel {

/// `tilegpu.latency` (i64 >= 1), set by tilegpu-assign-latencies.
inline constexpr llvm::StringLiteral kLatencyAttr = "tilegpu.latency";
/// `tilegpu.distance` (i64 >= 1), set by tilegpu-schedule-loads.
inline constexpr llvm::StringLiteral kDistanceAttr = "tilegpu.distance";

/// Shared memory all of a kernel's rings may take together (the rest of the
/// 227 KB an H100/H200/B200 CTA can have stays for the mma scratch buffer
/// and the other staging).
inline constexpr int64_t kRingBudgetBytes = 160 * 1024;

/// The most iterations ahead a load is issued (a ring of 17 buffers).
inline constexpr int64_t kMaxDistance = 16;
/// Loads into registers: at most this many iterations ahead (the loop
/// carries one set of registers per iteration).
inline constexpr int64_t kMaxRegisterDistance = 4;

/// A scalar op (on no tile) that can be evaluated again for another
/// iteration: arith/math on scalars, tile.dim, tile.program_id,
/// tile.num_programs.
bool isScalarIndexOp(mlir::Operation *op);

/// The ops of `loop`'s body that `load`'s indices depend on, in `ops`, when
/// they can be evaluated for a later iteration: scalar ops on the induction
/// variable and on values defined outside the loop (no loop-carried value).
bool laterIterationSlice(mlir::scf::ForOp loop, tile::LoadOp load,
                         llvm::SmallVectorImpl<mlir::Operation *> &ops);

/// Why `loop` cannot issue `load` ahead, or "": it is a persistent kernel's
/// program loop, it writes the view, or the indices depend on what it
/// carries.
std::string laterIterationProblem(mlir::scf::ForOp loop, tile::LoadOp load);

/// The same for any `roots`: the ops of `loop`'s body (in body order) that
/// they depend on, when all are scalar index ops on the induction variable
/// and on values defined outside the loop.
bool laterIterationSlice(mlir::scf::ForOp loop, mlir::ValueRange roots,
                         llvm::SmallVectorImpl<mlir::Operation *> &ops);

/// `tilegpu.prologue_ahead` (unit, on an scf.for), set by
/// tilegpu-schedule-loads: the loop's prologue (the copies of its first
/// iterations) for the next iteration of the loop around it is issued as
/// soon as this run of the loop ends, so that its latency overlaps the rest
/// of the enclosing iteration instead of stalling the start of the next.
inline constexpr llvm::StringLiteral kPrologueAheadAttr =
    "tilegpu.prologue_ahead";

/// Why `inner`'s prologue cannot be issued during the previous iteration of
/// the loop around it, or "": it stands directly in an scf.for body, the
/// loads it issues ahead are all TMA copies (no cp.async groups to count,
/// no registers to carry), no loop before it in that body has rings and no
/// loop-invariant TMA buffer is allocated in a nested region before it
/// (their bytes would be where the early copies wait: the lowering keeps
/// the prologue's buffers taken until the enclosing body ends, and what
/// follows the loop there goes above them), the enclosing loop writes none
/// of their views,
/// and its bounds and their indices can be evaluated for the enclosing
/// loop's next iteration.
/// With `outerSlice`, the ops of the enclosing body those depend on (body
/// order), to evaluate for its next iteration.
/// prologueAheadProblem's answer for a loop that issues no load ahead.
inline constexpr llvm::StringLiteral kNoLoadAhead =
    "the loop issues no load ahead";
std::string prologueAheadProblem(
    mlir::scf::ForOp inner,
    llvm::SmallVectorImpl<mlir::Operation *> *outerSlice = nullptr);

/// `tilegpu.prologue_early` (unit, on an scf.for), set by
/// tilegpu-schedule-loads in a kernel with the hint `prologue_early` = 1:
/// the loop's prologue (the copies of its first iterations) is issued where
/// the loop before it on its path (its anchor: earlyAnchor) starts, right
/// after that loop's own prologue, so that the two loops' first copies are
/// in flight together instead of one after the other. Their buffers lie
/// below the anchor's rings (laid out stage by stage: only the prologue's
/// stages stay taken while the anchor runs), and the loop, where it starts,
/// issues nothing before its first iteration.
inline constexpr llvm::StringLiteral kPrologueEarlyAttr =
    "tilegpu.prologue_early";

/// Where a loop's prologue can be issued early: the loop before it on its
/// path, and the conditions of the branches between that loop's block and
/// the loop (each scf.if's condition, and whether the loop is in its then
/// region), under which the prologue is issued.
struct EarlyPrologue {
  mlir::scf::ForOp anchor;
  llvm::SmallVector<std::pair<mlir::Value, bool>> conditions;
  /// The scalar index ops after the anchor that those and the loop's
  /// bounds and indices need (program order), evaluated with the prologue.
  llvm::SmallVector<mlir::Operation *> outerSlice;
};

/// The structural half of prologueEarlyProblem (what does not depend on
/// the schedule): the anchor is the nearest scf.for before `loop` in its
/// block, or, where none is, before the scf.if around it (and so on up
/// through branches only); nothing between them holds a loop, stores,
/// or takes a loop-invariant TMA buffer; neither the anchor nor the loop is
/// a persistent program loop or issues its prologue ahead; the anchor
/// writes no view the loop loads; and the loop's bounds, its loads'
/// indices and those conditions are computed before the anchor, or by
/// scalar index ops (isScalarIndexOp) from values computed before it.
std::string earlyAnchorProblem(mlir::scf::ForOp loop,
                               EarlyPrologue *early = nullptr);

/// Why `loop`'s prologue cannot be issued early (kPrologueEarlyAttr), or "":
/// earlyAnchorProblem, and the loads it issues ahead are all TMA copies
/// (no cp.async groups to count, no registers to carry through the anchor),
/// none multicast, all issued as far ahead (its rings laid out stage by
/// stage), and the kernel neither defers its wgmma waits (rings with a
/// spare buffer) nor has a producer warpgroup, nor issues loops' prologues
/// ahead (prologue_ahead).
std::string prologueEarlyProblem(mlir::scf::ForOp loop,
                                 EarlyPrologue *early = nullptr);

/// How many mma operands `load`'s tile is (through folded transposes).
int64_t mmaOperandUses(tile::LoadOp load);

/// Why `load` cannot be issued ahead by the loop around it, or "": it
/// stands directly in an scf.for body, it is staged in shared memory
/// (stagedLoad: its tile only feeds mma operands in that body, or it is a
/// TMA copy read into registers as A fragments where it stands), nothing in
/// the loop writes its view, its indices can be evaluated for a later
/// iteration, and a TMA copy (each wait on its mbarrier takes the next
/// phase) feeds a single mma operand, unless it is read into registers
/// (once, at the load).
std::string pipelineProblem(tile::LoadOp load);

/// Why `load` cannot be issued iterations ahead into registers the loop
/// carries, or "": it stands directly in an scf.for body, its tile is used
/// and not only as mma operands (those go to shared memory) nor copied by
/// the TMA (a loop-invariant mma operand in its own buffer), nothing in the
/// loop writes its view, its indices can be evaluated for the next
/// iteration, and its tile has a layout.
std::string registerPipelineProblem(tile::LoadOp load);

/// Bytes an element takes in memory (i1 is stored as a byte).
int64_t storageBytes(mlir::Type element);

/// Elements of `tile` (at `view`, `squeeze`d) each thread moves in one
/// access: consecutive registers along the last dimension, at most 16
/// bytes (1 when the last dimension is squeezed, for i1 and scalars).
int64_t accessVector(tile::ViewType view, mlir::RankedTensorType tile,
                     std::optional<llvm::ArrayRef<int64_t>> squeeze,
                     const tilegpu::Distribution &dist);

/// Whether `load`'s 16-bit elements travel two to a 32-bit word (its
/// accesses are even vectors): a loop carrying it ahead carries the words.
bool packsIntoWords(tile::LoadOp load);

/// The 32-bit registers per thread a loop carries for `load` per iteration
/// it is issued ahead.
int64_t carriedWords(tile::LoadOp load);

/// Bytes one ring buffer of `load` takes at most: its tile 128-byte
/// swizzled and 1024-byte aligned for a TMA copy (unswizzled and 128-byte
/// aligned for one read into registers, loadsThroughShared), else with rows
/// 8 elements longer (the widest staging the lowering picks), 16-byte
/// aligned.
int64_t ringBufferBytes(tile::LoadOp load);

} // namespace tessel

#endif // TESSEL_PASSES_PIPELINEPLAN_H
