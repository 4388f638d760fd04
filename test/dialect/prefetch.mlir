// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s -canonicalize -cse | FileCheck %s --check-prefix=KEPT

// A prefetch has no result but is not dead: canonicalization keeps it.
// CHECK-LABEL: func.func @prefetch
// CHECK: tile.prefetch %{{.*}}[%{{.*}}, %{{.*}}] {box = array<i64: 64, 128>} : !tile.view<?x?xbf16, align = 16, unit_stride>
// KEPT: tile.prefetch
func.func @prefetch(%x: !tile.view<?x?xbf16, align = 16, unit_stride>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  tile.prefetch %x[%c0, %c1] {box = array<i64: 64, 128>} : !tile.view<?x?xbf16, align = 16, unit_stride>
  return
}
