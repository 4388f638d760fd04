// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s

// The cluster hint: the target's entry, else the default one, padded to three
// sizes with 1, becomes the kernel's required cluster shape (nvvm.cluster_dim:
// .reqnctapercluster and .explicitcluster in the PTX).
// CHECK-LABEL: llvm.func @cluster_x(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @cluster_x(%x: !tile.view<?xf32>, %y: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 2>}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0] : !tile.view<?xf32> -> tensor<128xf32>
    tile.store %t, %y[%c0] : tensor<128xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @cluster_default(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 2, 1>
module attributes {tilegpu.target = "sm_100a"} {
  func.func @cluster_default(%x: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{default = {cluster = array<i64: 2, 2>}, sm_90a = {cluster = array<i64: 4>}}>} {
    return
  }
}

// -----

// The target's entry wins over the default one.
// CHECK-LABEL: llvm.func @cluster_target_wins(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 4, 1, 1>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @cluster_target_wins(%x: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{default = {cluster = array<i64: 2, 2>}, sm_90a = {cluster = array<i64: 4>}}>} {
    return
  }
}

// -----

// Another target's cluster does not apply.
// CHECK-LABEL: llvm.func @cluster_other_target(
// CHECK-NOT: nvvm.cluster_dim
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_103a"} {
  func.func @cluster_other_target(%x: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 2>}}>} {
    return
  }
}
