// RUN: tessel-opt %s --tilegpu-assign-layouts --tilegpu-persistent-grid --convert-tilegpu-to-llvm -verify-diagnostics

// A persistent kernel walks the programs one by one on the CTAs that fit: a
// cluster's CTAs would not take neighbouring programs, so the two hints are
// not compiled together.
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{hint 'cluster' on a persistent kernel: its CTAs walk the programs one by one, so a cluster's CTAs would not take neighbouring programs}}
  func.func @persistent_cluster(%x: !tile.view<?xf32>, %y: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{default = {persistent = 1, cluster = array<i64: 2>}}>} {
    %i = tile.program_id 0
    %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<128xf32>
    tile.store %t, %y[%i] : tensor<128xf32>, !tile.view<?xf32>
    return
  }
}
