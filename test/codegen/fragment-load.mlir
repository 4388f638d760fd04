// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --convert-tilegpu-to-llvm | FileCheck %s

// S = (x * w)ᵀ · B with the scaled x computed in registers (the state
// kernels' update). x takes the transposed accumulator layout
// (assign-layouts), so its load is copied by the TMA like an mma operand
// and read from its 128-byte swizzled copy with ldmatrix.trans: for each
// 16-token block one .x4 (col layout) gives the warp the four A fragments of
// its 16 head-dim rows, 4 blocks for 64 tokens. After the scaling the
// transpose only renames registers: wgmma takes A from registers (the
// inline form, B by descriptor), and no thread stores A to shared memory.
// Before B's copy reuses the scratch buffer, a proxy fence (ldmatrix read
// it through the generic proxy) and a barrier.
// CHECK-LABEL: llvm.func @fragments_wgmma(
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-NOT: nvvm.ldmatrix
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @fragments_wgmma(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// On sm_100a the same A goes from those registers to tensor memory (16x128b
// stores after the 128 accumulator columns: 256 allocated) and tcgen05.mma
// reads it there (A K-major: 69272720).
// CHECK-LABEL: llvm.func @fragments_tcgen05(
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %c256_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x128b>}
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c69272720_i32, %false {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @fragments_tcgen05(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: with the hint 'tcgen05_tmem_a' = 0 (the Mamba-2 state
// kernels' choice on sm_100a/sm_103a) x keeps its default layout, its load
// stays in registers, and the scaled A is staged in shared memory by the
// threads for the mma to read by descriptor (A M-major: 69305488).
// CHECK-LABEL: llvm.func @fragments_off(
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c69305488_i32, %false {{.*}} : (!llvm.ptr<6>, i64, i64, i32, i1)
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @fragments_off(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_100a = {tcgen05_tmem_a = 0}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
    return
  }
}
