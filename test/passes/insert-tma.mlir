// RUN: tessel-opt %s -split-input-file --tilegpu-insert-tma | FileCheck %s
// With remarks, every load and TMA store says whether the TMA copies it and
// why not:
// RUN: tessel-opt %s -split-input-file --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null
// RUN: tessel-opt %s -split-input-file --tilegpu-insert-tma --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LLVM

// An mma operand loaded where it is used, a transposed one, and a store that
// asks for the TMA: all marked. The lowering copies them with
// cp.async.bulk.tensor (two loads, one store).
// CHECK-LABEL: func.func @marked
// CHECK: tile.load %{{.*}} {tilegpu.tma} : {{.*}} -> tensor<64x64xbf16>
// CHECK: tile.load %{{.*}} {tilegpu.tma} : {{.*}} -> tensor<64x64xbf16>
// CHECK: tile.store {{.*}} {tilegpu.tma, tma = true} : tensor<64x64xbf16>
// LLVM-LABEL: llvm.func @marked
// LLVM-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: nvvm.cp.async.bulk.tensor.global.shared.cta
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @marked(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xbf16, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-remark @below {{copied by the TMA}}
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    // expected-remark @below {{copied by the TMA}}
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %d = tile.mma %x, %yt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %e = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xbf16>
    // expected-remark @below {{copied by the TMA}}
    tile.store %e, %c[%c0, %c0] {tma = true} : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    return
  }
}

// -----

// Must not fire: a target without the TMA.
// CHECK-LABEL: func.func @no_tma_target
// CHECK-NOT: {{tilegpu\.tma[,}]}}
// LLVM-LABEL: llvm.func @no_tma_target
// LLVM-NOT: cp.async.bulk.tensor
module attributes {tilegpu.target = "sm_80"} {
  func.func @no_tma_target(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-remark @below {{not copied by the TMA: the target has no TMA}}
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %d = tile.mma %x, %x, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: a view without the alignment and unit-stride promises; a
// load with allow_tma = false; a load whose tile is also used in registers;
// rows narrower than a 128-byte panel (32 bf16 = 64 bytes); a store that
// does not ask for it; a store to a view the kernel also loads.
// CHECK-LABEL: func.func @not_marked
// CHECK-NOT: {{tilegpu\.tma[,}]}}
// LLVM-LABEL: llvm.func @not_marked
// LLVM-NOT: cp.async.bulk.tensor
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_marked(%plain: !tile.view<?x?xbf16>, %a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32, align = 16, unit_stride>, %d: !tile.view<?x?xf32, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %z32 = arith.constant dense<0.0> : tensor<64x32xf32>
    // expected-remark @below {{not copied by the TMA: the view does not promise unit stride and 16-byte alignment}}
    %p = tile.load %plain[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    // expected-remark @below {{not copied by the TMA: the load says allow_tma = false}}
    %q = tile.load %a[%c0, %c0] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %m = tile.mma %p, %q, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand loaded where it is used, a loop-invariant one, one read as mma fragments, one a loop issues ahead into registers (hint tma_register_loads), or one an mma operand is computed from (hint operand_in_place)}}
    %r = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %n = tile.mma %r, %r, %m {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %rf = arith.extf %r : tensor<64x64xbf16> to tensor<64x64xf32>
    %s = arith.addf %n, %rf : tensor<64x64xf32>
    // expected-remark @below {{not copied by the TMA: the tile's rows are not whole 128-byte panels}}
    %w = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x32xbf16>
    // expected-remark @below {{not copied by the TMA: the tile's rows are not whole 128-byte panels}}
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x32xbf16>
    %xw = tile.mma %w, %x, %z32 {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x32xbf16>, tensor<64x32xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand loaded where it is used, a loop-invariant one, one read as mma fragments, one a loop issues ahead into registers (hint tma_register_loads), or one an mma operand is computed from (hint operand_in_place)}}
    %old = tile.load %d[%c0, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<64x32xf32>
    %sum = arith.addf %xw, %old : tensor<64x32xf32>
    // expected-remark @below {{not copied by the TMA: the view has other loads or stores}}
    tile.store %sum, %d[%c0, %c0] {tma = true} : tensor<64x32xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    return
  }
}
