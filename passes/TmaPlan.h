//===- TmaPlan.h - which loads and stores the TMA copies --------*- C++ -*-===//
//
// The rules by which `tilegpu-insert-tma` marks the loads and stores the
// TMA copies (TileGPUDialect::getTmaAttrName()), shared with the lowering
// (convert-tilegpu-to-llvm), which stages mma operands by the same rules
// and checks every decision it is given against them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PASSES_TMAPLAN_H
#define TESSEL_PASSES_TMAPLAN_H

#include "dialect/tile/TileOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace tessel {

/// A 2-D transpose (tile.permute [1, 0]) whose every use is an mma's A or B
/// operand: the mma lowering stages its source and reads it transposed.
bool foldsIntoMma(tile::PermuteOp op);

/// A load whose tile only feeds mma operands (directly or through a folded
/// transpose), in the load's block, with nothing in between that writes
/// memory: the mma copies it from global to shared memory where it is used,
/// and it never occupies registers.
bool loadsIntoMma(tile::LoadOp op);

/// A load of 16-bit elements into the transposed mma layout (assign-layouts
/// gives it to a tile computed in registers whose transpose is an mma's A,
/// the load included), which the TMA may copy (tilegpu-insert-tma decides);
/// with the kernel hint `row_fragments`, also into the mma layout itself
/// (a tile computed in registers that is an mma's A as it stands).
bool fragmentLoadCandidate(tile::LoadOp op);

/// A fragmentLoadCandidate the TMA copies: staged in shared memory like an
/// mma operand (128-byte swizzle) and read with ldmatrix (.trans for the
/// transposed layout), each 16 x 16 block one .x4 straight into the A
/// fragments, instead of one 2-byte global load per element.
bool loadsIntoFragments(tile::LoadOp op);

/// A load whose tile lands in registers (no mma operand, no fragment
/// load), directly in the body of a loop that could issue it ahead (its
/// indices evaluate for a later iteration, the loop does not write its
/// view), in a kernel whose hint `tma_register_loads` is 1 for the module's
/// target (warp-specialised or not: the consumers fill these rings
/// themselves): the TMA may copy it into a ring of shared memory,
/// unswizzled, an iteration or more ahead, and the threads read their
/// registers from there where the load stands (compute_out's per-column Acs
/// and dt of each source block), instead of waiting for global memory there
/// or holding the registers of a load issued ahead.
bool registerRingCandidate(tile::LoadOp op);

/// A registerRingCandidate the TMA copies (tilegpu-insert-tma decided).
bool loadsThroughShared(tile::LoadOp op);

/// The mma whose B operand `op`'s tile becomes through a computation in
/// registers, where the TMA may copy `op` as if it were that operand, else
/// null: a 2-D 16-bit load directly in a loop's body (its indices evaluate
/// for a later iteration, the loop does not write its view), not an mma
/// operand itself, resident or a fragment load, whose tile starts a chain
/// of elementwise ops in its block (each the only user of the one before;
/// their other operands anything) that ends in a tile of the load's type
/// and shape whose only use is the B operand (maybe through a folded
/// transpose) of an mma of that block, in a kernel whose hints on the
/// module's target ask for `wgmma` and `operand_in_place`, without
/// `warp_specialize`. The copy then lands in a ring swizzled as the mma
/// reads it; the threads read their registers from it where the load
/// stands and write the computed operand back into the same buffer where
/// the mma stands (no scratch buffer; compute_out's chunk state plus a
/// correction, say).
tile::MmaOp computedOperandMma(tile::LoadOp op);

/// A load with a computedOperandMma that the TMA copies (tilegpu-insert-tma
/// decided).
bool loadsIntoComputedOperand(tile::LoadOp op);

/// A load staged in shared memory, where the pipeline may issue it ahead
/// into a ring: loadsIntoMma (the mma reads the copy), loadsIntoFragments,
/// loadsThroughShared or loadsIntoComputedOperand (the threads read it into
/// registers where the load stands).
bool stagedLoad(tile::LoadOp op);

/// A load whose tile is only ever an mma operand, used in loops nested below
/// it (a loop-invariant operand), and whose view nothing after it writes:
/// copied once, where it stands, into its own buffer that every use reads.
bool residentOperand(tile::LoadOp load);

/// Why the TMA cannot copy a tile of `type` at `view` (`squeeze`d like the
/// load or store `op`), or "" when it can: the target has the TMA (the
/// module's `tilegpu.tma_available`), the view is an argument of the kernel
/// around `op`, of rank <= 5
/// with unit stride and 16-byte alignment, 2- or 4-byte elements, and the
/// tile is one box of whole 128-byte swizzled panels (rows along the view's
/// last dimension, a multiple of 8 rows, at most 256).
std::string tmaBoxProblem(mlir::Operation *op, mlir::Value view,
                          mlir::RankedTensorType type,
                          std::optional<llvm::ArrayRef<int64_t>> squeeze);

/// Why the TMA cannot copy a tile of `type` at `view` unswizzled (a
/// registerRingCandidate's box), or "": tmaBoxProblem's target and view
/// rules, a 1-D or 2-D tile along the view's last dimension whose rows are
/// whole 16-byte chunks, at most 256 elements per dimension.
std::string tmaPlainBoxProblem(mlir::Operation *op, mlir::Value view,
                               mlir::RankedTensorType type,
                               std::optional<llvm::ArrayRef<int64_t>> squeeze);

/// Why the TMA cannot copy `load`'s tile whatever its role, or "": it is
/// not marked `allow_tma = false` and its box fits (tmaBoxProblem).
std::string tmaCopyProblem(tile::LoadOp load);

/// Why `load` does not qualify for the TMA, or "": it is a
/// fragmentLoadCandidate or an mma operand loaded where it is used
/// (loadsIntoMma) or a resident one (residentOperand), and tmaCopyProblem
/// has nothing to say.
std::string tmaLoadProblem(tile::LoadOp load);

/// Why `store` does not qualify, or "": it asks for the TMA (`tma = true`),
/// its box fits, and it is the only access to its view (sizes aside), so
/// that the copy engine's writes need no ordering against the threads'.
std::string tmaStoreProblem(tile::StoreOp store);

/// The CTAs of `kernel`'s cluster (the product of its hint `cluster` for
/// the module's target), 1 without one.
int64_t clusterCtas(mlir::func::FuncOp kernel);

/// Why `load`, which the TMA copies, may not be multicast to the CTAs of
/// its kernel's cluster, or "": the kernel asks for it (hint `multicast` =
/// 1), has a cluster of 2 or more CTAs (at most 8) and no producer
/// warpgroup (hint `warp_specialize`, whose rings each CTA releases alone); the tile is
/// staged 128-byte swizzled (not read unswizzled into registers), 2-D, its
/// rows a multiple of 8 per CTA (each CTA copies a slice of the rows, whole
/// 1024-byte swizzle atoms); and it is the same tile in every CTA of the
/// cluster: its indices, and the bounds of the loops and the conditions of
/// the branches around it, are the same in every CTA (TmaPlan.cpp
/// `clusterUniform`: so that every CTA issues and awaits the same copies in
/// the same order).
std::string multicastProblem(tile::LoadOp load);

} // namespace tessel

#endif // TESSEL_PASSES_TMAPLAN_H
