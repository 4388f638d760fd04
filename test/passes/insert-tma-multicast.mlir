// RUN: tessel-opt %s -split-input-file --tilegpu-insert-tma | FileCheck %s
// RUN: tessel-opt %s -split-input-file --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LLVM

// The hint multicast in a cluster of 2 CTAs along x: a load whose indices
// come from program_id(1), program_id(0) / 2 (the pair's index), a scalar
// argument and a loop over a uniform range is the same in both CTAs, and is
// marked (2 CTAs); one indexed by program_id(0) itself is not, nor one in a
// loop whose bound depends on it, nor one indexed by program_id(0) / 3 (a
// pair may straddle a multiple of 3).
// CHECK-LABEL: func.func @pairs
// CHECK: tile.load {{.*}} {tilegpu.multicast = 2 : i64, tilegpu.tma}
// CHECK: tile.load {{.*}} {tilegpu.tma}
// CHECK: tile.load {{.*}} {tilegpu.multicast = 2 : i64, tilegpu.tma}
// CHECK: tile.load {{.*}} {tilegpu.tma}
// CHECK: tile.load {{.*}} {tilegpu.tma}
// The lowering: the loops' rings are filled by multicast copies of each
// CTA's half of the rows (offset by its rank times 32 rows), their buffers
// freed by the cluster's barrier (relaxed arrival) where a CTA barrier
// stood, the setup ending with one after the mbarriers' initialisation. The
// third loop (a CTA barrier) copies per CTA.
// LLVM-LABEL: llvm.func @pairs
// LLVM: nvvm.fence.mbarrier.init
// LLVM: [[RANK:%.*]] = nvvm.read.ptx.sreg.cluster.ctarank
// LLVM: nvvm.cluster.arrive.relaxed {aligned}
// LLVM-NEXT: nvvm.cluster.wait {aligned}
// The first copy: this CTA's 32 rows (its rank's), both CTAs in the mask,
// at 32 x 128 bytes per rank into the buffer; the whole tile's 16384 bytes
// (B's 8192 and A's) expected on the mbarrier.
// LLVM: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// LLVM: [[MASK:%.*]] = llvm.mlir.constant(3 : i16) : i16
// LLVM: [[SLICE:%.*]] = arith.muli [[RANK]], %c32_i32 : i32
// LLVM-NEXT: [[ROW:%.*]] = arith.addi %{{.*}}, [[SLICE]] : i32
// LLVM: [[BYTES:%.*]] = arith.muli [[SLICE]], %c128_i32 : i32
// LLVM-NEXT: [[DST:%.*]] = llvm.getelementptr %{{.*}}[[[BYTES]]]
// LLVM-NEXT: [[CDST:%.*]] = llvm.addrspacecast [[DST]]
// LLVM-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global [[CDST]], %{{.*}}, %{{.*}}, box[%{{.*}}, [[ROW]]] multicast_mask = [[MASK]]
// LLVM: scf.for
// LLVM: nvvm.cluster.arrive.relaxed {aligned}
// LLVM-NEXT: nvvm.cluster.wait {aligned}
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask
// LLVM: nvvm.cluster.arrive.relaxed {aligned}
// LLVM-NEXT: nvvm.cluster.wait {aligned}
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask
// LLVM: scf.for
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask
// LLVM: scf.for
// LLVM: nvvm.barrier0
// LLVM-NOT: multicast_mask
// LLVM: llvm.return
// The tensor maps (per map: argument, rank, swizzle, box): B's and the
// pair-indexed A's boxes are one CTA's 32 rows, the others whole.
// LLVM: @tessel_tma_pairs(dense<[2, 4, 1, 2, 128, 32, 64, 0, 0, 0, 0, 0, 2, 128, 64, 64, 0, 0, 0, 0, 0, 2, 128, 32, 64, 0, 0, 0, 0, 1, 2, 128, 64, 64, 0, 0, 0, 0]>
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @pairs(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, cluster = array<i64: 2>, multicast = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %i = tile.program_id 0
    %j = tile.program_id 1
    %pair = arith.divsi %i, %c2 : i32
    %third = arith.divsi %i, %c3 : i32
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @+2 {{copied by the TMA}}
      // expected-remark @below {{multicast to the cluster's 2 CTAs}}
      %bt = tile.load %b[%k, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @+2 {{copied by the TMA}}
      // expected-remark @below {{not multicast: an index may differ between the cluster's CTAs}}
      %at = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %next = tile.mma %at, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    %u = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %s) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @+2 {{copied by the TMA}}
      // expected-remark @below {{multicast to the cluster's 2 CTAs}}
      %at = tile.load %a[%pair, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @+2 {{copied by the TMA}}
      // expected-remark @below {{not multicast: an index may differ between the cluster's CTAs}}
      %bt = tile.load %b[%k, %third] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %next = tile.mma %at, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    %v = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %u) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @+2 {{copied by the TMA}}
      // expected-remark @below {{not multicast: a loop around it may run differently in the cluster's CTAs}}
      %at = tile.load %a[%pair, %n] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %next = tile.mma %at, %at, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    tile.store %v, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: without the hint multicast (no remark about it either);
// with it but without a cluster; with a producer warpgroup; rows not a
// multiple of 8 per CTA (32 rows in a cluster of 8, whose 64-row tile is).
// CHECK-LABEL: func.func @no_hint
// CHECK-NOT: tilegpu.multicast
// CHECK-LABEL: func.func @thin
// CHECK: tile.load {{.*}} {tilegpu.tma} : {{.*}} -> tensor<32x64xbf16>
// CHECK: tile.load {{.*}} {tilegpu.multicast = 8 : i64, tilegpu.tma} : {{.*}} -> tensor<64x64xbf16>
// LLVM-LABEL: llvm.func @no_hint
// LLVM-NOT: multicast_mask
// LLVM-NOT: nvvm.cluster.arrive
// LLVM-LABEL: llvm.func @no_cluster
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @no_hint(%b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, cluster = array<i64: 2>}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %j = tile.program_id 1
    // expected-remark @below {{copied by the TMA}}
    %bt = tile.load %b[%c0, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %d = tile.mma %bt, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @no_cluster(%b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, multicast = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-remark @+2 {{copied by the TMA}}
    // expected-remark @below {{not multicast: the kernel has no cluster of 2 CTAs or more (hint cluster)}}
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %d = tile.mma %bt, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @producer(%b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, cluster = array<i64: 2>, multicast = 1, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @+2 {{copied by the TMA}}
      // expected-remark @below {{not multicast: a producer warpgroup's rings are released per CTA}}
      %bt = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @+2 {{copied by the TMA}}
      // expected-remark @below {{not multicast: a producer warpgroup's rings are released per CTA}}
      %at = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %next = tile.mma %at, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    tile.store %s, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @thin(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 8>, multicast = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<32x64xf32>
    // expected-remark @+2 {{copied by the TMA}}
    // expected-remark @below {{not multicast: its rows are not a multiple of 8 per CTA of the cluster}}
    %at = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
    // expected-remark @+2 {{copied by the TMA}}
    // expected-remark @below {{multicast to the cluster's 8 CTAs}}
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %d = tile.mma %at, %bt, %z {precision = #tile<precision bf16>} : tensor<32x64xbf16>, tensor<64x64xbf16>, tensor<32x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<32x64xf32>, !tile.view<?x?xf32>
    return
}
}

// -----

// With prologue_ahead, the inner loop's prologue for the enclosing loop's
// next iteration is issued when the inner loop ends: behind the cluster's
// barrier too (a CTA barrier alone would let it refill a buffer the other
// CTA still reads in its last iterations). B's tiles, indexed by the outer
// loop, are multicast; every multicast copy has the cluster's barrier as the
// nearest barrier before it.
// (The CTA barrier before each cluster barrier keeps the CTA-scope
// ordering the relaxed arrival does not give.)
// LLVM-LABEL: llvm.func @ahead
// LLVM: scf.for
// LLVM-NEXT: nvvm.barrier0
// LLVM-NEXT: nvvm.cluster.arrive.relaxed {aligned}
// LLVM-NEXT: nvvm.cluster.wait {aligned}
// LLVM-NOT: nvvm.barrier0
// LLVM: multicast_mask
// LLVM: scf.for
// LLVM: nvvm.barrier0
// LLVM-NEXT: nvvm.cluster.arrive.relaxed {aligned}
// LLVM-NEXT: nvvm.cluster.wait {aligned}
// LLVM-NOT: nvvm.barrier0
// LLVM: multicast_mask
// LLVM: nvvm.barrier0
// LLVM-NEXT: nvvm.cluster.arrive.relaxed {aligned}
// LLVM-NEXT: nvvm.cluster.wait {aligned}
// LLVM-NOT: nvvm.barrier0
// LLVM: multicast_mask
// LLVM: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @ahead(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1, cluster = array<i64: 2>, multicast = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @+2 {{copied by the TMA}}
        // expected-remark @below {{not multicast: an index may differ between the cluster's CTAs}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @+2 {{copied by the TMA}}
        // expected-remark @below {{multicast to the cluster's 2 CTAs}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}
