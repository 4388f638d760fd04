//===- Target.h - the GPU targets tessel generates code for -----*- C++ -*-===//
//
// One row per `sm_*`: what code generation needs to know about it. Today that
// is the PTX ISA to ask LLVM for and the shared-memory limit the pipeline
// checks (a diagnostic instead of a failure in ptxas or at launch), and the
// instruction families that differ between targets, so that a kernel asking
// for one its target lacks is diagnosed before LLVM sees it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_TARGET_H
#define TESSEL_CODEGEN_TARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tessel::codegen {

struct TargetInfo {
  llvm::StringRef name;       // "sm_90a"
  llvm::StringRef ptxFeature; // the LLVM feature selecting the PTX ISA
  int64_t maxStaticShared;    // bytes of static shared memory per CTA
  int64_t maxShared;          // static + dynamic per CTA (with the opt-in)
  bool wgmma;                 // warpgroup MMA (wgmma.mma_async): sm_90a only
  bool tma;                   // cp.async.bulk.tensor + mbarrier (sm_90 and up)
  bool tcgen05;               // tcgen05.mma, tensor memory: sm_100a, sm_103a
};

/// The row for `name`, or null when tessel does not target it.
const TargetInfo *lookupTarget(llvm::StringRef name);

} // namespace tessel::codegen

#endif // TESSEL_CODEGEN_TARGET_H
