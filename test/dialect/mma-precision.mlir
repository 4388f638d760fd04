// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// Each precision with the operand type it takes.

// CHECK-LABEL: func.func @bf16
func.func @bf16(%a: tensor<64x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x8xbf16>, tensor<64x8xf32>
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x8xbf16>, tensor<64x8xf32>
  return %d : tensor<64x8xf32>
}

// CHECK-LABEL: func.func @f16
func.func @f16(%a: tensor<64x16xf16>, %b: tensor<16x8xf16>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {precision = #tile<precision f16>} : tensor<64x16xf16>, tensor<16x8xf16>, tensor<64x8xf32>
  %d = tile.mma %a, %b, %c {precision = #tile<precision f16>} : tensor<64x16xf16>, tensor<16x8xf16>, tensor<64x8xf32>
  return %d : tensor<64x8xf32>
}

// tf32 takes f32 operands (rounded to tf32 by the tensor cores).
// CHECK-LABEL: func.func @tf32
func.func @tf32(%a: tensor<64x8xf32>, %b: tensor<8x8xf32>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {precision = #tile<precision tf32>} : tensor<64x8xf32>, tensor<8x8xf32>, tensor<64x8xf32>
  %d = tile.mma %a, %b, %c {precision = #tile<precision tf32>} : tensor<64x8xf32>, tensor<8x8xf32>, tensor<64x8xf32>
  return %d : tensor<64x8xf32>
}
