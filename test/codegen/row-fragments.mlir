// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null

// A 16-bit tile scaled in registers and used as an mma's A as it stands
// (the mma layout, not transposed). With the hint row_fragments the TMA
// copies it a loop iteration ahead into a ring like the transposed
// fragment loads (fragment-load-loop.mlir), and each 16 x 16 block is read
// with one ldmatrix.x4 without .trans, at swizzled addresses (the XOR of
// the row's low bits into the 16-byte chunk), into the wgmma's A.
// CHECK-LABEL: llvm.func @row_fragments(
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg19,
// CHECK: scf.for
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg19,
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3>
// CHECK: arith.xori
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = {{.*}}, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: arith.xori
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = {{.*}}, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: arith.xori
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = {{.*}}, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: arith.xori
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = {{.*}}, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT: nvvm.ldmatrix
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @row_fragments(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, row_fragments = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      // expected-remark @below {{copied by the TMA}}
      %xt = tile.load %x[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{copied by the TMA}}
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
      // expected-remark @below {{not copied by the TMA}}
      %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
      %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
      %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
      %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
      %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
      %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
      %next = tile.mma %xh, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Without the hint the same tile is not a fragment load: loaded from global
// memory (no ldmatrix).
// CHECK-LABEL: llvm.func @no_hint(
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @no_hint(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      // expected-remark @below {{not copied by the TMA}}
      %xt = tile.load %x[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{copied by the TMA}}
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
      // expected-remark @below {{not copied by the TMA}}
      %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
      %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
      %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
      %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
      %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
      %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
      %next = tile.mma %xh, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}
