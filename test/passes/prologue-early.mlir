// With the kernel hint prologue_early = 1, a loop whose loads ahead are all
// TMA copies issued as far ahead issues its prologue (the copies of its
// first iterations) where the loop before it on its path starts, right
// after that loop's own prologue, under the conditions of the branches it
// stands in: the two loops' first copies are in flight together.
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-pipeline | FileCheck %s
// With remarks, every loop that issues loads ahead in a kernel with the
// hint says where its prologue goes, and why not earlier:
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads=remarks=true -verify-diagnostics -o /dev/null
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-pipeline --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LLVM

// The second half of K in one of two loops by row block: both fire, each
// prologue under the branch's condition (computed after the first loop,
// from the program id: evaluated with the prologues). Stages of 16384 bytes
// (x and y) at the bottom, the first loop's rings (2 x 2 x 8192) above
// them: 49152 bytes (32768 if the prologues waited for the first loop).
// CHECK-LABEL: func.func @branch
// CHECK: scf.for
// CHECK-NOT: tilegpu.prologue_early
// CHECK: scf.if
// CHECK: } {tilegpu.prologue_early}
// CHECK: } {tilegpu.prologue_early}
// LLVM: tilegpu.dynamic_shared_bytes = 49152
// LLVM-LABEL: llvm.func @branch
// The first loop's prologue, then the two others' under the row block's
// parity (and each its trip count), before the first loop:
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: %[[EVEN:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// LLVM: %[[RUNS:.*]] = arith.andi %{{.*}}, %[[EVEN]] : i1
// LLVM: scf.if %[[RUNS]]
// LLVM-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: %[[EVEN2:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// LLVM: %[[ODD:.*]] = arith.xori %[[EVEN2]], %true
// LLVM: %[[RUNS2:.*]] = arith.andi %{{.*}}, %[[ODD]] : i1
// LLVM: scf.if %[[RUNS2]]
// LLVM-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: scf.for
// LLVM: nvvm.wgmma.mma_async
// LLVM: scf.yield
// Where the branches' loops start: a barrier (their later buffers lie
// where the first loop's rings were), no prologue: each loop's copies are
// issued in its body only (the next iteration's).
// LLVM: scf.if
// LLVM-NEXT: nvvm.barrier0
// LLVM-NEXT: scf.for
// LLVM-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: scf.yield
// LLVM: } else {
// LLVM-NEXT: nvvm.barrier0
// LLVM-NEXT: scf.for
// LLVM-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM-NOT: nvvm.cp.async.bulk.tensor
// LLVM: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @branch(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prologue_early = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %i = tile.program_id 0
    %j = tile.program_id 1
    %h = arith.divsi %n, %c2 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-remark @below {{prologue issued where the loop starts: no loop comes before it in its block or in the blocks of the branches around it}}
    %r = scf.for %k = %c0 to %h step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %p = arith.remsi %i, %c2 : i32
    %even = arith.cmpi eq, %p, %c0 : i32
    %s = scf.if %even -> (tensor<64x64xf32>) {
      // expected-remark @below {{prologue issued where the loop before it starts}}
      %t = scf.for %k = %h to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      scf.yield %t : tensor<64x64xf32>
    } else {
      // expected-remark @below {{prologue issued where the loop before it starts}}
      %t = scf.for %k = %h to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      scf.yield %t : tensor<64x64xf32>
    }
    tile.store %s, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: a store between the loops (the early copies would read
// before it), a bound read from memory after the first loop, loads issued
// at different distances, the first loop writing a view the second reads,
// a branch holding a loop between them. (The loop that writes w fires, as
// does the loop in that branch: the loop before the branch is its anchor.)
// CHECK-LABEL: func.func @refused
// CHECK-NOT: tilegpu.prologue_early
// CHECK: tile.store {{.*}}, %arg3
// CHECK: } {tilegpu.prologue_early}
// CHECK-NOT: tilegpu.prologue_early
// CHECK: scf.if
// CHECK: } {tilegpu.prologue_early}
// CHECK-NOT: tilegpu.prologue_early
// CHECK: return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @refused(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %w: !tile.view<?x?xbf16, align = 16, unit_stride>, %lim: !tile.view<?xi32>, %n: i32, %f: i1) attributes {tile.hints = #tile.hints<{default = {prologue_early = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %j = tile.program_id 1
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %zb = arith.constant dense<0.0> : tensor<64x64xbf16>
    // expected-remark @below {{prologue issued where the loop starts: no loop comes before it in its block or in the blocks of the branches around it}}
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    // expected-remark @below {{prologue issued where the loop starts: something between it and the loop before it writes memory}}
    %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %t = tile.load %lim[%i] : !tile.view<?xi32> -> tensor<1xi32>
    %t0 = tile.reshape %t : tensor<1xi32> -> tensor<i32>
    %m = tensor.extract %t0[] : tensor<i32>
    // expected-remark @below {{prologue issued where the loop starts: its bounds, its loads' indices or the conditions of the branches around it are computed after the loop before it starts, from more than scalar arithmetic}}
    %r3 = scf.for %k = %c0 to %m step %c1 iter_args(%acc = %r2) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    // expected-remark @below {{prologue issued where the loop starts: it issues loads at different distances (its rings are laid out stage by stage)}}
    %r4 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r3) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{issued 2 iterations ahead (3 buffers of 8192 bytes)}}
      %x = tile.load %a[%i, %k] {latency = 2} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    // (It writes w, so w is not read ahead: its one load ahead fires.)
    // expected-remark @below {{prologue issued where the loop before it starts}}
    %r5 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r4) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %w[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      tile.store %zb, %w[%i, %k] : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
      scf.yield %d : tensor<64x64xf32>
    }
    // expected-remark @below {{prologue issued where the loop starts: the loop before it writes a view it loads}}
    %r6 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r5) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %x = tile.load %w[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r7 = scf.if %f -> (tensor<64x64xf32>) {
      // expected-remark @below {{prologue issued where the loop before it starts}}
      %q = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r6) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      scf.yield %q : tensor<64x64xf32>
    } else {
      scf.yield %r6 : tensor<64x64xf32>
    }
    // expected-remark @below {{prologue issued where the loop starts: a region with loops stands between it and the loop before it}}
    %r8 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r7) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
      %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r8, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
