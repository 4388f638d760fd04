// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description: y is (batch, L, heads).
// CHECK-LABEL: func.func @squeeze_batch
// CHECK-SAME: (%[[T:.*]]: tensor<64x16xf32>, %[[Y:.*]]: !tile.view<?x?x?xf32>, %[[B:.*]]: i32, %[[C:.*]]: i32)
func.func @squeeze_batch(%t: tensor<64x16xf32>, %y: !tile.view<?x?x?xf32>, %b: i32, %c: i32) {
  // CHECK: tile.store %[[T]], %[[Y]][%[[B]], %[[C]], %[[C]]] {squeeze = array<i64: 0>} : tensor<64x16xf32>, !tile.view<?x?x?xf32>
  tile.store %t, %y[%b, %c, %c] {squeeze = array<i64: 0>} : tensor<64x16xf32>, !tile.view<?x?x?xf32>
  return
}

// CHECK-LABEL: func.func @squeeze_two_with_latency
func.func @squeeze_two_with_latency(%t: tensor<32xf32>, %y: !tile.view<?x?x?xf32>, %i: i32) {
  // CHECK: tile.store %{{.*}} {latency = 2 : i64, squeeze = array<i64: 0, 2>} : tensor<32xf32>, !tile.view<?x?x?xf32>
  tile.store %t, %y[%i, %i, %i] {squeeze = array<i64: 0, 2>, latency = 2} : tensor<32xf32>, !tile.view<?x?x?xf32>
  return
}

// A rank-0 tile writes a single element.
// CHECK-LABEL: func.func @store_scalar_tile
func.func @store_scalar_tile(%t: tensor<i32>, %y: !tile.view<?xi32>, %i: i32) {
  // CHECK: tile.store %{{.*}} {squeeze = array<i64: 0>} : tensor<i32>, !tile.view<?xi32>
  tile.store %t, %y[%i] {squeeze = array<i64: 0>} : tensor<i32>, !tile.view<?xi32>
  return
}
