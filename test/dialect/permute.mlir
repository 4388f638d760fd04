// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description: a transpose.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf32>)
func.func @transpose(%a: tensor<64x32xf32>) -> tensor<32x64xf32> {
  // CHECK: %[[T:.*]] = tile.permute %[[A]] [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  // CHECK: return %[[T]]
  %t = tile.permute %a [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  return %t : tensor<32x64xf32>
}

// Result dimension k is source dimension perm[k].
// CHECK-LABEL: func.func @rotate3
func.func @rotate3(%a: tensor<2x4x8xbf16>) -> tensor<8x2x4xbf16> {
  // CHECK: tile.permute %{{.*}} [2, 0, 1] : tensor<2x4x8xbf16> -> tensor<8x2x4xbf16>
  %t = tile.permute %a [2, 0, 1] : tensor<2x4x8xbf16> -> tensor<8x2x4xbf16>
  return %t : tensor<8x2x4xbf16>
}

// Identity permutations and rank-0 tiles are legal (and kept without -canonicalize).
// CHECK-LABEL: func.func @identity
func.func @identity(%a: tensor<4x8xi32>, %s: tensor<i32>) -> (tensor<4x8xi32>, tensor<i32>) {
  // CHECK: tile.permute %{{.*}} [0, 1] : tensor<4x8xi32> -> tensor<4x8xi32>
  // CHECK: tile.permute %{{.*}} [] : tensor<i32> -> tensor<i32>
  %0 = tile.permute %a [0, 1] : tensor<4x8xi32> -> tensor<4x8xi32>
  %1 = tile.permute %s [] : tensor<i32> -> tensor<i32>
  return %0, %1 : tensor<4x8xi32>, tensor<i32>
}

// A square transpose: the types match, only the attribute tells them apart.
// CHECK-LABEL: func.func @square
func.func @square(%a: tensor<16x16xf16>) -> tensor<16x16xf16> {
  // CHECK: tile.permute %{{.*}} [1, 0] : tensor<16x16xf16> -> tensor<16x16xf16>
  %t = tile.permute %a [1, 0] : tensor<16x16xf16> -> tensor<16x16xf16>
  return %t : tensor<16x16xf16>
}
