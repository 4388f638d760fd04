//===- Target.h - what each GPU target supports -----------------*- C++ -*-===//
//
// The target table: one row per `sm_*` tessel generates code for. Lowerings
// ask it before emitting an instruction, so that a kernel needing something a
// target lacks gets a diagnostic here instead of an abort inside LLVM
// ("Cannot select").
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_TARGET_H
#define TESSEL_CODEGEN_TARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tessel::codegen {

/// Instruction families a lowering may need.
enum class Feature {
  MmaSync,    // mma.sync.aligned (bf16/f16/tf32, f32 accumulate)
  Wgmma,      // wgmma.mma_async (Hopper only)
  Tcgen05,    // tcgen05.mma and tensor memory (Blackwell only)
  Tma,        // cp.async.bulk.tensor
  Mbarrier,   // mbarrier.* with transaction counts
  Setmaxnreg, // setmaxnreg
  Clusters,   // thread-block clusters
};

struct TargetInfo {
  llvm::StringRef name;       // "sm_90a"
  llvm::StringRef ptxFeature; // the LLVM feature selecting the PTX ISA
  int computeMajor, computeMinor;
  int64_t maxSharedPerBlock; // bytes, opt-in maximum
  int64_t maxStaticShared;   // bytes without opt-in
  int maxRegistersPerThread;
  int maxThreadsPerBlock;
  int maxClusterSize; // portable cluster size limit
  bool wgmma, tcgen05;

  bool has(Feature feature) const;
  llvm::StringRef featureName(Feature feature) const;
};

/// The row for `name`, or null when tessel does not target it.
const TargetInfo *lookupTarget(llvm::StringRef name);
llvm::ArrayRef<TargetInfo> allTargets();

} // namespace tessel::codegen

#endif // TESSEL_CODEGEN_TARGET_H
