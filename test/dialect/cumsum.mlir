// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description.
// CHECK-LABEL: func.func @reverse
// CHECK-SAME: (%[[A:.*]]: tensor<64x8xf32>)
func.func @reverse(%a: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // CHECK: %[[S:.*]] = tile.cumsum %[[A]] {axis = 0 : i64, reverse = true} : tensor<64x8xf32>
  // CHECK: return %[[S]]
  %s = tile.cumsum %a {axis = 0 : i64, reverse = true} : tensor<64x8xf32>
  return %s : tensor<64x8xf32>
}

// `reverse = false` is the default and is not printed.
// CHECK-LABEL: func.func @forward
func.func @forward(%a: tensor<64x8xf32>) -> (tensor<64x8xf32>, tensor<64x8xf32>) {
  // CHECK: tile.cumsum %{{.*}} {axis = 1 : i64} : tensor<64x8xf32>
  // CHECK-NEXT: tile.cumsum %{{.*}} {axis = 1 : i64} : tensor<64x8xf32>
  %0 = tile.cumsum %a {axis = 1 : i64} : tensor<64x8xf32>
  %1 = tile.cumsum %a {axis = 1 : i64, reverse = false} : tensor<64x8xf32>
  return %0, %1 : tensor<64x8xf32>, tensor<64x8xf32>
}

// Float and integer element types.
// CHECK-LABEL: func.func @element_types
func.func @element_types(%a: tensor<16xbf16>, %b: tensor<16xf16>, %c: tensor<16xf64>, %d: tensor<16xi8>, %e: tensor<16xi64>) {
  // CHECK: tile.cumsum %{{.*}} {axis = 0 : i64} : tensor<16xbf16>
  // CHECK: tile.cumsum %{{.*}} {axis = 0 : i64} : tensor<16xf16>
  // CHECK: tile.cumsum %{{.*}} {axis = 0 : i64} : tensor<16xf64>
  // CHECK: tile.cumsum %{{.*}} {axis = 0 : i64, reverse = true} : tensor<16xi8>
  // CHECK: tile.cumsum %{{.*}} {axis = 0 : i64} : tensor<16xi64>
  %0 = tile.cumsum %a {axis = 0 : i64} : tensor<16xbf16>
  %1 = tile.cumsum %b {axis = 0 : i64} : tensor<16xf16>
  %2 = tile.cumsum %c {axis = 0 : i64} : tensor<16xf64>
  %3 = tile.cumsum %d {axis = 0 : i64, reverse = true} : tensor<16xi8>
  %4 = tile.cumsum %e {axis = 0 : i64} : tensor<16xi64>
  return
}

// The last axis of a rank-3 tile; the Mamba-2 chunk scan pattern exp2(cumsum(a)).
// CHECK-LABEL: func.func @scan_then_exp2
func.func @scan_then_exp2(%a: tensor<4x64x8xf32>) -> tensor<4x64x8xf32> {
  // CHECK: %[[S:.*]] = tile.cumsum %{{.*}} {axis = 2 : i64} : tensor<4x64x8xf32>
  // CHECK: math.exp2 %[[S]] : tensor<4x64x8xf32>
  %s = tile.cumsum %a {axis = 2 : i64} : tensor<4x64x8xf32>
  %e = math.exp2 %s : tensor<4x64x8xf32>
  return %e : tensor<4x64x8xf32>
}
