// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description.
// CHECK-LABEL: func.func @max_rows
// CHECK-SAME: (%[[A:.*]]: tensor<64x8xf32>)
func.func @max_rows(%a: tensor<64x8xf32>) -> tensor<64xf32> {
  // CHECK: %[[M:.*]] = tile.reduce max %[[A]] {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  // CHECK: return %[[M]]
  %m = tile.reduce max %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return %m : tensor<64xf32>
}

// Every kind; the kind is a bare keyword in front of the operand.
// CHECK-LABEL: func.func @kinds
func.func @kinds(%a: tensor<64x8xf32>) {
  // CHECK: tile.reduce sum %{{.*}} {axis = 0 : i64} : tensor<64x8xf32> -> tensor<8xf32>
  // CHECK: tile.reduce max %{{.*}} {axis = 0 : i64} : tensor<64x8xf32> -> tensor<8xf32>
  // CHECK: tile.reduce min %{{.*}} {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  %0 = tile.reduce sum %a {axis = 0 : i64} : tensor<64x8xf32> -> tensor<8xf32>
  %1 = tile.reduce max %a {axis = 0 : i64} : tensor<64x8xf32> -> tensor<8xf32>
  %2 = tile.reduce min %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// A rank-1 source reduces to a rank-0 tile.
// CHECK-LABEL: func.func @to_scalar
func.func @to_scalar(%a: tensor<128xi32>) -> tensor<i32> {
  // CHECK: tile.reduce sum %{{.*}} {axis = 0 : i64} : tensor<128xi32> -> tensor<i32>
  %s = tile.reduce sum %a {axis = 0 : i64} : tensor<128xi32> -> tensor<i32>
  return %s : tensor<i32>
}

// The middle axis of a rank-3 tile; integer and narrow float types.
// CHECK-LABEL: func.func @rank3
func.func @rank3(%a: tensor<2x4x8xi16>, %b: tensor<2x4x8xbf16>) {
  // CHECK: tile.reduce min %{{.*}} {axis = 1 : i64} : tensor<2x4x8xi16> -> tensor<2x8xi16>
  // CHECK: tile.reduce max %{{.*}} {axis = 1 : i64} : tensor<2x4x8xbf16> -> tensor<2x8xbf16>
  %0 = tile.reduce min %a {axis = 1 : i64} : tensor<2x4x8xi16> -> tensor<2x8xi16>
  %1 = tile.reduce max %b {axis = 1 : i64} : tensor<2x4x8xbf16> -> tensor<2x8xbf16>
  return
}

// The generic form spells the kind as an enum attribute.
// CHECK-LABEL: func.func @generic_input
func.func @generic_input(%a: tensor<64x8xf32>) -> tensor<64xf32> {
  // CHECK: tile.reduce min %{{.*}} {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  %m = "tile.reduce"(%a) <{axis = 1 : i64, kind = #tile<reduce_kind min>}> : (tensor<64x8xf32>) -> tensor<64xf32>
  return %m : tensor<64xf32>
}
