// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s

// tcgen05 (targets with tilegpu.tcgen05_available): both operands TMA-staged
// K-major, the accumulator in #tilegpu.mma<[4, 1]> on 4 warps. Warp 0
// allocates 32 columns (the 64x32 f32 accumulator; at least 32) into
// tessel_tmem at entry and frees them at exit. A zero accumulator is not
// stored to tensor memory: the first of the four K steps (K = 64) does not
// accumulate (enable_input_d false), the others do. Instruction descriptor:
// f32 D (1 << 4), bf16 A and B (1 << 7, 1 << 10), K-major, N = 32 (4 << 17),
// M = 64 (4 << 24): 67634320. Commit to an mbarrier, then each warp loads
// its rows (16x256b, 4 column blocks: 16 words) and waits for the load.
// CHECK: llvm.mlir.global internal @tessel_tmem() {addr_space = 3 : i32, alignment = 4 : i64} : i32
// CHECK-LABEL: llvm.func @tcgen05_zero_acc
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %c32_i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK-NOT: nvvm.tcgen05.st
// CHECK: %false = arith.constant false
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c67634320_i32, %false {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c67634320_i32_{{[0-9]+}}, %true
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.mma
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.commit
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c32_i32
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @tcgen05_zero_acc(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
    %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %d = tile.mma %x, %yt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: B not transposed (N-major: not yet on the tcgen05 path),
// and A computed in registers (it would need tensor memory or a staging
// copy). Both stay on mma.sync; no tensor memory.
// CHECK-NOT: tessel_tmem
// CHECK-LABEL: llvm.func @tcgen05_not
// CHECK-NOT: nvvm.tcgen05
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.tcgen05
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @tcgen05_not(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
    %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
    %xx = arith.addf %x, %x : tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %d = tile.mma %xx, %yt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    %w = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z2 = arith.constant dense<0.0> : tensor<64x64xf32>
    %e = tile.mma %x, %w, %z2 {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %e, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
