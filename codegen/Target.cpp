//===- Target.cpp - the target table
//---------------------------------------===//

#include "codegen/Target.h"

namespace tessel::codegen {

// Shared memory: 227 KB per block on Hopper and Blackwell datacenter parts
// (228 KB per SM minus 1 KB reserved); 48 KB without the opt-in attribute.
static const TargetInfo kTargets[] = {
    {"sm_90a", "+ptx80", 9, 0, 227 * 1024, 48 * 1024, 255, 1024, 8,
     /*wgmma=*/true, /*tcgen05=*/false},
    {"sm_100a", "+ptx86", 10, 0, 227 * 1024, 48 * 1024, 255, 1024, 8,
     /*wgmma=*/false, /*tcgen05=*/true},
    {"sm_103a", "+ptx88", 10, 3, 227 * 1024, 48 * 1024, 255, 1024, 8,
     /*wgmma=*/false, /*tcgen05=*/true},
};

bool TargetInfo::has(Feature feature) const {
  switch (feature) {
  case Feature::MmaSync:
  case Feature::Tma:
  case Feature::Mbarrier:
  case Feature::Setmaxnreg:
  case Feature::Clusters:
    return true; // every target in the table is sm_90 or newer
  case Feature::Wgmma:
    return wgmma;
  case Feature::Tcgen05:
    return tcgen05;
  }
  return false;
}

llvm::StringRef TargetInfo::featureName(Feature feature) const {
  switch (feature) {
  case Feature::MmaSync:
    return "mma.sync";
  case Feature::Wgmma:
    return "wgmma.mma_async";
  case Feature::Tcgen05:
    return "tcgen05.mma";
  case Feature::Tma:
    return "cp.async.bulk.tensor";
  case Feature::Mbarrier:
    return "mbarrier";
  case Feature::Setmaxnreg:
    return "setmaxnreg";
  case Feature::Clusters:
    return "thread-block clusters";
  }
  return "?";
}

const TargetInfo *lookupTarget(llvm::StringRef name) {
  for (const TargetInfo &t : kTargets)
    if (t.name == name)
      return &t;
  return nullptr;
}

llvm::ArrayRef<TargetInfo> allTargets() { return kTargets; }

} // namespace tessel::codegen
