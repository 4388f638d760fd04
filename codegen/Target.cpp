//===- Target.cpp - the target table
//---------------------------------------===//

#include "codegen/Target.h"

namespace tessel::codegen {

// Static shared memory is limited to 48 KB per CTA on every target (more needs
// dynamic shared memory and the opt-in attribute).
static const TargetInfo kTargets[] = {
    {"sm_90a", "+ptx80", 48 * 1024},
    {"sm_100a", "+ptx86", 48 * 1024},
    {"sm_103a", "+ptx88", 48 * 1024},
};

const TargetInfo *lookupTarget(llvm::StringRef name) {
  for (const TargetInfo &t : kTargets)
    if (t.name == name)
      return &t;
  return nullptr;
}

} // namespace tessel::codegen
