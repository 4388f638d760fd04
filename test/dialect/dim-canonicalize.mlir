// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s

// A static view size is a promise checked at launch: tile.dim of it folds to a
// constant; dynamic sizes stay queries.
// CHECK-LABEL: func.func @fold_static_keep_dynamic
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x128x?xf32>)
func.func @fold_static_keep_dynamic(%x: !tile.view<?x128x?xf32>) -> (i32, i32, i32) {
  // CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i32
  // CHECK-DAG: %[[D0:.*]] = tile.dim %[[X]], 0 : !tile.view<?x128x?xf32>
  // CHECK-DAG: %[[D2:.*]] = tile.dim %[[X]], 2 : !tile.view<?x128x?xf32>
  // CHECK-NOT: tile.dim %[[X]], 1
  // CHECK: return %[[D0]], %[[C128]], %[[D2]] : i32, i32, i32
  %0 = tile.dim %x, 0 : !tile.view<?x128x?xf32>
  %1 = tile.dim %x, 1 : !tile.view<?x128x?xf32>
  %2 = tile.dim %x, 2 : !tile.view<?x128x?xf32>
  return %0, %1, %2 : i32, i32, i32
}

// -----

// The folded constant feeds arith's own folders.
// CHECK-LABEL: func.func @fold_into_arith
func.func @fold_into_arith(%x: !tile.view<64x32xf32>) -> i32 {
  // CHECK: %[[C2048:.*]] = arith.constant 2048 : i32
  // CHECK-NOT: tile.dim
  // CHECK: return %[[C2048]] : i32
  %0 = tile.dim %x, 0 : !tile.view<64x32xf32>
  %1 = tile.dim %x, 1 : !tile.view<64x32xf32>
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}

// -----

// A size of 0 is a valid static size (an empty view) and folds too.
// CHECK-LABEL: func.func @fold_zero_size
func.func @fold_zero_size(%x: !tile.view<0x?xf16>) -> i32 {
  // CHECK: %[[C0:.*]] = arith.constant 0 : i32
  // CHECK: return %[[C0]]
  %0 = tile.dim %x, 0 : !tile.view<0x?xf16>
  return %0 : i32
}

// -----

// The largest foldable size.
// CHECK-LABEL: func.func @fold_int32_max
func.func @fold_int32_max(%x: !tile.view<2147483647xi8>) -> i32 {
  // CHECK: %[[C:.*]] = arith.constant 2147483647 : i32
  // CHECK: return %[[C]]
  %0 = tile.dim %x, 0 : !tile.view<2147483647xi8>
  return %0 : i32
}

// -----

// Unused queries are pure and disappear.
// CHECK-LABEL: func.func @dead_dim
func.func @dead_dim(%x: !tile.view<?xf32>) {
  // CHECK-NEXT: return
  %0 = tile.dim %x, 0 : !tile.view<?xf32>
  return
}
