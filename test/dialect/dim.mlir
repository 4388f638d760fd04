// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic_sizes
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x?x?xbf16>)
func.func @dynamic_sizes(%x: !tile.view<?x?x?xbf16>) -> (i32, i32, i32) {
  // CHECK: %[[D0:.*]] = tile.dim %[[X]], 0 : !tile.view<?x?x?xbf16>
  // CHECK: %[[D1:.*]] = tile.dim %[[X]], 1 : !tile.view<?x?x?xbf16>
  // CHECK: %[[D2:.*]] = tile.dim %[[X]], 2 : !tile.view<?x?x?xbf16>
  // CHECK: return %[[D0]], %[[D1]], %[[D2]]
  %0 = tile.dim %x, 0 : !tile.view<?x?x?xbf16>
  %1 = tile.dim %x, 1 : !tile.view<?x?x?xbf16>
  %2 = tile.dim %x, 2 : !tile.view<?x?x?xbf16>
  return %0, %1, %2 : i32, i32, i32
}

// Without -canonicalize a static size is not folded: the op prints as written.
// CHECK-LABEL: func.func @static_size
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x128xf32, align = 16, unit_stride>)
func.func @static_size(%x: !tile.view<?x128xf32, align = 16, unit_stride>) -> i32 {
  // CHECK: %[[D:.*]] = tile.dim %[[X]], 1 : !tile.view<?x128xf32, align = 16, unit_stride>
  // CHECK: return %[[D]] : i32
  %0 = tile.dim %x, 1 : !tile.view<?x128xf32, align = 16, unit_stride>
  return %0 : i32
}

// Views have no rank limit of 3 (unlike the grid); dimension 4 of a rank-5 view.
// CHECK-LABEL: func.func @high_rank
func.func @high_rank(%x: !tile.view<?x?x?x?x?xi8>) -> i32 {
  // CHECK: tile.dim %{{.*}}, 4 : !tile.view<?x?x?x?x?xi8>
  %0 = tile.dim %x, 4 : !tile.view<?x?x?x?x?xi8>
  return %0 : i32
}

// The largest static size tile.dim can return.
// CHECK-LABEL: func.func @int32_max_size
func.func @int32_max_size(%x: !tile.view<2147483647xf32>) -> i32 {
  // CHECK: tile.dim %{{.*}}, 0 : !tile.view<2147483647xf32>
  %0 = tile.dim %x, 0 : !tile.view<2147483647xf32>
  return %0 : i32
}
