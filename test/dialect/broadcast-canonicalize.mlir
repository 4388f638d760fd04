// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s

// A broadcast to the same type is a no-op.
// CHECK-LABEL: func.func @same_type
// CHECK-SAME: (%[[A:.*]]: tensor<8x8xf32>)
func.func @same_type(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK-NOT: tile.broadcast
  // CHECK: return %[[A]]
  %0 = tile.broadcast %a : tensor<8x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// broadcast(broadcast(x)) is one broadcast of x.
// CHECK-LABEL: func.func @compose
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>)
func.func @compose(%a: tensor<8xf32>) -> tensor<4x64x8xf32> {
  // CHECK: %[[B:.*]] = tile.broadcast %[[A]] : tensor<8xf32> -> tensor<4x64x8xf32>
  // CHECK-NOT: tile.broadcast
  // CHECK: return %[[B]]
  %0 = tile.broadcast %a : tensor<8xf32> -> tensor<1x8xf32>
  %1 = tile.broadcast %0 : tensor<1x8xf32> -> tensor<4x64x8xf32>
  return %1 : tensor<4x64x8xf32>
}

// -----

// The inner broadcast has another user: it stays, the outer one bypasses it.
// CHECK-LABEL: func.func @compose_inner_has_other_use
// CHECK-SAME: (%[[A:.*]]: tensor<1x8xf32>)
func.func @compose_inner_has_other_use(%a: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<2x4x8xf32>) {
  // CHECK-DAG: %[[INNER:.*]] = tile.broadcast %[[A]] : tensor<1x8xf32> -> tensor<4x8xf32>
  // CHECK-DAG: %[[OUTER:.*]] = tile.broadcast %[[A]] : tensor<1x8xf32> -> tensor<2x4x8xf32>
  // CHECK: return %[[INNER]], %[[OUTER]]
  %0 = tile.broadcast %a : tensor<1x8xf32> -> tensor<4x8xf32>
  %1 = tile.broadcast %0 : tensor<4x8xf32> -> tensor<2x4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<2x4x8xf32>
}

// -----

// A broadcast tensor.splat is a bigger tensor.splat.
// CHECK-LABEL: func.func @splat_value
// CHECK-SAME: (%[[S:.*]]: f32)
func.func @splat_value(%s: f32) -> tensor<64x8xf32> {
  // CHECK: %[[SPLAT:.*]] = tensor.splat %[[S]] : tensor<64x8xf32>
  // CHECK-NOT: tile.broadcast
  // CHECK: return %[[SPLAT]]
  %0 = tensor.splat %s : tensor<1x8xf32>
  %1 = tile.broadcast %0 : tensor<1x8xf32> -> tensor<64x8xf32>
  return %1 : tensor<64x8xf32>
}

// -----

// A broadcast splat constant is a splat constant of the result shape.
// CHECK-LABEL: func.func @splat_constant
func.func @splat_constant() -> tensor<64x8xi32> {
  // CHECK: %[[C:.*]] = arith.constant dense<3> : tensor<64x8xi32>
  // CHECK-NOT: tile.broadcast
  // CHECK: return %[[C]]
  %0 = arith.constant dense<3> : tensor<8xi32>
  %1 = tile.broadcast %0 : tensor<8xi32> -> tensor<64x8xi32>
  return %1 : tensor<64x8xi32>
}

// -----

// Broadcast of a broadcast of a splat: everything becomes one splat.
// CHECK-LABEL: func.func @splat_then_two_broadcasts
// CHECK-SAME: (%[[S:.*]]: f16)
func.func @splat_then_two_broadcasts(%s: f16) -> tensor<4x4x4xf16> {
  // CHECK: %[[SPLAT:.*]] = tensor.splat %[[S]] : tensor<4x4x4xf16>
  // CHECK-NEXT: return %[[SPLAT]]
  %0 = tensor.splat %s : tensor<4xf16>
  %1 = tile.broadcast %0 : tensor<4xf16> -> tensor<4x4xf16>
  %2 = tile.broadcast %1 : tensor<4x4xf16> -> tensor<4x4x4xf16>
  return %2 : tensor<4x4x4xf16>
}

// -----

// Must not fire: a broadcast of a non-splat constant keeps its data movement.
// CHECK-LABEL: func.func @non_splat_constant
func.func @non_splat_constant() -> tensor<4x2xi32> {
  // CHECK: %[[C:.*]] = arith.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK: %[[B:.*]] = tile.broadcast %[[C]] : tensor<2xi32> -> tensor<4x2xi32>
  // CHECK: return %[[B]]
  %0 = arith.constant dense<[1, 2]> : tensor<2xi32>
  %1 = tile.broadcast %0 : tensor<2xi32> -> tensor<4x2xi32>
  return %1 : tensor<4x2xi32>
}

// -----

// Must not fire: a single broadcast of an argument, and of a reduce result.
// CHECK-LABEL: func.func @real_broadcasts
// CHECK-SAME: (%[[A:.*]]: tensor<1x8xf32>, %[[M:.*]]: tensor<16x8xf32>)
func.func @real_broadcasts(%a: tensor<1x8xf32>, %m: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  // CHECK: %[[B0:.*]] = tile.broadcast %[[A]] : tensor<1x8xf32> -> tensor<16x8xf32>
  // CHECK: %[[R:.*]] = tile.reduce max %[[M]] {axis = 0 : i64} : tensor<16x8xf32> -> tensor<8xf32>
  // CHECK: %[[B1:.*]] = tile.broadcast %[[R]] : tensor<8xf32> -> tensor<16x8xf32>
  // CHECK: return %[[B0]], %[[B1]]
  %0 = tile.broadcast %a : tensor<1x8xf32> -> tensor<16x8xf32>
  %r = tile.reduce max %m {axis = 0 : i64} : tensor<16x8xf32> -> tensor<8xf32>
  %1 = tile.broadcast %r : tensor<8xf32> -> tensor<16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<16x8xf32>
}
