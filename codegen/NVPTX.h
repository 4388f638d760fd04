//===- NVPTX.h - LLVM dialect -> PTX -> cubin -------------------*- C++ -*-===//

#ifndef TESSEL_CODEGEN_NVPTX_H
#define TESSEL_CODEGEN_NVPTX_H

#include "codegen/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace tessel::codegen {

/// Translates a module in the LLVM/NVVM dialects to LLVM IR, optimises it at
/// O3 and emits PTX for `target` with the NVPTX backend, in process. Errors
/// are emitted on the module. `llvmIR`, when given, receives the optimised IR.
mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp module,
                                     const TargetInfo &target,
                                     std::string *llvmIR = nullptr);

/// What ptxas reported for one kernel.
struct ResourceUsage {
  std::string kernel;
  int registers = 0;
  int64_t sharedBytes = 0;
  int64_t spillStores = 0, spillLoads = 0;
  int64_t stackBytes = 0;
};

/// Assembles PTX into a cubin with ptxas (found on PATH or /usr/local/cuda).
/// Returns an error message, empty on success.
std::string assembleCubin(const std::string &ptx, const TargetInfo &target,
                          std::vector<char> &cubin,
                          std::vector<ResourceUsage> &usage);

/// Where ptxas is, or "" when it is not installed.
std::string findPtxas();

} // namespace tessel::codegen

#endif // TESSEL_CODEGEN_NVPTX_H
