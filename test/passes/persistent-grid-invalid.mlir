// RUN: tessel-opt %s -split-input-file --tilegpu-persistent-grid -verify-diagnostics

// A body the pass cannot wrap is an error, not a miscompile.
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{cannot make the kernel persistent: it returns values}}
  func.func @returns(%x: i32) -> i32 attributes {tile.hints = #tile.hints<{default = {persistent = 1}}>} {
    return %x : i32
  }
}

// -----

// The hint takes 0 or 1.
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{hint 'persistent' of target 'default' must be in [0, 1], got 2}}
  func.func @two() attributes {tile.hints = #tile.hints<{default = {persistent = 2}}>} {
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{cannot make the kernel persistent: it has no body}}
  func.func private @declaration(%x: i32) attributes {tile.hints = #tile.hints<{default = {persistent = 1}}>}
}
