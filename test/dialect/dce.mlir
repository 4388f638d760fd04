// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s

// What -canonicalize may delete when the result is unused: every op without a
// write effect. Only tile.store must survive.

// CHECK-LABEL: func.func @dead_ops
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x?xf32>, %[[I:.*]]: i32, %[[A:.*]]: tensor<16x16xbf16>, %[[C:.*]]: tensor<16x16xf32>)
func.func @dead_ops(%x: !tile.view<?x?xf32>, %i: i32, %a: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // CHECK-NOT: tile.program_id
  // CHECK-NOT: tile.num_programs
  // CHECK-NOT: tile.dim
  // CHECK-NOT: tile.load
  // CHECK-NOT: tile.mma
  // CHECK-NOT: tile.cumsum
  // CHECK-NOT: tile.reduce
  // CHECK-NOT: tile.permute
  // CHECK-NOT: tile.broadcast
  // CHECK-NOT: tile.reshape
  // CHECK-NOT: tile.iota
  // CHECK: tile.store %[[C]], %[[X]][%[[I]], %[[I]]] : tensor<16x16xf32>, !tile.view<?x?xf32>
  // CHECK-NEXT: return
  %0 = tile.program_id 0
  %1 = tile.num_programs 1
  %2 = tile.dim %x, 0 : !tile.view<?x?xf32>
  %3 = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<16x16xf32>
  %4 = tile.mma %a, %a, %c {precision = #tile<precision bf16>} : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32>
  %5 = tile.cumsum %c {axis = 0 : i64} : tensor<16x16xf32>
  %6 = tile.reduce sum %c {axis = 0 : i64} : tensor<16x16xf32> -> tensor<16xf32>
  %7 = tile.permute %c [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %8 = tile.broadcast %6 : tensor<16xf32> -> tensor<4x16xf32>
  %9 = tile.reshape %c : tensor<16x16xf32> -> tensor<256xf32>
  %10 = tile.iota {axis = 0 : i64} : tensor<16xi32>
  tile.store %c, %x[%i, %i] : tensor<16x16xf32>, !tile.view<?x?xf32>
  return
}

// -----

// Ops without folders are left alone even on constant operands (no constant
// evaluation of scans, reductions, products or iota at compile time).
// CHECK-LABEL: func.func @no_constant_evaluation
func.func @no_constant_evaluation() -> (tensor<4xf32>, tensor<f32>, tensor<2x2xf32>, tensor<4xi32>) {
  // CHECK-DAG: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
  // CHECK: %[[S:.*]] = tile.cumsum %[[ONES]] {axis = 0 : i64} : tensor<4xf32>
  // CHECK: %[[R:.*]] = tile.reduce sum %[[ONES]] {axis = 0 : i64} : tensor<4xf32> -> tensor<f32>
  // CHECK: %[[M:.*]] = tile.mma %{{.*}}, %{{.*}}, %{{.*}} {precision = #tile<precision f16>} : tensor<2x2xf16>, tensor<2x2xf16>, tensor<2x2xf32>
  // CHECK: %[[I:.*]] = tile.iota {axis = 0 : i64} : tensor<4xi32>
  // CHECK: return %[[S]], %[[R]], %[[M]], %[[I]]
  %ones = arith.constant dense<1.0> : tensor<4xf32>
  %a = arith.constant dense<1.0> : tensor<2x2xf16>
  %acc = arith.constant dense<0.0> : tensor<2x2xf32>
  %s = tile.cumsum %ones {axis = 0 : i64} : tensor<4xf32>
  %r = tile.reduce sum %ones {axis = 0 : i64} : tensor<4xf32> -> tensor<f32>
  %m = tile.mma %a, %a, %acc {precision = #tile<precision f16>} : tensor<2x2xf16>, tensor<2x2xf16>, tensor<2x2xf32>
  %i = tile.iota {axis = 0 : i64} : tensor<4xi32>
  return %s, %r, %m, %i : tensor<4xf32>, tensor<f32>, tensor<2x2xf32>, tensor<4xi32>
}
