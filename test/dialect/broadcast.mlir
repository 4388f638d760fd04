// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description: a unit dimension is repeated.
// CHECK-LABEL: func.func @unit_dim
// CHECK-SAME: (%[[A:.*]]: tensor<1x64xf32>)
func.func @unit_dim(%a: tensor<1x64xf32>) -> tensor<32x64xf32> {
  // CHECK: %[[B:.*]] = tile.broadcast %[[A]] : tensor<1x64xf32> -> tensor<32x64xf32>
  // CHECK: return %[[B]]
  %b = tile.broadcast %a : tensor<1x64xf32> -> tensor<32x64xf32>
  return %b : tensor<32x64xf32>
}

// Missing leading dimensions are added (NumPy alignment from the right).
// CHECK-LABEL: func.func @leading_dims
func.func @leading_dims(%a: tensor<64xbf16>) -> tensor<4x8x64xbf16> {
  // CHECK: tile.broadcast %{{.*}} : tensor<64xbf16> -> tensor<4x8x64xbf16>
  %b = tile.broadcast %a : tensor<64xbf16> -> tensor<4x8x64xbf16>
  return %b : tensor<4x8x64xbf16>
}

// Both at once, and a column broadcast (trailing unit dimension).
// CHECK-LABEL: func.func @mixed
func.func @mixed(%a: tensor<1x8x1xi32>, %c: tensor<64x1xf32>) -> (tensor<2x4x8x16xi32>, tensor<64x32xf32>) {
  // CHECK: tile.broadcast %{{.*}} : tensor<1x8x1xi32> -> tensor<2x4x8x16xi32>
  // CHECK: tile.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x32xf32>
  %0 = tile.broadcast %a : tensor<1x8x1xi32> -> tensor<2x4x8x16xi32>
  %1 = tile.broadcast %c : tensor<64x1xf32> -> tensor<64x32xf32>
  return %0, %1 : tensor<2x4x8x16xi32>, tensor<64x32xf32>
}

// A rank-0 tile broadcasts to any shape; a same-shape broadcast is legal.
// CHECK-LABEL: func.func @scalar_and_same
func.func @scalar_and_same(%s: tensor<f16>, %a: tensor<8x8xf16>) -> (tensor<16x16xf16>, tensor<8x8xf16>) {
  // CHECK: tile.broadcast %{{.*}} : tensor<f16> -> tensor<16x16xf16>
  // CHECK: tile.broadcast %{{.*}} : tensor<8x8xf16> -> tensor<8x8xf16>
  %0 = tile.broadcast %s : tensor<f16> -> tensor<16x16xf16>
  %1 = tile.broadcast %a : tensor<8x8xf16> -> tensor<8x8xf16>
  return %0, %1 : tensor<16x16xf16>, tensor<8x8xf16>
}
