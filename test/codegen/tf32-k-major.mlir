// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --convert-tilegpu-to-llvm | FileCheck %s

// tf32 reaches wgmma only with both operands K-major (A as loaded, B a folded
// transpose): the form of the first kernel takes wgmma m64n64k8, while a
// transposed A (M-major, second kernel) or an untransposed B (N-major, third)
// stays on mma.sync m16n8k8.
// CHECK-LABEL: llvm.func @k_major
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NOT: nvvm.mma.sync
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @k_major(%a: !tile.view<?x?xf32>, %b: !tile.view<?x?xf32>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %yt = tile.permute %y [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
    %d = tile.mma %x, %yt, %z {precision = #tile<precision tf32>} : tensor<64x32xf32>, tensor<32x64xf32>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @a_m_major
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @a_m_major(%a: !tile.view<?x?xf32>, %b: !tile.view<?x?xf32>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x64xf32>
    %xt = tile.permute %x [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %yt = tile.permute %y [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
    %d = tile.mma %xt, %yt, %z {precision = #tile<precision tf32>} : tensor<64x32xf32>, tensor<32x64xf32>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @b_n_major
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @b_n_major(%a: !tile.view<?x?xf32>, %b: !tile.view<?x?xf32>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x64xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision tf32>} : tensor<64x32xf32>, tensor<32x64xf32>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
