// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// The hint early_copies: the copies of the loop's first stage, thread 0's,
// issued right after it initialised the mbarriers (and its warp's barrier),
// before the load of w that comes first in the program; the setup's CTA
// barrier after them, before the loop's waits.
// CHECK-LABEL: llvm.func @early(
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: llvm.load
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg{{[0-9]+}},
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg{{[0-9]+}},
// CHECK: llvm.load {{.*}} !llvm.ptr<1> -> f32
// CHECK: nvvm.barrier0
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @early(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, early_copies = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %at = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %next = tile.mma %at, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    %wr = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wr : tensor<64x1xf32> -> tensor<64x64xf32>
    %y = arith.mulf %s, %wb : tensor<64x64xf32>
    tile.store %y, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Without the hint: the CTA barrier first, then the copies, after the load.
// CHECK-LABEL: llvm.func @plain(
// CHECK: nvvm.mbarrier.init
// CHECK-NOT: nvvm.bar.warp.sync
// CHECK: llvm.load {{.*}} !llvm.ptr<1> -> f32
// CHECK: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @plain(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %at = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %next = tile.mma %at, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    %wr = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wr : tensor<64x1xf32> -> tensor<64x64xf32>
    %y = arith.mulf %s, %wb : tensor<64x64xf32>
    tile.store %y, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A store before the loop: the copies stay after it (they may read what
// it writes), the CTA barrier after them.
// CHECK-LABEL: llvm.func @after_store(
// CHECK: nvvm.bar.warp.sync
// CHECK: llvm.store {{.*}} !llvm.ptr<1>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.barrier0
// CHECK: scf.for
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @after_store(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, early_copies = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %one = arith.constant dense<1.0> : tensor<64xf32>
    tile.store %one, %w[%c0] : tensor<64xf32>, !tile.view<?xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %at = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %next = tile.mma %at, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    tile.store %s, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
