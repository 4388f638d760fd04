//===- Target.cpp - the target table
//---------------------------------------===//

#include "codegen/Target.h"

namespace tessel::codegen {

// Static shared memory is limited to 48 KB per CTA on every target; more is
// dynamic shared memory with the opt-in attribute (the runtime sets it), up
// to 227 KB per CTA on Hopper and Blackwell.
static const TargetInfo kTargets[] = {
    {"sm_90a", "+ptx80", 48 * 1024, 227 * 1024, /*wgmma=*/true, /*tma=*/true,
     /*tcgen05=*/false},
    {"sm_100a", "+ptx86", 48 * 1024, 227 * 1024, /*wgmma=*/false, /*tma=*/true,
     /*tcgen05=*/true},
    {"sm_103a", "+ptx88", 48 * 1024, 227 * 1024, /*wgmma=*/false, /*tma=*/true,
     /*tcgen05=*/true},
};

const TargetInfo *lookupTarget(llvm::StringRef name) {
  for (const TargetInfo &t : kTargets)
    if (t.name == name)
      return &t;
  return nullptr;
}

} // namespace tessel::codegen
