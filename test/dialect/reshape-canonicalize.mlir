// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s

// A reshape to the same type is a no-op.
// CHECK-LABEL: func.func @same_type
// CHECK-SAME: (%[[A:.*]]: tensor<8x8xf32>)
func.func @same_type(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK-NOT: tile.reshape
  // CHECK: return %[[A]]
  %0 = tile.reshape %a : tensor<8x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Both reshapes keep row-major order: one is enough.
// CHECK-LABEL: func.func @compose
// CHECK-SAME: (%[[A:.*]]: tensor<64xf32>)
func.func @compose(%a: tensor<64xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[R:.*]] = tile.reshape %[[A]] : tensor<64xf32> -> tensor<4x16xf32>
  // CHECK-NOT: tile.reshape
  // CHECK: return %[[R]]
  %0 = tile.reshape %a : tensor<64xf32> -> tensor<8x8xf32>
  %1 = tile.reshape %0 : tensor<8x8xf32> -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// A round trip through another shape disappears entirely.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[A:.*]]: tensor<64xf32>)
func.func @round_trip(%a: tensor<64xf32>) -> tensor<64xf32> {
  // CHECK-NOT: tile.reshape
  // CHECK: return %[[A]]
  %0 = tile.reshape %a : tensor<64xf32> -> tensor<8x8xf32>
  %1 = tile.reshape %0 : tensor<8x8xf32> -> tensor<64xf32>
  return %1 : tensor<64xf32>
}

// -----

// The inner reshape has another user: it stays, the outer one bypasses it.
// CHECK-LABEL: func.func @inner_has_other_use
// CHECK-SAME: (%[[A:.*]]: tensor<64xf32>)
func.func @inner_has_other_use(%a: tensor<64xf32>) -> (tensor<8x8xf32>, tensor<2x32xf32>) {
  // CHECK-DAG: %[[INNER:.*]] = tile.reshape %[[A]] : tensor<64xf32> -> tensor<8x8xf32>
  // CHECK-DAG: %[[OUTER:.*]] = tile.reshape %[[A]] : tensor<64xf32> -> tensor<2x32xf32>
  // CHECK: return %[[INNER]], %[[OUTER]]
  %0 = tile.reshape %a : tensor<64xf32> -> tensor<8x8xf32>
  %1 = tile.reshape %0 : tensor<8x8xf32> -> tensor<2x32xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<2x32xf32>
}

// -----

// A reshaped splat constant is a splat constant of the new shape.
// CHECK-LABEL: func.func @splat_constant
func.func @splat_constant() -> tensor<8x8xi32> {
  // CHECK: %[[C:.*]] = arith.constant dense<7> : tensor<8x8xi32>
  // CHECK-NOT: tile.reshape
  // CHECK: return %[[C]]
  %c = arith.constant dense<7> : tensor<64xi32>
  %0 = tile.reshape %c : tensor<64xi32> -> tensor<8x8xi32>
  return %0 : tensor<8x8xi32>
}

// -----

// Must not fire: a non-splat constant is left alone.
// CHECK-LABEL: func.func @non_splat_constant
func.func @non_splat_constant() -> tensor<2x2xi32> {
  // CHECK: %[[C:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  // CHECK: %[[R:.*]] = tile.reshape %[[C]] : tensor<4xi32> -> tensor<2x2xi32>
  // CHECK: return %[[R]]
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = tile.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// Must not fire: reshape does not commute with permute (the element order changes).
// CHECK-LABEL: func.func @reshape_of_permute
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>)
func.func @reshape_of_permute(%a: tensor<4x8xf32>) -> tensor<32xf32> {
  // CHECK: %[[P:.*]] = tile.permute %[[A]] [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: %[[R:.*]] = tile.reshape %[[P]] : tensor<8x4xf32> -> tensor<32xf32>
  // CHECK: return %[[R]]
  %0 = tile.permute %a [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tile.reshape %0 : tensor<8x4xf32> -> tensor<32xf32>
  return %1 : tensor<32xf32>
}

// -----

// Must not fire: a single real reshape of an argument.
// CHECK-LABEL: func.func @single
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>)
func.func @single(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[R:.*]] = tile.reshape %[[A]] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: return %[[R]]
  %0 = tile.reshape %a : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
