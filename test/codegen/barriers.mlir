// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s

// A load of a view stored before needs a barrier (another thread may hold
// what it reads). Each branch of an if starts from what was pending before
// the if: the barrier of the then branch does not run in the else branch.
// CHECK-LABEL: llvm.func @barrier_in_both_branches
// CHECK: scf.if
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xf32>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @barrier_in_both_branches(%x: !tile.view<?xf32, unit_stride>, %y: !tile.view<?xf32>, %z: !tile.view<?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %one = arith.constant dense<1.0> : tensor<512xf32>
    tile.store %one, %x[%c0] : tensor<512xf32>, !tile.view<?xf32, unit_stride>
    %cond = arith.cmpi sgt, %n, %c0 : i32
    scf.if %cond {
      %a = tile.load %x[%c0] : !tile.view<?xf32, unit_stride> -> tensor<512xf32>
      tile.store %a, %y[%c0] : tensor<512xf32>, !tile.view<?xf32>
    } else {
      %b = tile.load %x[%c0] : !tile.view<?xf32, unit_stride> -> tensor<512xf32>
      tile.store %b, %z[%c0] : tensor<512xf32>, !tile.view<?xf32>
    }
    return
  }
}

// -----

// A loop that may run no iteration: the barrier before the load in its body
// may not run, so the load after the loop still needs one.
// CHECK-LABEL: llvm.func @barrier_after_zero_trip_loop
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: scf.yield
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xf32>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @barrier_after_zero_trip_loop(%x: !tile.view<?xf32, unit_stride>, %y: !tile.view<?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %one = arith.constant dense<1.0> : tensor<512xf32>
    tile.store %one, %x[%c0] : tensor<512xf32>, !tile.view<?xf32, unit_stride>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %one) -> (tensor<512xf32>) : i32 {
      %a = tile.load %x[%c0] : !tile.view<?xf32, unit_stride> -> tensor<512xf32>
      %s = arith.addf %acc, %a : tensor<512xf32>
      scf.yield %s : tensor<512xf32>
    }
    %b = tile.load %x[%c0] : !tile.view<?xf32, unit_stride> -> tensor<512xf32>
    %t = arith.addf %r, %b : tensor<512xf32>
    tile.store %t, %y[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// Stores of one view with the same tile type and squeeze: tile.store's
// indices are tile indices, so such tiles lie on one grid and two of them
// write the same elements from the same threads, or disjoint ones. A scan
// writing one row per iteration (state_passing's states, fwd_pass_state's)
// or a walk along columns needs no barrier.
// CHECK-LABEL: llvm.func @store_rows_in_loop
// CHECK: scf.for
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: nvvm.barrier0
// CHECK: scf.yield
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @store_columns_in_loop
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @store_rows_in_loop(%x: !tile.view<?x?xf32, unit_stride>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %one = arith.constant dense<1.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %one) -> (tensor<512xf32>) : i32 {
      tile.store %acc, %x[%k, %c0] {squeeze = array<i64: 0>} : tensor<512xf32>, !tile.view<?x?xf32, unit_stride>
      %s = arith.addf %acc, %one : tensor<512xf32>
      scf.yield %s : tensor<512xf32>
    }
    tile.store %r, %x[%n, %c0] {squeeze = array<i64: 0>} : tensor<512xf32>, !tile.view<?x?xf32, unit_stride>
    return
  }
  func.func @store_columns_in_loop(%x: !tile.view<?x?xf32, unit_stride>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %one = arith.constant dense<1.0> : tensor<512xf32>
    scf.for %k = %c0 to %n step %c1 : i32 {
      tile.store %one, %x[%c0, %k] {squeeze = array<i64: 0>} : tensor<512xf32>, !tile.view<?x?xf32, unit_stride>
    }
    return
  }
}

// -----

// The barrier stays where the tile's type differs (the overlap of row 0 and
// the 4 x 128 tile at the origin: another thread holds the element), also
// when the other store is in one branch of an if before it.
// CHECK-LABEL: llvm.func @store_other_type
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK-LABEL: llvm.func @store_other_type_in_branch
// CHECK: scf.if
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @store_other_type(%x: !tile.view<?x?xf32, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %one = arith.constant dense<1.0> : tensor<512xf32>
    %two = arith.constant dense<2.0> : tensor<4x128xf32>
    tile.store %one, %x[%c0, %c0] {squeeze = array<i64: 0>} : tensor<512xf32>, !tile.view<?x?xf32, unit_stride>
    tile.store %two, %x[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32, unit_stride>
    return
  }
  func.func @store_other_type_in_branch(%x: !tile.view<?x?xf32, unit_stride>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %one = arith.constant dense<1.0> : tensor<512xf32>
    %two = arith.constant dense<2.0> : tensor<4x128xf32>
    %cond = arith.cmpi sgt, %n, %c0 : i32
    scf.if %cond {
      tile.store %two, %x[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32, unit_stride>
    }
    tile.store %one, %x[%c0, %c0] {squeeze = array<i64: 0>} : tensor<512xf32>, !tile.view<?x?xf32, unit_stride>
    return
  }
}
