// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// Hint tma_register_loads: a loop's load into registers, copied ahead by
// the TMA (unswizzled, the whole box in one copy) into a ring like an mma
// operand's, and read with ld.shared where the load stands. The tensor map
// table says swizzle 0 and the element size (4 << 8 in the flags). The copy
// of iteration 0 before the loop; in the loop the copy one iteration ahead
// (after the refill barrier, without a proxy fence: only ld.shared reads
// the ring), then the wait and 16-byte shared loads, no global load.
// CHECK-LABEL: llvm.func @row_ring(
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: !llvm.ptr<1> -> vector
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: scf.yield
// CHECK: llvm.mlir.global external constant @tessel_tma_row_ring(dense<[2, 1, 0, 2, 0, 4, 128, 0, 0, 0, 1024]>
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @row_ring(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %y: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {tma_register_loads = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<4x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<4x128xf32>) : i32 {
      // expected-remark @below {{copied by the TMA}}
      %t = tile.load %a[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      %e = math.exp2 %t : tensor<4x128xf32>
      %next = arith.addf %acc, %e : tensor<4x128xf32>
      scf.yield %next : tensor<4x128xf32>
    }
    tile.store %s, %y[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Used in both branches of an if: one read of the copy serves both (a TMA
// copy that is more than one use is pipelined when it is read into
// registers), so the loop still issues it ahead.
// CHECK-LABEL: llvm.func @two_uses(
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: scf.if
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @two_uses(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %y: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{sm_90a = {tma_register_loads = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<4x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<4x128xf32>) : i32 {
      // expected-remark @below {{copied by the TMA}}
      %t = tile.load %a[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      %early = arith.cmpi slt, %k, %m : i32
      %v = scf.if %early -> (tensor<4x128xf32>) {
        %e = math.exp2 %t : tensor<4x128xf32>
        scf.yield %e : tensor<4x128xf32>
      } else {
        %d = arith.mulf %t, %t : tensor<4x128xf32>
        scf.yield %d : tensor<4x128xf32>
      }
      %next = arith.addf %acc, %v : tensor<4x128xf32>
      scf.yield %next : tensor<4x128xf32>
    }
    tile.store %s, %y[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Where it must not fire: without the hint; a load outside any loop; a
// loop that writes the view; rows of 8 bytes (not a 16-byte chunk); a view
// that promises no alignment; indices from a value the loop carries. Each
// stays a global load.
// CHECK-LABEL: llvm.func @not_copied(
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_copied(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %y: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<4x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<4x128xf32>) : i32 {
      // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand}}
      %t = tile.load %a[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      %next = arith.addf %acc, %t : tensor<4x128xf32>
      scf.yield %next : tensor<4x128xf32>
    }
    tile.store %s, %y[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @not_candidates(
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_candidates(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %w: !tile.view<?x?xf32, align = 16, unit_stride>, %u: !tile.view<?x?xf32, unit_stride>, %y: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {tma_register_loads = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand}}
    %z = tile.load %a[%c0, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
    %zn = arith.constant dense<0.0> : tensor<4x2xf32>
    %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %acc2 = %zn, %j = %c0) -> (tensor<4x128xf32>, tensor<4x2xf32>, i32) : i32 {
      // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand}}
      %t = tile.load %w[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      tile.store %t, %w[%k, %c1] : tensor<4x128xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
      // expected-remark @below {{not copied by the TMA: the tile's rows are not whole 16-byte chunks}}
      %narrow = tile.load %a[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x2xf32>
      // expected-remark @below {{not copied by the TMA: the view does not promise unit stride and 16-byte alignment}}
      %v = tile.load %u[%k, %c0] : !tile.view<?x?xf32, unit_stride> -> tensor<4x128xf32>
      // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand}}
      %carried = tile.load %a[%j, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      %s1 = arith.addf %acc, %t : tensor<4x128xf32>
      %s2 = arith.addf %s1, %v : tensor<4x128xf32>
      %s3 = arith.addf %s2, %carried : tensor<4x128xf32>
      %n2 = arith.addf %acc2, %narrow : tensor<4x2xf32>
      %j1 = arith.addi %j, %c1 : i32
      scf.yield %s3, %n2, %j1 : tensor<4x128xf32>, tensor<4x2xf32>, i32
    }
    tile.store %r#0, %y[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
    tile.store %r#1, %y[%c1, %c0] : tensor<4x2xf32>, !tile.view<?x?xf32>
    return
  }
}
