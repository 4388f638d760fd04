// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// Rank-0 tiles (one element) are tiles too: they come out of full reductions
// and fully squeezed loads, and go back in through broadcast and reshape.

// CHECK-LABEL: func.func @scalar_tiles
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x?xf32>, %[[I:.*]]: i32)
func.func @scalar_tiles(%x: !tile.view<?x?xf32>, %i: i32) -> tensor<4x4xf32> {
  // CHECK: %[[E:.*]] = tile.load %[[X]][%[[I]], %[[I]]] {squeeze = array<i64: 0, 1>} : !tile.view<?x?xf32> -> tensor<f32>
  // CHECK: %[[R:.*]] = tile.load %[[X]][%[[I]], %[[I]]] {squeeze = array<i64: 0>} : !tile.view<?x?xf32> -> tensor<16xf32>
  // CHECK: %[[S:.*]] = tile.reduce sum %[[R]] {axis = 0 : i64} : tensor<16xf32> -> tensor<f32>
  // CHECK: %[[P:.*]] = tile.permute %[[S]] [] : tensor<f32> -> tensor<f32>
  // CHECK: %[[A:.*]] = arith.addf %[[E]], %[[P]] : tensor<f32>
  // CHECK: %[[B:.*]] = tile.broadcast %[[A]] : tensor<f32> -> tensor<4x4xf32>
  // CHECK: tile.store %[[A]], %[[X]][%[[I]], %[[I]]] {squeeze = array<i64: 0, 1>} : tensor<f32>, !tile.view<?x?xf32>
  // CHECK: return %[[B]]
  %e = tile.load %x[%i, %i] {squeeze = array<i64: 0, 1>} : !tile.view<?x?xf32> -> tensor<f32>
  %r = tile.load %x[%i, %i] {squeeze = array<i64: 0>} : !tile.view<?x?xf32> -> tensor<16xf32>
  %s = tile.reduce sum %r {axis = 0 : i64} : tensor<16xf32> -> tensor<f32>
  %p = tile.permute %s [] : tensor<f32> -> tensor<f32>
  %a = arith.addf %e, %p : tensor<f32>
  %b = tile.broadcast %a : tensor<f32> -> tensor<4x4xf32>
  tile.store %a, %x[%i, %i] {squeeze = array<i64: 0, 1>} : tensor<f32>, !tile.view<?x?xf32>
  return %b : tensor<4x4xf32>
}

// Rank 0 <-> rank 1 and 2 through reshape.
// CHECK-LABEL: func.func @reshape_scalar
func.func @reshape_scalar(%s: tensor<i8>) -> tensor<1xi8> {
  // CHECK: %[[R:.*]] = tile.reshape %{{.*}} : tensor<i8> -> tensor<1x1xi8>
  // CHECK: tile.reshape %[[R]] : tensor<1x1xi8> -> tensor<1xi8>
  %0 = tile.reshape %s : tensor<i8> -> tensor<1x1xi8>
  %1 = tile.reshape %0 : tensor<1x1xi8> -> tensor<1xi8>
  return %1 : tensor<1xi8>
}
