//===- Passes.h - tessel's passes -------------------------------*- C++ -*-===//

#ifndef TESSEL_PASSES_PASSES_H
#define TESSEL_PASSES_PASSES_H

#include "dialect/tile/TileOps.h"
#include "dialect/tilegpu/TileGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// tilegpu-pipeline (../shared/DESIGN.md): the software pipeline's passes,
/// tilegpu-assign-latencies then tilegpu-schedule-loads (the lowering,
/// convert-tilegpu-to-llvm, expands what they scheduled).
void buildTileGPUPipeline(mlir::OpPassManager &pm);

/// Registers `--tilegpu-pipeline` (buildTileGPUPipeline) with the pass
/// registry, for tessel-opt.
void registerTileGPUPipeline();

} // namespace tessel

#endif // TESSEL_PASSES_PASSES_H
