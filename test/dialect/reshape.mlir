// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description.
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[A:.*]]: tensor<64xf32>)
func.func @split(%a: tensor<64xf32>) -> tensor<8x8xf32> {
  // CHECK: %[[R:.*]] = tile.reshape %[[A]] : tensor<64xf32> -> tensor<8x8xf32>
  // CHECK: return %[[R]]
  %r = tile.reshape %a : tensor<64xf32> -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// Merging, regrouping, adding and dropping unit dimensions.
// CHECK-LABEL: func.func @shapes
func.func @shapes(%a: tensor<4x16xbf16>, %b: tensor<64x1xi8>) {
  // CHECK: tile.reshape %{{.*}} : tensor<4x16xbf16> -> tensor<64xbf16>
  // CHECK: tile.reshape %{{.*}} : tensor<4x16xbf16> -> tensor<16x4xbf16>
  // CHECK: tile.reshape %{{.*}} : tensor<4x16xbf16> -> tensor<2x2x2x8xbf16>
  // CHECK: tile.reshape %{{.*}} : tensor<64x1xi8> -> tensor<64xi8>
  %0 = tile.reshape %a : tensor<4x16xbf16> -> tensor<64xbf16>
  %1 = tile.reshape %a : tensor<4x16xbf16> -> tensor<16x4xbf16>
  %2 = tile.reshape %a : tensor<4x16xbf16> -> tensor<2x2x2x8xbf16>
  %3 = tile.reshape %b : tensor<64x1xi8> -> tensor<64xi8>
  return
}

// One element: rank 0 <-> 1x1.
// CHECK-LABEL: func.func @scalar
func.func @scalar(%s: tensor<f32>) -> tensor<f32> {
  // CHECK: %[[R0:.*]] = tile.reshape %{{.*}} : tensor<f32> -> tensor<1x1xf32>
  // CHECK: %[[R1:.*]] = tile.reshape %[[R0]] : tensor<1x1xf32> -> tensor<f32>
  // CHECK: return %[[R1]]
  %0 = tile.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %1 = tile.reshape %0 : tensor<1x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
