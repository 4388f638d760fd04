// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The example of the op description.
// CHECK-LABEL: func.func @rows
func.func @rows() -> tensor<64x16xi32> {
  // CHECK: %[[I:.*]] = tile.iota {axis = 0 : i64} : tensor<64x16xi32>
  // CHECK: return %[[I]]
  %i = tile.iota {axis = 0 : i64} : tensor<64x16xi32>
  return %i : tensor<64x16xi32>
}

// CHECK-LABEL: func.func @columns
func.func @columns() -> tensor<64x16xi64> {
  // CHECK: tile.iota {axis = 1 : i64} : tensor<64x16xi64>
  %i = tile.iota {axis = 1 : i64} : tensor<64x16xi64>
  return %i : tensor<64x16xi64>
}

// The largest extent each narrow type holds (the last value is extent - 1).
// CHECK-LABEL: func.func @limits
func.func @limits() {
  // CHECK: tile.iota {axis = 0 : i64} : tensor<128xi8>
  // CHECK: tile.iota {axis = 1 : i64} : tensor<4x32768xi16>
  // CHECK: tile.iota {axis = 0 : i64} : tensor<1xi8>
  // Only the extent along the axis counts: 256 elsewhere is fine for i8.
  // CHECK: tile.iota {axis = 1 : i64} : tensor<256x2xi8>
  %0 = tile.iota {axis = 0 : i64} : tensor<128xi8>
  %1 = tile.iota {axis = 1 : i64} : tensor<4x32768xi16>
  %2 = tile.iota {axis = 0 : i64} : tensor<1xi8>
  %3 = tile.iota {axis = 1 : i64} : tensor<256x2xi8>
  return
}

// A causal mask: row index >= column index.
// CHECK-LABEL: func.func @causal_mask
func.func @causal_mask() -> tensor<64x64xi1> {
  // CHECK: %[[R:.*]] = tile.iota {axis = 0 : i64} : tensor<64x64xi32>
  // CHECK: %[[C:.*]] = tile.iota {axis = 1 : i64} : tensor<64x64xi32>
  // CHECK: arith.cmpi sge, %[[R]], %[[C]] : tensor<64x64xi32>
  %r = tile.iota {axis = 0 : i64} : tensor<64x64xi32>
  %c = tile.iota {axis = 1 : i64} : tensor<64x64xi32>
  %m = arith.cmpi sge, %r, %c : tensor<64x64xi32>
  return %m : tensor<64x64xi1>
}
