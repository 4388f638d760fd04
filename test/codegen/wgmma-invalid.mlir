// RUN: tessel-opt %s -split-input-file -verify-diagnostics --tilegpu-assign-layouts

// A kernel asking for an instruction its target does not have gets a
// diagnostic at the kernel (its source location, for traced kernels), not an
// abort in LLVM or ptxas: wgmma is sm_90a's; sm_100a has no
// tilegpu.wgmma_available.
module attributes {tilegpu.target = "sm_100a"} {
  // expected-error @below {{kernel 'needs_wgmma' asks for wgmma (hint 'wgmma' = 1): warpgroup MMA is an sm_90a instruction, and sm_100a does not have it}}
  func.func @needs_wgmma(%a: !tile.view<?x?xbf16>) attributes {tile.hints = #tile.hints<{default = {wgmma = 1}}>} {
    return
  }
}

// -----

// Likewise tcgen05, the fifth-generation tensor cores of sm_100a/sm_103a:
// sm_90a has no tilegpu.tcgen05_available.
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  // expected-error @below {{kernel 'needs_tcgen05' asks for tcgen05 (hint 'tcgen05' = 1): the fifth-generation tensor cores are sm_100a/sm_103a instructions, and sm_90a does not have them}}
  func.func @needs_tcgen05(%a: !tile.view<?x?xbf16>) attributes {tile.hints = #tile.hints<{default = {tcgen05 = 1}}>} {
    return
  }
}

// -----

// On sm_90a without the attribute that says it has wgmma (hand-written IR;
// tesselc sets it from the target), the message says what is missing.
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{kernel 'no_attribute' asks for wgmma (hint 'wgmma' = 1), and sm_90a has it, but this module lacks 'tilegpu.wgmma_available' (which tesselc sets for its target)}}
  func.func @no_attribute(%a: !tile.view<?x?xbf16>) attributes {tile.hints = #tile.hints<{default = {wgmma = 1}}>} {
    return
  }
}
