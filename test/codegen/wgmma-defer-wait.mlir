// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// The hint wgmma_defer_wait = 2: the loop's wgmma group (A scaled in
// registers, B copied by the TMA into a ring) is left running into the next
// iteration, which waits for it right before pinning its own fragments
// (copied by mov into registers of their own), after its copies' wait and
// its A's arithmetic; the last group is waited for after the loop. The
// ring gets a spare buffer (3 for distance 1: iteration k refills the
// buffer of k - 2, which the wait in k - 1 retired).
// CHECK-LABEL: llvm.func @defer(
// CHECK: scf.for
// CHECK: arith.remsi %{{.*}}, %c3_i32 : i32
// CHECK: arith.truncf
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: arith.truncf
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: arith.truncf
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @defer(%x: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_defer_wait = 2}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      %xt = tile.load %x[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
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

// Not deferred: the accumulator is read in the loop by more than its mma
// (here its sum is carried too), so the group is waited for at once.
// CHECK-LABEL: llvm.func @read_in_loop(
// CHECK: scf.for
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: "mov.b32 $0, $1;"
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @read_in_loop(%x: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_defer_wait = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %t = %z) -> (tensor<64x128xf32>, tensor<64x128xf32>) : i32 {
      %xt = tile.load %x[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
      %next = tile.mma %xt, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
      %sum = arith.addf %t, %next : tensor<64x128xf32>
      scf.yield %next, %sum : tensor<64x128xf32>, tensor<64x128xf32>
    }
    tile.store %s#1, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// wgmma_defer_wait = 1 with both operands copied by the TMA (a GEMM's K
// loop): the previous group is waited for right before this one's fence,
// after the copies' wait; no fragments to copy.
// CHECK-LABEL: llvm.func @shared_operands(
// CHECK: scf.for
// CHECK: arith.remsi %{{.*}}, %c3_i32 : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: "mov.b32 $0, $1;"
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @shared_operands(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_defer_wait = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      %at = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
      %next = tile.mma %at, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// wgmma_defer_wait = 1 leaves a register A alone: waited for at once, the
// ring without a spare (2 buffers: the stage is the iteration's low bit).
// CHECK-LABEL: llvm.func @register_a_at_1(
// CHECK: scf.for
// CHECK-NOT: arith.remsi
// CHECK: arith.andi %{{.*}}, %c1_i32
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: "mov.b32 $0, $1;"
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @register_a_at_1(%x: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_defer_wait = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      %xt = tile.load %x[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
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

// Not deferred: B is computed (doubled) in the loop, so the threads stage it
// in shared memory before every group; no spare buffer either (the ring of
// A's copies keeps 2 buffers: the stage is the iteration's low bit).
// CHECK-LABEL: llvm.func @staged_b(
// CHECK: scf.for
// CHECK-NOT: arith.remsi
// CHECK: arith.andi %{{.*}}, %c1_i32
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @staged_b(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_defer_wait = 2}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      %at = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
      %b2 = arith.addf %bt, %bt : tensor<64x128xbf16>
      %next = tile.mma %at, %b2, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}
