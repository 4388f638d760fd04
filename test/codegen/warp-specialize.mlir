// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// warp_specialize: a K loop whose two operands the TMA copies one iteration
// ahead (rings of two 8192-byte buffers each, in dynamic shared memory for
// the whole kernel). The CTA grows a producer warpgroup (256 threads), every
// thread starts with .maxnreg 248 (no occupancy hint: one CTA per SM). Each
// ring has two `full` mbarriers (one arrival: the copy's) and two `empty`
// ones (one arrival per consumer warp: 4). After the setup barrier the last
// warpgroup gives registers back and its first thread walks the loop: per
// load, wait for the buffer to be empty, expect its bytes, issue the copy,
// count it. The consumers take 256 registers and run the loop without a
// single copy or CTA barrier: wait for each buffer's `full` phase, compute,
// then each warp frees the iteration's buffers (after a proxy fence: mma.sync
// read them with ldmatrix, generic loads the copy engine's next write must
// follow).
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 32768 : i64
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<8 x i64>
// CHECK-LABEL: llvm.func @specialised
// CHECK-SAME: nvvm.maxnreg = 248 : i32, nvvm.reqntid = array<i32: 256, 1, 1>
// CHECK-NOT: nvvm.minctasm
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init %{{.*}}, %c4
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init %{{.*}}, %c1_
// CHECK: nvvm.mbarrier.init %{{.*}}, %c4_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init %{{.*}}, %c1_
// CHECK: nvvm.mbarrier.init %{{.*}}, %c4_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init %{{.*}}, %c4
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init %{{.*}}, %c4
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init %{{.*}}, %c1_
// CHECK: nvvm.mbarrier.init %{{.*}}, %c4_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init %{{.*}}, %c1_
// CHECK: nvvm.mbarrier.init %{{.*}}, %c4_i32{{(_[0-9]+)?}} :
// CHECK-NOT: nvvm.mbarrier.init
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[PRODUCER:.*]] = arith.cmpi uge, %{{.*}}, %c4_i32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: scf.if %[[PRODUCER]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: arith.cmpi eq, %{{.*}}, %c128_i32
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 256
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK-NOT: nvvm.barrier
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: scf.yield
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @specialised(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}, sm_90a = {warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Nested loops (a K loop per column block, its bounds min(n, j)), a branch
// around it, and an occupancy hint: the producer walks the outer loop, the
// branch and the K loop, computing the inner bound and the box origins
// itself (the program id, the column block); 2 CTAs of 256 threads start
// with 128 registers, the producer keeps 32 (hint producer_registers), the
// consumers take (128 x 256 - 32 x 128) / 128 = 224; a consumer barrier
// (the store's after the load of the same view: c += the block's product)
// is named barrier 1 of 128 threads.
// CHECK-LABEL: llvm.func @nested
// CHECK-SAME: nvvm.maxnreg = 128 : i32, nvvm.reqntid = array<i32: 256, 1, 1>
// CHECK: nvvm.setmaxregister decrease 32
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.if
// CHECK: %[[END:.*]] = arith.minsi %{{.*}}, %[[J]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 224
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.barrier id = %c1_i32{{.*}} number_of_threads = %c128_i32
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @nested(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32, %on: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}, sm_90a = {warp_specialize = 1, occupancy = 2, producer_registers = 32}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      %go = arith.cmpi ne, %on, %c0 : i32
      scf.if %go {
        %end = arith.minsi %n, %j : i32
        %r = scf.for %k = %c0 to %end step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
          %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
          %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
          %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
          %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
          scf.yield %d : tensor<64x64xf32>
        }
        %old = tile.load %c[%i, %j] : !tile.view<?x?xf32> -> tensor<64x64xf32>
        %sum = arith.addf %r, %old : tensor<64x64xf32>
        tile.store %sum, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
      }
    }
    return
  }
}

// -----

// One ring for every copy (hint ring_slots = 3): an outer loop whose body
// runs a K loop (two copies per iteration) and then copies a third tile for
// a second mma, as compute_out's intra-chunk loop does. The three loads
// share 3 buffers of 8192 bytes (24576 bytes, where rings of their own
// would take 49152), 3 `full` and 3 `empty` mbarriers, and one copy
// counter: the producer issues in program order (the K loop's two, then
// the outer body's one), and the consumers take each copy where its load
// stands, the outer one after the K loop. 3 CTAs of 256 threads start with
// 80 registers; the producer keeps 24, the consumers take 136.
// CHECK-LABEL: module attributes {tilegpu.dynamic_shared_bytes = 24576 : i64
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<6 x i64>
// CHECK-LABEL: llvm.func @shared_ring
// CHECK-SAME: nvvm.maxnreg = 80 : i32, nvvm.reqntid = array<i32: 256, 1, 1>
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c4_i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister decrease 24
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[K1:.*]] = llvm.load %[[COUNTER:.*]] : !llvm.ptr -> i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.store %{{.*}}, %[[COUNTER]] : i32, !llvm.ptr
// CHECK: llvm.load %[[COUNTER]] : !llvm.ptr -> i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.store %{{.*}}, %[[COUNTER]] : i32, !llvm.ptr
// CHECK: }
// CHECK: llvm.load %[[COUNTER]] : !llvm.ptr -> i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.store %{{.*}}, %[[COUNTER]] : i32, !llvm.ptr
// CHECK: nvvm.setmaxregister increase 136
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: scf.for
// CHECK: scf.for
// CHECK: llvm.load %[[COUNTER]] : !llvm.ptr -> i32
// CHECK: llvm.load %[[COUNTER]] : !llvm.ptr -> i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.yield
// CHECK: llvm.load %[[COUNTER]] : !llvm.ptr -> i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: scf.yield
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @shared_ring(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}, sm_90a = {warp_specialize = 1, ring_slots = 3, occupancy = 3, producer_registers = 24}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %out = scf.for %j = %c0 to %m step %c1 iter_args(%o = %z) -> (tensor<64x64xf32>) : i32 {
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        %u = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %v = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %vt = tile.permute %v [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %u, %vt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      %p = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xbf16>
      %w = tile.load %x[%j, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %o2 = tile.mma %p, %w, %o {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %o2 : tensor<64x64xf32>
    }
    tile.store %out, %c[%i, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// One shared ring for loads of two sizes (A 64x64 = 8192 bytes, B 128x64 =
// 16384): each of its 3 buffers takes the larger (49152 bytes in all), the
// producer's copies and the consumers' reads step by 16384 bytes (buffer =
// count mod 3), and each copy still expects its own bytes.
// CHECK-LABEL: module attributes {tilegpu.dynamic_shared_bytes = 49152 : i64
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<6 x i64>
// CHECK-LABEL: llvm.func @shared_ring_mixed
// CHECK: nvvm.setmaxregister decrease
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK: arith.muli %{{.*}}, %c16384_i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK: arith.muli %{{.*}}, %c16384_i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.setmaxregister increase
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK: arith.muli %{{.*}}, %c16384_i32
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK: arith.muli %{{.*}}, %c16384_i32
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @shared_ring_mixed(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}, sm_90a = {warp_specialize = 1, ring_slots = 3}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
      scf.yield %d : tensor<64x128xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: the same K loop without the hint, or with it for another
// target: one warpgroup, .minnctapersm where hinted, no setmaxnreg, the
// copies issued in the loop by thread 0 behind a CTA barrier.
// CHECK-LABEL: llvm.func @plain
// CHECK-SAME: nvvm.reqntid = array<i32: 128, 1, 1>
// CHECK-NOT: nvvm.setmaxregister
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.setmaxregister
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @plain(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}, sm_100a = {warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A loop bound chosen by a branch on a kernel flag (compute_out's
// split_decay: the first masked block is the chunk's start with seq_idx,
// else the diagonal): the producer evaluates the branch itself (a scalar
// scf.if of its own, each side's arithmetic, the yielded bound) and walks
// the K loop to it, as the consumers do.
// CHECK-LABEL: llvm.func @branch_bound
// CHECK: %[[BOUND:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: scf.yield %{{.*}} : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[TWICE:.*]] = arith.muli
// CHECK-NEXT: scf.yield %[[TWICE]] : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[BOUND]] step %{{.*}} : i32 {
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: %[[CBOUND:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[CBOUND]] step %{{.*}} iter_args(
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @branch_bound(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %flag: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}, sm_90a = {warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %set = arith.cmpi ne, %flag, %c0 : i32
    %bound = scf.if %set -> (i32) {
      scf.yield %n : i32
    } else {
      %twice = arith.muli %n, %c2 : i32
      scf.yield %twice : i32
    }
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %bound step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A load into registers that tma_register_loads would copy through a ring the
// consumers fill, with no room left for it: the producer's one shared ring
// (ring_slots 5 of the 32 KB x tile) takes the whole ring budget (160 KB),
// which tilegpu-schedule-loads did not count, so the load stays an ordinary
// global load (vector loads of 4 f32) instead of failing the kernel.
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 163840 : i64
// CHECK-LABEL: llvm.func @register_ring_left_out
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @register_ring_left_out(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?x?xf32, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %o: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1, ring_slots = 5, tma_register_loads = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<256x64xf32>
    %zs = arith.constant dense<0.0> : tensor<4x128xf32>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %s = %zs) -> (tensor<256x64xf32>, tensor<4x128xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<256x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<256x64xbf16>, tensor<64x64xbf16>, tensor<256x64xf32>
      %t = tile.load %w[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      %s2 = arith.addf %s, %t : tensor<4x128xf32>
      scf.yield %d, %s2 : tensor<256x64xf32>, tensor<4x128xf32>
    }
    tile.store %r#0, %c[%c0, %c0] : tensor<256x64xf32>, !tile.view<?x?xf32>
    tile.store %r#1, %o[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The same with room for it: the producer copies x and y (rings of two 8 KB
// buffers each, 32 KB), and the consumers fill the register load's ring
// themselves, above the producer's (36864 bytes in all: no overlap): thread
// 0 expects its 2048 bytes and copies with w's own tensor map before the
// loop and, behind the consumers' named barrier (not the CTA's: the
// producer does not take part), an iteration ahead in it; every thread
// reads its registers from the ring (vector loads of 4 f32 from shared
// memory).
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 36864 : i64
// CHECK-LABEL: llvm.func @register_ring_consumers
// CHECK: nvvm.setmaxregister  decrease
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[XMAP:arg[0-9]+]],
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[YMAP:arg[0-9]+]],
// CHECK: nvvm.setmaxregister  increase
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c2048_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[WMAP:arg[0-9]+]],
// CHECK: scf.for
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c2048_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[WMAP]],
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @register_ring_consumers(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?x?xf32, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %o: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1, tma_register_loads = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %zs = arith.constant dense<0.0> : tensor<4x128xf32>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %s = %zs) -> (tensor<64x64xf32>, tensor<4x128xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      %t = tile.load %w[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      %s2 = arith.addf %s, %t : tensor<4x128xf32>
      scf.yield %d, %s2 : tensor<64x64xf32>, tensor<4x128xf32>
    }
    tile.store %r#0, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    tile.store %r#1, %o[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
    return
  }
}
