//===- Pipeline.cpp - tile IR -> PTX -> cubin
//-------------------------------===//

#include "codegen/Pipeline.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"

#include "dialect/tile/TileDialect.h"
#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tessel::codegen {

void loadCodegenDialects(MLIRContext &context) {
  context.loadDialect<tile::TileDialect, tilegpu::TileGPUDialect,
                      func::FuncDialect, arith::ArithDialect, math::MathDialect,
                      scf::SCFDialect, tensor::TensorDialect, LLVM::LLVMDialect,
                      NVVM::NVVMDialect>();
}

static std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

FailureOr<Artifact> compile(ModuleOp module, const TargetInfo &target,
                            bool assemble, const DumpFn &dump) {
  loadCodegenDialects(*module.getContext());
  Artifact artifact;
  artifact.target = target.name.str();
  auto kernels = module.getOps<func::FuncOp>();
  if (std::distance(kernels.begin(), kernels.end()) != 1)
    return module.emitError("expected exactly one kernel to compile");
  artifact.kernel = (*kernels.begin()).getSymName().str();
  module->setAttr(tilegpu::TileGPUDialect::getTargetAttrName(),
                  StringAttr::get(module.getContext(), target.name));
  if (target.wgmma)
    module->setAttr(tilegpu::TileGPUDialect::getWgmmaAvailableAttrName(),
                    UnitAttr::get(module.getContext()));
  if (target.tma)
    module->setAttr(tilegpu::TileGPUDialect::getTmaAvailableAttrName(),
                    UnitAttr::get(module.getContext()));
  if (target.tcgen05)
    module->setAttr(tilegpu::TileGPUDialect::getTcgen05AvailableAttrName(),
                    UnitAttr::get(module.getContext()));
  if (dump)
    dump("0-tile", print(module));

  // Warnings of the passes (a hint that cannot be honoured, say) reach the
  // caller with the artifact, at the user's source line; MLIR's default
  // handler would drop them. Errors go on to the enclosing handlers.
  ScopedDiagnosticHandler warnings(
      module.getContext(), [&](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() != DiagnosticSeverity::Warning)
          return failure();
        std::string text;
        llvm::raw_string_ostream os(text);
        tile::printLocationPrefix(os, diag.getLocation());
        os << diag.str();
        artifact.warnings.push_back(std::move(text));
        return success();
      });

  // Each stage is a separate pass manager run so that it can be dumped.
  struct Stage {
    const char *name;
    std::function<void(PassManager &)> add;
  };
  std::vector<Stage> stages = {
      {"1-canonicalize",
       [](PassManager &pm) {
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
       }},
      {"2-tile-route-mma-operands",
       [](PassManager &pm) {
         pm.addPass(createTileRouteMmaOperands());
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
       }},
      {"3-tilegpu-assign-layouts",
       [](PassManager &pm) { pm.addPass(createTileGPUAssignLayouts()); }},
      {"4-tilegpu-persistent-grid",
       [](PassManager &pm) { pm.addPass(createTileGPUPersistentGrid()); }},
      {"5-tilegpu-insert-tma",
       [](PassManager &pm) { pm.addPass(createTileGPUInsertTma()); }},
      {"6-tilegpu-pipeline",
       [](PassManager &pm) { buildTileGPUPipeline(pm); }},
      {"7-convert-tilegpu-to-llvm",
       [](PassManager &pm) { pm.addPass(createConvertTileGPUToLLVM()); }},
      {"8-llvm",
       [](PassManager &pm) {
         pm.addPass(createSCFToControlFlowPass());
         pm.addPass(createConvertMathToLLVMPass());
         pm.addPass(createArithToLLVMConversionPass());
         pm.addPass(createConvertControlFlowToLLVMPass());
         // NVVM ops without an LLVM intrinsic (wgmma.mma_async) become the
         // inline PTX the NVVM dialect defines for them.
         pm.addPass(createConvertNVVMToLLVMPass());
         pm.addPass(createReconcileUnrealizedCastsPass());
         pm.addPass(createCanonicalizerPass());
         pm.addPass(createCSEPass());
       }},
  };
  for (const Stage &stage : stages) {
    PassManager pm(module.getContext());
    stage.add(pm);
    if (failed(pm.run(module)))
      return failure();
    if (dump)
      dump(stage.name, print(module));
  }
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    if (auto reqntid = fn->getAttrOfType<DenseI32ArrayAttr>(
            NVVM::NVVMDialect::getReqntidAttrName()))
      artifact.numWarps = reqntid.asArrayRef()[0] / 32;
  artifact.programmaticLaunch =
      module->hasAttr("tilegpu.programmatic_launch");
  if (auto bytes = module->getAttrOfType<IntegerAttr>("tilegpu.shared_bytes"))
    artifact.sharedBytes = bytes.getInt();
  if (auto bytes =
          module->getAttrOfType<IntegerAttr>("tilegpu.dynamic_shared_bytes"))
    artifact.dynamicSharedBytes = bytes.getInt();
  if (auto columns = module->getAttrOfType<IntegerAttr>("tilegpu.tmem_columns"))
    artifact.tmemColumns = columns.getInt();
  if (auto ctas = module->getAttrOfType<IntegerAttr>("tilegpu.occupancy"))
    artifact.occupancyHint = ctas.getInt();
  if (artifact.sharedBytes > target.maxStaticShared)
    return module.emitError("kernel '")
           << artifact.kernel << "' needs " << artifact.sharedBytes
           << " bytes of shared memory; static allocations are limited to "
           << target.maxStaticShared << " on " << target.name;
  if (artifact.sharedBytes + artifact.dynamicSharedBytes > target.maxShared)
    return module.emitError("kernel '")
           << artifact.kernel << "' needs "
           << artifact.sharedBytes + artifact.dynamicSharedBytes
           << " bytes of shared memory (" << artifact.dynamicSharedBytes
           << " of them for pipeline buffers); a CTA gets at most "
           << target.maxShared << " on " << target.name
           << ": use smaller blocks";

  std::string llvmIR;
  FailureOr<std::string> ptx = emitPTX(module, target, &llvmIR);
  if (failed(ptx))
    return failure();
  artifact.ptx = *ptx;
  if (dump) {
    dump("9-llvm-ir", llvmIR);
    dump("10-ptx", artifact.ptx);
  }
  if (assemble) {
    std::vector<ResourceUsage> usage;
    std::string error =
        assembleCubin(artifact.ptx, target, artifact.cubin, usage);
    if (!error.empty())
      return module.emitError(error);
    for (const ResourceUsage &u : usage)
      if (u.kernel == artifact.kernel)
        artifact.usage = u;
  }
  // ptxas's static shared memory counts the mbarriers too (without a cubin
  // they are left out, and the registers do not limit).
  int64_t shared = std::max(artifact.sharedBytes, artifact.usage.sharedBytes) +
                   artifact.dynamicSharedBytes;
  artifact.residency =
      residentCtas(target, artifact.numWarps, artifact.usage.registers, shared,
                   artifact.tmemColumns);
  // ptxas meets an occupancy hint with registers; shared and tensor memory
  // are the kernel's blocks and stages: they alone (registers aside, which
  // may tie) must let the hinted CTAs fit.
  Residency memory = residentCtas(target, artifact.numWarps, /*registers=*/0,
                                  shared, artifact.tmemColumns);
  if (artifact.occupancyHint > memory.ctas &&
      (memory.limit == "shared memory" || memory.limit == "tensor memory"))
    artifact.warnings.push_back(
        "kernel '" + artifact.kernel + "' asks for " +
        std::to_string(artifact.occupancyHint) +
        " CTAs per SM (hint 'occupancy'), but its " + memory.limit.str() +
        " lets " + std::to_string(memory.ctas) + " fit on " +
        target.name.str() +
        (memory.limit == "shared memory"
             ? " (smaller blocks or fewer stages need less)"
             : ""));
  return artifact;
}

} // namespace tessel::codegen
