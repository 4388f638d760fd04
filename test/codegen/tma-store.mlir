// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// A store asking for the TMA (tma = true) of a 16x64 f32 tile (two 128-byte
// panels) to a view promised 16-byte aligned with unit stride, the view's
// only access: the kernel takes one CUtensorMap after its arguments and
// exports it as a store map (version 2; argument 1, rank 3, swizzle 128, box
// [1, 16, 32], flags 1); reading its sizes (tile.dim) is no access. The
// threads write the tile to the scratch buffer (no barrier before: no
// thread has used it yet), fence the async proxy, meet at a barrier;
// thread 0 copies each panel out (three coordinates, innermost first),
// commits the bulk group and waits for its reads. No st.global, no barrier
// after the last store.
// CHECK-LABEL: llvm.func @tma_store
// CHECK-SAME: %[[MAP:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%[[C0:.*]], %[[ROW:.*]], %[[B:.*]]] : !llvm.ptr, <3>
// CHECK: %[[P1:.*]] = llvm.getelementptr %{{.*}}[2048]
// CHECK: %[[C1:.*]] = arith.addi %[[C0]], %c32_i32
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[P1]], box[%[[C1]], %[[ROW]], %[[B]]] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<1>
// CHECK: llvm.return
// CHECK: llvm.mlir.global external constant @tessel_tma_tma_store(dense<[2, 1, 1, 3, 128, 1, 16, 32, 0, 0, 1]> : tensor<11xi32>)
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @tma_store(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?x?xf32, align = 16, unit_stride>, %i: i32) {
    %c0 = arith.constant 0 : i32
    %n = tile.dim %y, 1 : !tile.view<?x?x?xf32, align = 16, unit_stride>
    %r = arith.remsi %i, %n : i32
    %t = tile.load %x[%r, %c0] : !tile.view<?x?xf32> -> tensor<16x64xf32>
    tile.store %t, %y[%c0, %i, %c0] {squeeze = array<i64: 0>, tma = true} : tensor<16x64xf32>, !tile.view<?x?x?xf32, align = 16, unit_stride>
    return
  }
}

// -----

// Must not fire: without tma = true; a target without the TMA; a view that
// promises no alignment; rows of 64 bytes (not a whole panel); a view the
// kernel also loads. Each stays an ordinary store: no tensor map, no table.
// CHECK-LABEL: llvm.func @not_asked
// CHECK-NOT: grid_constant
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.store {{.*}} !llvm.ptr<1>
// CHECK-NOT: tessel_tma_
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_asked(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x64xf32>
    tile.store %t, %y[%c0, %c0] : tensor<16x64xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @no_tma_target
// CHECK-NOT: grid_constant
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.store {{.*}} !llvm.ptr<1>
// CHECK-NOT: tessel_tma_
module attributes {tilegpu.target = "sm_90a"} {
  func.func @no_tma_target(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x64xf32>
    tile.store %t, %y[%c0, %c0] {tma = true} : tensor<16x64xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @not_eligible
// CHECK-NOT: grid_constant
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.store {{.*}} !llvm.ptr<1>
// CHECK-NOT: tessel_tma_
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_eligible(%x: !tile.view<?x?xf32>, %unaligned: !tile.view<?x?xf32>, %narrow: !tile.view<?x?xf32, align = 16, unit_stride>, %loaded: !tile.view<?x?xf32, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x64xf32>
    tile.store %t, %unaligned[%c0, %c0] {tma = true} : tensor<16x64xf32>, !tile.view<?x?xf32>
    %n = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
    tile.store %n, %narrow[%c0, %c0] {tma = true} : tensor<16x16xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    %l = tile.load %loaded[%c0, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<16x64xf32>
    tile.store %l, %loaded[%c0, %c0] {tma = true} : tensor<16x64xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    return
  }
}

// -----

// The kernel's last statement is a TMA store after a pipelined loop: its
// tile is staged in the dynamic shared memory, where the loop's rings (two
// stages of two 8 KB copies: 32768 bytes) are free by then, as a GEMM's
// epilogue reuses its main loop's buffers; the static scratch buffer does
// not hold it (no @tessel_smem at all: nothing else uses it). The 64x64
// bf16 tile takes 8192 bytes of the 32768.
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 32768 : i64
// CHECK-NOT: tessel_smem
// CHECK-LABEL: llvm.func @staged_in_rings
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: nvvm.barrier0
// CHECK: %[[DYN:.*]] = llvm.mlir.addressof @tessel_dsmem
// CHECK: llvm.store {{.*}} : vector<{{.*}}>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[SRC:.*]] = llvm.mlir.addressof @tessel_dsmem
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %[[SRC]], box
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @staged_in_rings(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xbf16, align = 16, unit_stride>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %h = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %h, %c[%c0, %c0] {tma = true} : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    return
  }
}

// -----

// Must not fire: a TMA store that is not the kernel's last statement (a
// second store follows it) stages in the static scratch buffer, 8192 bytes,
// and a barrier after it frees that buffer for the next writer.
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 32768 : i64
// CHECK-SAME: tilegpu.shared_bytes = 8192 : i64
// CHECK-LABEL: llvm.func @not_last
// CHECK: scf.for
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier0
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_last(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xbf16, align = 16, unit_stride>, %e: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %h = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %h, %c[%c0, %c0] {tma = true} : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    tile.store %r, %e[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
