// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// CHECK-LABEL: func.func @load_2d
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x?xf32>, %[[I:.*]]: i32, %[[J:.*]]: i32)
func.func @load_2d(%x: !tile.view<?x?xf32>, %i: i32, %j: i32) -> tensor<64x16xf32> {
  // The default padding (zero) is not printed.
  // CHECK: %[[T:.*]] = tile.load %[[X]][%[[I]], %[[J]]] : !tile.view<?x?xf32> -> tensor<64x16xf32>
  // CHECK: return %[[T]]
  %t = tile.load %x[%i, %j] : !tile.view<?x?xf32> -> tensor<64x16xf32>
  return %t : tensor<64x16xf32>
}

// CHECK-LABEL: func.func @load_1d_static_view
// CHECK-SAME: (%[[X:.*]]: !tile.view<1024xbf16, align = 16, unit_stride>, %[[I:.*]]: i32)
func.func @load_1d_static_view(%x: !tile.view<1024xbf16, align = 16, unit_stride>, %i: i32) -> tensor<128xbf16> {
  // CHECK: tile.load %[[X]][%[[I]]] : !tile.view<1024xbf16, align = 16, unit_stride> -> tensor<128xbf16>
  %t = tile.load %x[%i] : !tile.view<1024xbf16, align = 16, unit_stride> -> tensor<128xbf16>
  return %t : tensor<128xbf16>
}

// Unit tiles and tiles of 1 element along a dimension are fine (1 = 2^0).
// CHECK-LABEL: func.func @load_unit_dims
func.func @load_unit_dims(%x: !tile.view<?x?xi8>, %i: i32) -> tensor<1x1xi8> {
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.view<?x?xi8> -> tensor<1x1xi8>
  %t = tile.load %x[%i, %i] : !tile.view<?x?xi8> -> tensor<1x1xi8>
  return %t : tensor<1x1xi8>
}

// Indices are i32 values computed by arith; the same value may repeat.
// CHECK-LABEL: func.func @load_computed_index
func.func @load_computed_index(%x: !tile.view<?x?x?xf16>) -> tensor<16x32x64xf16> {
  // CHECK: %[[PID:.*]] = tile.program_id 0
  // CHECK: %[[K:.*]] = arith.addi %[[PID]], %{{.*}} : i32
  // CHECK: tile.load %{{.*}}[%[[K]], %[[PID]], %[[K]]] : !tile.view<?x?x?xf16> -> tensor<16x32x64xf16>
  %pid = tile.program_id 0
  %c1 = arith.constant 1 : i32
  %k = arith.addi %pid, %c1 : i32
  %t = tile.load %x[%k, %pid, %k] : !tile.view<?x?x?xf16> -> tensor<16x32x64xf16>
  return %t : tensor<16x32x64xf16>
}
