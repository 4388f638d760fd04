// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// Loads that only feed mma.sync operands, of 2-D boxes whose rows are whole
// 128-byte panels, from views promised 16-byte aligned with unit stride, go
// through the TMA when the target has it: the kernel takes one CUtensorMap
// per (view, box) after its arguments (byval, 64-byte aligned, a grid
// constant) and exports the table the runtime builds them from (version 2,
// 2 maps; per map: argument, rank, swizzle span, box padded to 5 entries,
// flags 0 (loads); the box is one 64-element panel wide). Thread 0 initialises one mbarrier
// per operand buffer; after the barrier that frees the scratch buffer (and
// a proxy fence: the copy engine writes through the async proxy), which
// also orders the initialisation before every use (no barrier of its own
// at the start), thread 0
// expects the bytes of each operand (64x128 and 32x128 bf16) and issues one
// copy per panel (two each; the 3-D view's copies take three coordinates);
// every thread waits on both mbarriers, and the mma reads with ldmatrix
// right away: no cp.async, and no barrier between the waits and the reads.
// CHECK: llvm.mlir.global internal @tessel_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<24576 x i8>
// CHECK: llvm.mlir.global internal @tessel_mbar() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
// CHECK-LABEL: llvm.func @tma_scratch
// CHECK-SAME: %[[MA:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[MB:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.ldmatrix
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: llvm.mlir.global external constant @tessel_tma_tma_scratch(dense<[2, 2, 0, 2, 128, 64, 64, 0, 0, 0, 0, 1, 3, 128, 1, 32, 64, 0, 0, 0]> : tensor<20xi32>) {addr_space = 1 : i32
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_scratch(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %i: i32) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%i, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %y = tile.load %b[%c0, %i, %c0] {squeeze = array<i64: 0>} : !tile.view<?x?x?xbf16, align = 16, unit_stride> -> tensor<32x128xbf16>
    %yt = tile.permute %y [1, 0] : tensor<32x128xbf16> -> tensor<128x32xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %d = tile.mma %x, %yt, %z {precision = #tile<precision bf16>} : tensor<64x128xbf16>, tensor<128x32xbf16>, tensor<64x32xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// In a loop the copies are prefetched one iteration ahead into two buffers
// per load (1024-byte aligned dynamic shared memory). The copies of one
// stage complete on one mbarrier per buffer (two): one thread arrives once,
// expecting both copies' bytes (2 x 8192). The first iteration's copies go
// out before the loop; in the loop, after the barrier that frees the other
// buffers, the next iteration's; then each thread waits once, on the
// mbarrier of the current buffer with the parity bit it keeps for that
// buffer (selected by the stage), before the first use: the second operand
// is not waited for again. No cp.async group.
// mma.sync reads the buffers with ldmatrix, through the generic proxy: a
// later loop's first copies wait behind a proxy fence and a barrier
// (@tma_second_loop below; without generic readers the barrier alone:
// prologue-ahead.mlir), its later refills behind the barrier. This loop's
// first copies need neither: nothing has used the dynamic shared memory yet
// (the barrier after the mbarriers' initialisation, just before the first
// copy, is the last).
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 32768 : i64
// CHECK: llvm.mlir.global external @tessel_dsmem() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<2 x i64>
// CHECK-LABEL: llvm.func @tma_pipelined
// CHECK-NOT: nvvm.cp.async.commit.group
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// Each iteration's refill waits behind a barrier for everyone to be done
// with the buffers the iteration before read; not the first iteration's
// (nothing has used them here; elsewhere the barrier before the prologue
// freed them all).
// CHECK: scf.for %[[IV:[^ ]*]] = %[[LB:[^ ]*]] to
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[IV]], %[[LB]] : i32
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: } else {
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The thread's parity bits of every mbarrier in one register: the bit of
// the buffer the stage names (first mbarrier + stage), then that bit
// flipped.
// CHECK: %[[WORD:.*]] = llvm.load
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[BIT:.*]] = arith.addi %{{.*}}, %[[STAGE:.*]] : i32
// CHECK-NEXT: %[[SHIFTED:.*]] = arith.shrui %[[WORD]], %[[BIT]]
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[PHASE:.*]] = arith.andi %[[SHIFTED]]
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE]]
// CHECK-NEXT: %[[AGAIN:.*]] = llvm.load
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[BIT2:.*]] = arith.addi %{{.*}}, %[[STAGE]] : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[MASK:.*]] = arith.shli %{{.*}}, %[[BIT2]]
// CHECK-NEXT: %[[FLIPPED:.*]] = arith.xori %[[AGAIN]], %[[MASK]]
// CHECK-NEXT: llvm.store %[[FLIPPED]]
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.ldmatrix
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: scf.yield
// CHECK-NOT: nvvm.cp.async.commit.group
// CHECK: @tessel_tma_tma_pipelined(dense<[2, 2, 0, 2, 128, 64, 64, 0, 0, 0, 0, 1, 2, 128, 64, 64, 0, 0, 0, 0]>
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_pipelined(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The kernel hint ring_barrier_per_load gives each load its own mbarrier per
// buffer (four), expecting its own bytes, waited for before each use.
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<4 x i64>
// CHECK-LABEL: llvm.func @tma_pipelined_per_load
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: %[[PHASE:.*]] = arith.andi
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE]]
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.ldmatrix
// CHECK: scf.yield
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_pipelined_per_load(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {ring_barrier_per_load = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Copies share an mbarrier only where their waits follow one another: the
// first mma's operands (x, y) complete on one, the second's (u, w) on
// another, since the first product is scaled between the two mmas (one
// wait for all four would hold the first mma back until u and w land).
// u and w are loaded after the first mma, and still wait with each other.
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<4 x i64>
// CHECK-LABEL: llvm.func @tma_two_waits
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mma.sync
// CHECK: arith.mulf
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: scf.yield
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_two_waits(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %half = arith.constant dense<0.5> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      %u = tile.load %a[%c1, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %w = tile.load %b[%k, %c1] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %s = arith.mulf %d, %half : tensor<64x64xf32>
      %e = tile.mma %u, %w, %s {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %e : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Copies waited for together but issued at different distances (latency 2:
// three buffers; 1: two) do not share mbarriers: their stages cycle through
// different numbers of buffers. 3 + 2 mbarriers, an arrival of 8192 bytes
// each, and two waits.
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<5 x i64>
// CHECK-LABEL: llvm.func @tma_mixed_distances
// CHECK: scf.for
// CHECK-NOT: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: scf.yield
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_mixed_distances(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Two loops over the same rings: the first loop's prologue goes without a
// barrier (the kernel's first use of the dynamic shared memory), the
// second's behind a proxy fence (ldmatrix read the buffers through the
// generic proxy) and a barrier (every thread done with the first loop's).
// CHECK-LABEL: llvm.func @tma_second_loop
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_second_loop(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r2, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: a target without the TMA (no tilegpu.tma_available), a
// view that promises no alignment, a load that opts out (allow_tma =
// false), and rows of 64 bytes (not a whole 128-byte panel). Each stays on
// cp.async; no tensor map parameter, no table, no mbarrier.
// CHECK-NOT: tessel_mbar
// CHECK-LABEL: llvm.func @no_tma_target
// CHECK-NOT: grid_constant
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK-NOT: tessel_tma_
module attributes {tilegpu.target = "sm_90a"} {
  func.func @no_tma_target(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %y = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// CHECK-NOT: tessel_mbar
// CHECK-LABEL: llvm.func @not_eligible
// CHECK-NOT: grid_constant
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK-NOT: tessel_tma_
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_eligible(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %v: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %y = tile.load %b[%c0, %c0] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %w = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x32xbf16>
    %z2 = arith.constant dense<0.0> : tensor<64x32xf32>
    %e = tile.mma %x, %w, %z2 {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    tile.store %e, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A loop-invariant operand (loaded before the loop, used by the mma in it)
// is copied once where it stands into its own buffer of dynamic shared
// memory (after a proxy fence and a barrier: earlier readers of that memory
// are done), and every iteration waits for the parity fixed at the copy (no
// per-iteration bit, no select): only the other operand is copied in the
// loop (prefetched, two more mbarriers).
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<3 x i64>
// CHECK-LABEL: llvm.func @tma_resident
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: %[[PARITY:.*]] = arith.andi
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]]
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_resident(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    scf.for %j = %c0 to %n step %c1 : i32 {
      %y = tile.load %b[%c0, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x64xbf16>
      %z = arith.constant dense<0.0> : tensor<64x64xf32>
      %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x128xbf16>, tensor<128x64xbf16>, tensor<64x64xf32>
      tile.store %d, %c[%c0, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Deeper rings (latency 2: three buffers per load, 3 x 8192 x 2 bytes, and
// three mbarriers the two loads share). Each thread keeps a parity bit per
// buffer (bits of one register) and waits once per iteration on the one the
// stage names (bit first + stage), then flips it.
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 49152 : i64
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<3 x i64>
// CHECK-LABEL: llvm.func @tma_deep
// CHECK-COUNT-3: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: arith.remsi %{{.*}}, %c3_i32
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: %[[WORD:.*]] = llvm.load
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[BIT:.*]] = arith.addi %{{.*}}, %[[STAGE:.*]] : i32
// CHECK-NEXT: %[[SHIFTED:.*]] = arith.shrui %[[WORD]], %[[BIT]]
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[PHASE:.*]] = arith.andi %[[SHIFTED]]
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE]]
// CHECK-NEXT: %[[AGAIN:.*]] = llvm.load
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[BIT2:.*]] = arith.addi %{{.*}}, %[[STAGE]] : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[MASK:.*]] = arith.shli %{{.*}}, %[[BIT2]]
// CHECK-NEXT: arith.xori %[[AGAIN]], %[[MASK]]
// CHECK-NEXT: llvm.store
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: scf.yield
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_deep(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
