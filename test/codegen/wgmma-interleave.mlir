// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// A wgmma whose A is computed in registers (exp2 of x, scaled per row),
// with the hint wgmma_interleave: K step by K step, each step's part of A
// (8 exp2 per thread of the 32) computed right before its own fence and
// wgmma, one commit and wait after the last.
// CHECK-LABEL: llvm.func @interleave(
// CHECK-COUNT-8: llvm.nvvm.ex2.approx.ftz.f32
// CHECK-NOT: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK-COUNT-8: llvm.nvvm.ex2.approx.ftz.f32
// CHECK-NOT: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK-COUNT-8: llvm.nvvm.ex2.approx.ftz.f32
// CHECK-NOT: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK-COUNT-8: llvm.nvvm.ex2.approx.ftz.f32
// CHECK-NOT: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @interleave(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_interleave = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %e = math.exp2 %xf : tensor<64x64xf32>
    %xs = arith.mulf %e, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %s = tile.mma %xh, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Without the hint: all of A before one fence, then the four wgmmas.
// CHECK-LABEL: llvm.func @no_hint(
// CHECK-COUNT-32: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.nvvm.ex2.approx.ftz.f32
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @no_hint(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %e = math.exp2 %xf : tensor<64x64xf32>
    %xs = arith.mulf %e, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %s = tile.mma %xh, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// What else reads before the mma stays where it is: exp2's tile is stored
// first, so its 32 exp2 come before the first fence; only the scaling and
// narrowing after it move down to their steps (one of them here: a
// multiply by the row's factor, 8 a step).
// CHECK-LABEL: llvm.func @used_before(
// CHECK-COUNT-32: llvm.nvvm.ex2.approx.ftz.f32
// CHECK-NOT: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<1>
// CHECK-COUNT-8: arith.mulf {{.*}} : f32
// CHECK-NOT: arith.mulf {{.*}} : f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-COUNT-8: arith.mulf {{.*}} : f32
// CHECK-NOT: arith.mulf {{.*}} : f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-COUNT-8: arith.mulf {{.*}} : f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-COUNT-8: arith.mulf {{.*}} : f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @used_before(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %ec: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_interleave = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %e = math.exp2 %xf : tensor<64x64xf32>
    tile.store %e, %ec[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    %xs = arith.mulf %e, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %s = tile.mma %xh, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}
