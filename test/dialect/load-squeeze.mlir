// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// `squeeze` lists the view dimensions a tile drops (extent 1 in the view box).

// The example of the op description: x is (batch, L, heads).
// CHECK-LABEL: func.func @squeeze_batch
func.func @squeeze_batch(%x: !tile.view<?x?x?xbf16>, %b: i32, %c: i32, %h: i32) -> tensor<64x16xbf16> {
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {squeeze = array<i64: 0>} : !tile.view<?x?x?xbf16> -> tensor<64x16xbf16>
  %t = tile.load %x[%b, %c, %h] {squeeze = array<i64: 0>, padding = #tile<padding zero>} : !tile.view<?x?x?xbf16> -> tensor<64x16xbf16>
  return %t : tensor<64x16xbf16>
}

// CHECK-LABEL: func.func @squeeze_middle_and_last
func.func @squeeze_middle_and_last(%x: !tile.view<?x?x?x?xf32>, %i: i32) -> tensor<8x4xf32> {
  // CHECK: tile.load %{{.*}} {squeeze = array<i64: 1, 3>} : !tile.view<?x?x?x?xf32> -> tensor<8x4xf32>
  %t = tile.load %x[%i, %i, %i, %i] {squeeze = array<i64: 1, 3>} : !tile.view<?x?x?x?xf32> -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// Squeezing every dimension gives a rank-0 tile (one element).
// CHECK-LABEL: func.func @squeeze_all
func.func @squeeze_all(%x: !tile.view<?x?xf32>, %i: i32) -> tensor<f32> {
  // CHECK: tile.load %{{.*}} {squeeze = array<i64: 0, 1>} : !tile.view<?x?xf32> -> tensor<f32>
  %t = tile.load %x[%i, %i] {squeeze = array<i64: 0, 1>} : !tile.view<?x?xf32> -> tensor<f32>
  return %t : tensor<f32>
}

// An empty squeeze list is the same as none; it is kept as written.
// CHECK-LABEL: func.func @squeeze_empty
func.func @squeeze_empty(%x: !tile.view<?xf32>, %i: i32) -> tensor<16xf32> {
  // CHECK: tile.load %{{.*}} {squeeze = array<i64>} : !tile.view<?xf32> -> tensor<16xf32>
  %t = tile.load %x[%i] {squeeze = array<i64>} : !tile.view<?xf32> -> tensor<16xf32>
  return %t : tensor<16xf32>
}
