//===- Pipeline.h - tile IR -> PTX -> cubin ---------------------*- C++ -*-===//

#ifndef TESSEL_CODEGEN_PIPELINE_H
#define TESSEL_CODEGEN_PIPELINE_H

#include "codegen/NVPTX.h"
#include "codegen/Target.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <string>
#include <vector>

namespace tessel::codegen {

/// One kernel compiled for one target.
struct Artifact {
  std::string kernel, target;
  std::string ptx;
  std::vector<char> cubin; // empty when not assembled
  ResourceUsage usage;
  int numWarps = 0;
  int64_t sharedBytes = 0;        // static shared memory
  int64_t dynamicSharedBytes = 0; // to pass at launch (pipeline buffers)
  /// Compiled for programmatic dependent launch (kernel hint `pdl`): launch
  /// it with the programmatic stream serialization attribute.
  bool programmaticLaunch = false;
  int64_t tmemColumns = 0;   // tensor-memory columns allocated per CTA
  int64_t occupancyHint = 0; // CTAs per SM the kernel's hint asks for (0: none)
  /// CTAs per SM that fit (registers as ptxas reported them; unknown, so
  /// not counted, without a cubin) and what limits them.
  Residency residency;
  /// What the caller should tell the user (an occupancy hint the shared or
  /// tensor memory cannot meet).
  std::vector<std::string> warnings;
};

/// Called with (stage name, text) after every stage when dumping.
using DumpFn = std::function<void(const std::string &, const std::string &)>;

/// Lowers the traced kernel in `module` (modified in place) for `target`:
/// tile -> tilegpu (layouts) -> LLVM/NVVM -> PTX, then ptxas when `assemble`.
/// Errors are emitted as diagnostics on the module's context.
mlir::FailureOr<Artifact> compile(mlir::ModuleOp module,
                                  const TargetInfo &target, bool assemble,
                                  const DumpFn &dump = nullptr);

/// Registers the dialects and translations compile() needs.
void loadCodegenDialects(mlir::MLIRContext &context);

} // namespace tessel::codegen

#endif // TESSEL_CODEGEN_PIPELINE_H
