//===- Target.cpp - the target table
//---------------------------------------===//

#include "codegen/Target.h"

namespace tessel::codegen {

// Static shared memory is limited to 48 KB per CTA on every target; more is
// dynamic shared memory with the opt-in attribute (the runtime sets it), up
// to 227 KB per CTA on Hopper and Blackwell. Per SM (the CUDA programming
// guide's table of compute capabilities 9.0, 10.0 and 10.3, the same on the
// three): 228 KB of shared memory with 1 KB reserved per CTA, 64K
// registers, 64 warps, 32 CTAs; 512 tensor-memory columns on Blackwell.
// PTX 8.1 on sm_90a (LLVM's default for it is 8.0): cvt.rn.satfinite.
// {bf16,f16}x2.f32 (saturating_cast) needs it; CUDA 13's ptxas takes it.
static const TargetInfo kTargets[] = {
    {"sm_90a", "+ptx81", 48 * 1024, 227 * 1024, /*wgmma=*/true, /*tma=*/true,
     /*tcgen05=*/false, 228 * 1024, 1024, 65536, 64, 32,
     /*tmemColumnsPerSM=*/0},
    {"sm_100a", "+ptx86", 48 * 1024, 227 * 1024, /*wgmma=*/false, /*tma=*/true,
     /*tcgen05=*/true, 228 * 1024, 1024, 65536, 64, 32,
     /*tmemColumnsPerSM=*/512},
    {"sm_103a", "+ptx88", 48 * 1024, 227 * 1024, /*wgmma=*/false, /*tma=*/true,
     /*tcgen05=*/true, 228 * 1024, 1024, 65536, 64, 32,
     /*tmemColumnsPerSM=*/512},
};

Residency residentCtas(const TargetInfo &t, int64_t warps, int64_t registers,
                       int64_t sharedBytes, int64_t tmemColumns) {
  Residency r{t.maxCtasPerSM, "CTA slots"};
  auto limit = [&](int64_t ctas, llvm::StringRef what) {
    if (ctas < r.ctas)
      r = {ctas, what};
  };
  if (warps <= 0)
    return {0, "warps"};
  // In a tie the first binding resource is named.
  if (registers > 0) {
    int64_t perWarp = (registers * 32 + 255) / 256 * 256;
    int64_t warpsByRegisters = t.registersPerSM / 4 / perWarp * 4;
    limit(warpsByRegisters / warps, "registers");
  }
  int64_t perCta = (sharedBytes + t.sharedReservedPerCta + 127) / 128 * 128;
  limit(t.sharedPerSM / perCta, "shared memory");
  if (tmemColumns > 0)
    limit(t.tmemColumnsPerSM / tmemColumns, "tensor memory");
  limit(t.maxWarpsPerSM / warps, "warps");
  return r;
}

const TargetInfo *lookupTarget(llvm::StringRef name) {
  for (const TargetInfo &t : kTargets)
    if (t.name == name)
      return &t;
  return nullptr;
}

} // namespace tessel::codegen
