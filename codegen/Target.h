//===- Target.h - the GPU targets tessel generates code for -----*- C++ -*-===//
//
// One row per `sm_*`: what code generation needs to know about it. Today that
// is the PTX ISA to ask LLVM for and the shared-memory limit the pipeline
// checks (a diagnostic instead of a failure in ptxas or at launch), the
// instruction families that differ between targets, so that a kernel asking
// for one its target lacks is diagnosed before LLVM sees it, and what an SM
// holds, from which the compiler says how many CTAs of a kernel run on an SM
// at once and which resource limits them (residentCtas).
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
  // Per SM, shared by the CTAs resident on it.
  int64_t sharedPerSM;         // bytes of shared memory (the largest carveout)
  int64_t sharedReservedPerCta; // bytes the system reserves in each CTA's
  int64_t registersPerSM;      // 32-bit registers, in 4 equal partitions
  int64_t maxWarpsPerSM, maxCtasPerSM;
  int64_t tmemColumnsPerSM;    // tensor-memory columns (0: none)
};

/// How many CTAs of a kernel fit on one SM at once, and the resource that
/// stops one more: "registers", "shared memory", "tensor memory", "warps" or
/// "CTA slots".
struct Residency {
  int64_t ctas = 0;
  llvm::StringRef limit;
};

/// The CTAs of a kernel with `warps` warps of `registers` registers per
/// thread (0: not known, no limit), `sharedBytes` of shared memory per CTA
/// (static and dynamic) and `tmemColumns` tensor-memory columns allocated
/// per CTA that fit on an SM of `target`, by the CUDA occupancy calculator's
/// rules: registers go per warp in units of 256, each of the 4 partitions
/// of the register file holding whole warps; shared memory per CTA is
/// rounded up to 128 bytes after the system's reservation.
Residency residentCtas(const TargetInfo &target, int64_t warps,
                       int64_t registers, int64_t sharedBytes,
                       int64_t tmemColumns);

/// The row for `name`, or null when tessel does not target it.
const TargetInfo *lookupTarget(llvm::StringRef name);

} // namespace tessel::codegen

#endif // TESSEL_CODEGEN_TARGET_H
