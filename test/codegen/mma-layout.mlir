// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s

// The accumulator lives in the mma layout: mma.sync takes and returns its
// registers directly (nothing of it goes through shared memory), and a row
// of per-row scales, loaded in the slice of that layout, meets the result in
// the threads that hold its rows: the reshape and the broadcast are register
// copies. After the last mma nothing waits at a barrier, and the result is
// stored from the mma registers, two f32 per access.
// CHECK-LABEL: llvm.func @scaled_mma
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: arith.mulf
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @scaled_mma(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %s: !tile.view<?xf32>, %c: !tile.view<?x?xf32, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %row = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
    %col = tile.reshape %row : tensor<64xf32> -> tensor<64x1xf32>
    %sc = tile.broadcast %col : tensor<64x1xf32> -> tensor<64x32xf32>
    %e = arith.mulf %d, %sc : tensor<64x32xf32>
    tile.store %e, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32, unit_stride>
    return
  }
}

// -----

// An mma result scaled in registers and rounded to bf16 is the A operand of
// a second mma: it stays in the accumulator layout, whose registers are the
// A fragments the warp needs (two 8-column blocks make one 16-wide block),
// so the second mma reads A from registers: only its B is read from shared
// memory (ldmatrix of two matrices, transposed), A never is (no ldmatrix of
// four matrices), and the product is not written to shared memory.
// CHECK-LABEL: llvm.func @chained_mma
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.ldmatrix {{.*}}num = 4
// CHECK-NOT: llvm.store {{.*}} : vector<{{.*}}xbf16>, !llvm.ptr<3>
// CHECK: llvm.bitcast {{.*}} : vector<2xbf16> to i32
// CHECK-NOT: nvvm.ldmatrix {{.*}}num = 4
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @chained_mma(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %v: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %p = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
    %half = arith.constant dense<0.5> : tensor<64x32xf32>
    %ps = arith.mulf %p, %half : tensor<64x32xf32>
    %pb = arith.truncf %ps : tensor<64x32xf32> to tensor<64x32xbf16>
    %w = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<32x16xbf16>
    %z2 = arith.constant dense<0.0> : tensor<64x16xf32>
    %o = tile.mma %pb, %w, %z2 {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf32>
    tile.store %o, %c[%c0, %c0] : tensor<64x16xf32>, !tile.view<?x?xf32, unit_stride>
    return
  }
}

// -----

// A one-element tile is held by every thread: broadcasting it into any
// layout is register copies (no shared memory, no barrier). (exp2 is the
// flush-to-zero ex2.approx: one MUFU.EX2.)
// CHECK-LABEL: llvm.func @one_element_broadcast
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @one_element_broadcast(%s: !tile.view<?xf32>, %x: !tile.view<?x?xf32>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %one = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<1xf32>
    %e = math.exp2 %one : tensor<1xf32>
    %col = tile.reshape %e : tensor<1xf32> -> tensor<1x1xf32>
    %bc = tile.broadcast %col : tensor<1x1xf32> -> tensor<64x32xf32>
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %m = arith.mulf %t, %bc : tensor<64x32xf32>
    tile.store %m, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}
