// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description.
// CHECK-LABEL: func.func @mma_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<64x16xbf16>, %[[B:.*]]: tensor<16x32xbf16>, %[[C:.*]]: tensor<64x32xf32>)
func.func @mma_bf16(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  // CHECK: %[[D:.*]] = tile.mma %[[A]], %[[B]], %[[C]] {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  // CHECK: return %[[D]] : tensor<64x32xf32>
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// Chained products accumulate into the previous result.
// CHECK-LABEL: func.func @mma_chain
func.func @mma_chain(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<128x128xf32> {
  // CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  // CHECK: %[[D0:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[ZERO]] {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  // CHECK: %[[D1:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[D0]] {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  // CHECK: return %[[D1]]
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d0 = tile.mma %a, %b, %zero {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  %d1 = tile.mma %a, %b, %d0 {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
  return %d1 : tensor<128x128xf32>
}

// Degenerate (but legal) shapes: K = 1, an outer product; M = N = 1.
// CHECK-LABEL: func.func @mma_degenerate
func.func @mma_degenerate(%a: tensor<16x1xf16>, %b: tensor<1x16xf16>, %c: tensor<16x16xf32>,
                          %u: tensor<1x64xf16>, %v: tensor<64x1xf16>, %w: tensor<1x1xf32>) {
  // CHECK: tile.mma %{{.*}} : tensor<16x1xf16>, tensor<1x16xf16>, tensor<16x16xf32>
  // CHECK: tile.mma %{{.*}} : tensor<1x64xf16>, tensor<64x1xf16>, tensor<1x1xf32>
  %0 = tile.mma %a, %b, %c {precision = #tile<precision f16>} : tensor<16x1xf16>, tensor<1x16xf16>, tensor<16x16xf32>
  %1 = tile.mma %u, %v, %w {precision = #tile<precision f16>} : tensor<1x64xf16>, tensor<64x1xf16>, tensor<1x1xf32>
  return
}
