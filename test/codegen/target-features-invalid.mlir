// RUN: tessel-opt %s -split-input-file --convert-tilegpu-to-llvm -verify-diagnostics

// What the lowering emits for a kernel must exist on the module's target:
// hand-written IR marked for wgmma on a target without it reached LLVM, which
// aborted ("Cannot select: intrinsic %llvm.nvvm.wgmma..."), and likewise
// tcgen05 on sm_90a and griddepcontrol / cluster dimensions before sm_90.
// (tesselc's targets never get here: tilegpu-assign-layouts marks a kernel
// only where the module says the target has the family.)

module attributes {tilegpu.target = "sm_80"} {
  // expected-error @below {{kernel 'wgmma_on_sm80' is marked for warpgroup MMA ('tilegpu.wgmma'), which sm_80 does not have (sm_90a does)}}
  func.func @wgmma_on_sm80(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4 : i64, tilegpu.wgmma} {
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_100a"} {
  // expected-error @below {{kernel 'wgmma_on_sm100a' is marked for warpgroup MMA ('tilegpu.wgmma'), which sm_100a does not have (sm_90a does)}}
  func.func @wgmma_on_sm100a(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4 : i64, tilegpu.wgmma} {
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{kernel 'tcgen05_on_sm90a' is marked for the fifth-generation tensor cores ('tilegpu.tcgen05'), which sm_90a does not have (sm_100a, sm_103a do)}}
  func.func @tcgen05_on_sm90a(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4 : i64, tilegpu.tcgen05} {
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_80"} {
  // expected-error @below {{kernel 'pdl_on_sm80' asks for programmatic dependent launch (hint 'pdl' = 1), which needs sm_90 or later (the target is sm_80)}}
  func.func @pdl_on_sm80(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4 : i64, tile.hints = #tile.hints<{default = {pdl = 1}}>} {
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_80"} {
  // expected-error @below {{kernel 'cluster_on_sm80' asks for thread-block clusters (hint 'cluster'), which need sm_90 or later (the target is sm_80)}}
  func.func @cluster_on_sm80(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4 : i64, tile.hints = #tile.hints<{default = {cluster = array<i64: 2>}}>} {
    return
  }
}

// -----

// pdl = 0 asks for nothing; sm_90 (not arch-specific) has both.
module attributes {tilegpu.target = "sm_80"} {
  func.func @no_pdl_on_sm80(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4 : i64, tile.hints = #tile.hints<{default = {pdl = 0}}>} {
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_90"} {
  func.func @pdl_cluster_on_sm90(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4 : i64, tile.hints = #tile.hints<{default = {pdl = 1, cluster = array<i64: 2>}}>} {
    return
  }
}
