// RUN: tessel-opt %s --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s

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
