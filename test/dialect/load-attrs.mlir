// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// Every value of every tile.load attribute, at the edges of its range.

// CHECK-LABEL: func.func @paddings
func.func @paddings(%x: !tile.view<?x?xf32>, %i: i32) {
  // An explicit `zero` is the default and is elided when printed.
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.view<?x?xf32> -> tensor<8x8xf32>
  // CHECK: tile.load %{{.*}} {padding = #tile<padding neg_inf>} : !tile.view<?x?xf32> -> tensor<8x8xf32>
  // CHECK: tile.load %{{.*}} {padding = #tile<padding nan>} : !tile.view<?x?xf32> -> tensor<8x8xf32>
  %0 = tile.load %x[%i, %i] {padding = #tile<padding zero>} : !tile.view<?x?xf32> -> tensor<8x8xf32>
  %1 = tile.load %x[%i, %i] {padding = #tile<padding neg_inf>} : !tile.view<?x?xf32> -> tensor<8x8xf32>
  %2 = tile.load %x[%i, %i] {padding = #tile<padding nan>} : !tile.view<?x?xf32> -> tensor<8x8xf32>
  return
}

// neg_inf and nan padding work for every float element type.
// CHECK-LABEL: func.func @float_paddings
func.func @float_paddings(%a: !tile.view<?xbf16>, %b: !tile.view<?xf16>, %c: !tile.view<?xf64>, %i: i32) {
  // CHECK: {padding = #tile<padding neg_inf>} : !tile.view<?xbf16> -> tensor<64xbf16>
  // CHECK: {padding = #tile<padding nan>} : !tile.view<?xf16> -> tensor<64xf16>
  // CHECK: {padding = #tile<padding neg_inf>} : !tile.view<?xf64> -> tensor<64xf64>
  %0 = tile.load %a[%i] {padding = #tile<padding neg_inf>} : !tile.view<?xbf16> -> tensor<64xbf16>
  %1 = tile.load %b[%i] {padding = #tile<padding nan>} : !tile.view<?xf16> -> tensor<64xf16>
  %2 = tile.load %c[%i] {padding = #tile<padding neg_inf>} : !tile.view<?xf64> -> tensor<64xf64>
  return
}

// Integer tiles take zero padding.
// CHECK-LABEL: func.func @integer_zero_padding
func.func @integer_zero_padding(%x: !tile.view<?xi32>, %i: i32) {
  // CHECK: tile.load %{{.*}}[%{{.*}}] : !tile.view<?xi32> -> tensor<32xi32>
  %0 = tile.load %x[%i] {padding = #tile<padding zero>} : !tile.view<?xi32> -> tensor<32xi32>
  return
}

// CHECK-LABEL: func.func @latency_bounds
func.func @latency_bounds(%x: !tile.view<?xf32>, %i: i32) {
  // CHECK: tile.load %{{.*}} {latency = 1 : i64} : !tile.view<?xf32> -> tensor<16xf32>
  // CHECK: tile.load %{{.*}} {latency = 10 : i64} : !tile.view<?xf32> -> tensor<16xf32>
  %0 = tile.load %x[%i] {latency = 1} : !tile.view<?xf32> -> tensor<16xf32>
  %1 = tile.load %x[%i] {latency = 10 : i64} : !tile.view<?xf32> -> tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @allow_tma
func.func @allow_tma(%x: !tile.view<?xf32>, %i: i32) {
  // CHECK: tile.load %{{.*}} {allow_tma = false} : !tile.view<?xf32> -> tensor<16xf32>
  // CHECK: tile.load %{{.*}} {allow_tma = true} : !tile.view<?xf32> -> tensor<16xf32>
  %0 = tile.load %x[%i] {allow_tma = false} : !tile.view<?xf32> -> tensor<16xf32>
  %1 = tile.load %x[%i] {allow_tma = true} : !tile.view<?xf32> -> tensor<16xf32>
  return
}

// All attributes at once, printed in alphabetical order whatever the input order.
// CHECK-LABEL: func.func @all_attrs
func.func @all_attrs(%x: !tile.view<?x?x?xf32>, %i: i32) {
  // CHECK: tile.load %{{.*}} {allow_tma = false, latency = 3 : i64, padding = #tile<padding neg_inf>, squeeze = array<i64: 1>} : !tile.view<?x?x?xf32> -> tensor<32x8xf32>
  %0 = tile.load %x[%i, %i, %i] {squeeze = array<i64: 1>, padding = #tile<padding neg_inf>, latency = 3, allow_tma = false} : !tile.view<?x?x?xf32> -> tensor<32x8xf32>
  return
}
