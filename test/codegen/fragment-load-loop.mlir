// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null

// The state update in a token loop (fragment-load.mlir has it without one):
// x, read as A fragments (loadsIntoFragments), gets a ring like an mma
// operand. The copies of iteration 0 before the loop, with no proxy fence
// or barrier before them: the kernel's first use of the dynamic shared
// memory (a later loop's prologue has both: tma.mlir); in the loop, after
// the barrier (from the second iteration on), the copy one iteration
// ahead, then the wait on this iteration's buffer and the four
// ldmatrix.trans, and the wgmma with A from registers.
// CHECK-LABEL: llvm.func @fragments_ring(
// CHECK: nvvm.mbarrier.init
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg19,
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg19,
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @fragments_ring(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      // expected-remark @below {{copied by the TMA}}
      %xt = tile.load %x[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{copied by the TMA}}
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
      // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand loaded where it is used, a loop-invariant one, one read as mma fragments, one a loop issues ahead into registers (hint tma_register_loads), or one an mma operand is computed from (hint operand_in_place)}}
      %wt = tile.load %w[%k] : !tile.view<?xf32> -> tensor<64xf32>
      %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
      %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
      %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
      %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
      %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
      %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %next = tile.mma %a, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}
