// RUN: tessel-opt %s -split-input-file --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null
// RUN: tessel-opt %s -split-input-file --tilegpu-insert-tma | FileCheck %s

// The rules of passes/TmaPlan.cpp, one by one, through tilegpu-insert-tma's
// remarks (test/passes/insert-tma.mlir has the common cases: alignment,
// allow_tma, a tile used in registers, narrow rows, a store that does not
// ask, a store to a loaded view; test/codegen/tma-invalid.mlir the lowering's
// rejection of a mark the rules do not allow).

// Box shapes: 4-byte elements (32 f32 fill a 128-byte panel), and the row
// count: a multiple of 8, at most 256.
// CHECK-LABEL: func.func @rows
// CHECK: tile.store {{.*}} {tilegpu.tma, tma = true} : tensor<256x32xf32>
// CHECK-NOT: {{tilegpu\.tma[,}]}}
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @rows(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %b: !tile.view<?x?xf32, align = 16, unit_stride>, %c: !tile.view<?x?xf32, align = 16, unit_stride>, %d: !tile.view<?x?xi8, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %t1 = arith.constant dense<1.0> : tensor<256x32xf32>
    // expected-remark @below {{copied by the TMA}}
    tile.store %t1, %a[%c0, %c0] {tma = true} : tensor<256x32xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    %t2 = arith.constant dense<1.0> : tensor<512x32xf32>
    // expected-remark @below {{not copied by the TMA: the tile's rows are not a multiple of 8 up to 256}}
    tile.store %t2, %b[%c0, %c0] {tma = true} : tensor<512x32xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    %t3 = arith.constant dense<1.0> : tensor<4x32xf32>
    // expected-remark @below {{not copied by the TMA: the tile's rows are not a multiple of 8 up to 256}}
    tile.store %t3, %c[%c0, %c0] {tma = true} : tensor<4x32xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    %t4 = arith.constant dense<1> : tensor<64x128xi8>
    // expected-remark @below {{not copied by the TMA: the elements are not 2 or 4 bytes}}
    tile.store %t4, %d[%c0, %c0] {tma = true} : tensor<64x128xi8>, !tile.view<?x?xi8, align = 16, unit_stride>
    return
  }
}

// -----

// Views: the tile's rows must lie along the view's last dimension (a store
// that squeezes it is not one box of panels), and the view must be an
// argument of the kernel (here a loop carries it).
// CHECK-LABEL: func.func @views
// CHECK-NOT: {{tilegpu\.tma[,}]}}
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @views(%a: !tile.view<?x?x?xbf16, align = 16, unit_stride>, %v0: !tile.view<?x?xbf16, align = 16, unit_stride>, %o: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = arith.constant dense<1.0> : tensor<64x64xbf16>
    // expected-remark @below {{not copied by the TMA: the tile squeezes the view's last dimension}}
    tile.store %t, %a[%c0, %c0, %c0] {squeeze = array<i64: 2>, tma = true} : tensor<64x64xbf16>, !tile.view<?x?x?xbf16, align = 16, unit_stride>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %v = %v0) -> (tensor<64x64xf32>, !tile.view<?x?xbf16, align = 16, unit_stride>) : i32 {
      // expected-remark @below {{not copied by the TMA: the view is not a kernel argument}}
      %x = tile.load %v[%i, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %x, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d, %v : tensor<64x64xf32>, !tile.view<?x?xbf16, align = 16, unit_stride>
    }
    tile.store %r#0, %o[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A loop-invariant mma operand (loaded before the loop, an mma operand only
// inside it, its view not written after): copied once, where it stands.
// Loaded, then a store, then its mma: copying at the mma could read what
// the store wrote, and no loop below uses it: not copied.
// CHECK-LABEL: func.func @resident
// CHECK: %[[X:.*]] = tile.load %arg0{{.*}} {tilegpu.tma}
// CHECK: %[[Y:.*]] = tile.load %arg1
// CHECK-NOT: tilegpu.tma
// CHECK-SAME: -> tensor<64x64xbf16>
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @resident(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %o: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-remark @below {{copied by the TMA}}
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand loaded where it is used, a loop-invariant one, one read as mma fragments, one a loop issues ahead into registers (hint tma_register_loads), or one an mma operand is computed from (hint operand_in_place)}}
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %d = tile.mma %x, %x, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %o[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    %e = tile.mma %y, %y, %r {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %e, %o[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
