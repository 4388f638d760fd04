// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s

// Splat constants flow through every shape change and come out as one splat
// constant of the final shape.

// CHECK-LABEL: func.func @chain
func.func @chain() -> tensor<4x2x8xf32> {
  // CHECK: %[[C:.*]] = arith.constant dense<2.500000e-01> : tensor<4x2x8xf32>
  // CHECK-NOT: tile.
  // CHECK: return %[[C]]
  %c = arith.constant dense<0.25> : tensor<8xf32>
  %0 = tile.broadcast %c : tensor<8xf32> -> tensor<8x8xf32>
  %1 = tile.reshape %0 : tensor<8x8xf32> -> tensor<2x4x8xf32>
  %2 = tile.permute %1 [1, 0, 2] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  return %2 : tensor<4x2x8xf32>
}

// -----

// Integer, bf16 and i1 splats.
// CHECK-LABEL: func.func @element_types
func.func @element_types() -> (tensor<4x4xi8>, tensor<16xbf16>, tensor<2x2xi1>) {
  // CHECK-DAG: %[[I:.*]] = arith.constant dense<-3> : tensor<4x4xi8>
  // CHECK-DAG: %[[B:.*]] = arith.constant dense<1.000000e+00> : tensor<16xbf16>
  // CHECK-DAG: %[[T:.*]] = arith.constant dense<true> : tensor<2x2xi1>
  // CHECK-NOT: tile.
  // CHECK: return %[[I]], %[[B]], %[[T]]
  %i = arith.constant dense<-3> : tensor<4xi8>
  %b = arith.constant dense<1.0> : tensor<4x4xbf16>
  %t = arith.constant dense<true> : tensor<4xi1>
  %0 = tile.broadcast %i : tensor<4xi8> -> tensor<4x4xi8>
  %1 = tile.reshape %b : tensor<4x4xbf16> -> tensor<16xbf16>
  %2 = tile.reshape %t : tensor<4xi1> -> tensor<2x2xi1>
  return %0, %1, %2 : tensor<4x4xi8>, tensor<16xbf16>, tensor<2x2xi1>
}

// -----

// A rank-0 constant broadcast to a tile: the usual way a scalar enters tile math.
// CHECK-LABEL: func.func @scalar_broadcast
func.func @scalar_broadcast(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<8x8xf32>
  // CHECK: %[[M:.*]] = arith.mulf %{{.*}}, %[[C]] : tensor<8x8xf32>
  // CHECK: return %[[M]]
  %c = arith.constant dense<2.0> : tensor<f32>
  %0 = tile.broadcast %c : tensor<f32> -> tensor<8x8xf32>
  %1 = arith.mulf %a, %0 : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// Must not fold: a non-splat constant stops the chain where it is not splat.
// CHECK-LABEL: func.func @non_splat_chain
func.func @non_splat_chain() -> tensor<2x2x2xi32> {
  // CHECK: %[[C:.*]] = arith.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK: %[[B:.*]] = tile.broadcast %[[C]] : tensor<2xi32> -> tensor<4x2xi32>
  // CHECK: %[[R:.*]] = tile.reshape %[[B]] : tensor<4x2xi32> -> tensor<2x2x2xi32>
  // CHECK: return %[[R]]
  %c = arith.constant dense<[1, 2]> : tensor<2xi32>
  %0 = tile.broadcast %c : tensor<2xi32> -> tensor<4x2xi32>
  %1 = tile.reshape %0 : tensor<4x2xi32> -> tensor<2x2x2xi32>
  return %1 : tensor<2x2x2xi32>
}
