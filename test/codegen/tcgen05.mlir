// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --convert-tilegpu-to-llvm | FileCheck %s

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

// Fires for every staging. A computed in registers (%xx) is staged in core
// matrices, K-major without swizzle: LBO 128 bytes between K-adjacent core
// matrices (8 << 16 = 524288 in the low word, beside the start address),
// SBO K / 8 * 128 = 1024 between 8-row groups (64 << 32), version 1
// (1 << 46): the high word 70643622084608. B as the TMA wrote it (K-major,
// folded transpose): LBO 16 (1 << 16 = 65536), SBO 1024, version 1, the
// 128-byte swizzle (mode 2 << 61): 4611756662049472512. An N-major B (%w,
// not transposed) sets the instruction descriptor's bit 16 (N = 64 (8 << 17)
// | M = 64 | bf16 | f32 D | B N-major = 68224144), and its descriptor is the
// swizzled MN-major one: LBO 64 rows x 128 bytes = 8192 between 64-column
// panels (512 << 16 = 33554432), the same high word. The two mmas share
// the 64 columns allocated for the larger.
// CHECK-LABEL: llvm.func @tcgen05_staged
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %c64_i32
// CHECK: arith.constant 524288 : i32
// CHECK: arith.constant 70643622084608 : i64
// CHECK: arith.constant 65536 : i32
// CHECK: arith.constant 4611756662049472512 : i64
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c67634320_i32, %false
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.constant 33554432 : i32
// CHECK: arith.constant 4611756662049472512 : i64
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c68224144_i32, %false
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c64_i32
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @tcgen05_staged(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
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

// -----

// Must not fire: the kernel's hint 'tcgen05' = 0; 8 warps (two warps per
// 16-row band of an M = 64 block: tensor memory gives each warp of a
// warpgroup its own 32 lanes); tf32 precision (kind::tf32 is not lowered
// yet). All stay on mma.sync, and no tensor memory is allocated.
// CHECK-NOT: tessel_tmem
// CHECK-LABEL: llvm.func @tcgen05_hint_off
// CHECK-NOT: nvvm.tcgen05
// CHECK: nvvm.mma.sync
// CHECK-LABEL: llvm.func @tcgen05_eight_warps
// CHECK-NOT: nvvm.tcgen05
// CHECK: nvvm.mma.sync
// CHECK-LABEL: llvm.func @tcgen05_tf32
// CHECK-NOT: nvvm.tcgen05
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.tcgen05
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @tcgen05_hint_off(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_100a = {tcgen05 = 0}}>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %x, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @tcgen05_eight_warps(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {num_warps = 8}}>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %x, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @tcgen05_tf32(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<64x64xf32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %x, %z {precision = #tile<precision tf32>} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Routing into tensor memory: an A computed in registers in the
// accumulator's layout (an mma result, scaled, rounded to bf16) goes to
// tensor memory as the second mma's A, beside its accumulator: 32 columns for
// the 64x32 f32 accumulator, then K / 2 = 32 for A (two bf16 a column), 64 in
// all (the first mma's 64 columns are as many). Each warp stores its 16 rows
// with the 16x128b shape, 8 repeats (16 words: mma.sync's A fragments per
// 16-wide K step), waits for the stores, and thread 0's MMAs take A by its
// tensor-memory address (columns 32, 40, 48, 56: one K step each) instead of
// a descriptor; the instruction descriptor has A K-major (bit 15 clear), B
// N-major, N = 32: 67699856.
// CHECK-LABEL: llvm.func @tcgen05_tmem_a(
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %c64_i32
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c68158608_i32, %false {{.*}} : (!llvm.ptr<6>, i64, i64, i32, i1)
// The 16 A words, then the store's address: the warp's lane base
// (32 w << 16) plus column 32.
// CHECK: %[[V:.*]] = llvm.insertelement %{{.*}}[%c15_i32{{.*}} : i32] : vector<16xi32>
// CHECK-NEXT: %[[TMEM:.*]] = llvm.ptrtoint
// CHECK-NEXT: %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[LANES:.*]] = arith.shli %{{.*}}, %[[SIXTEEN]] : i32
// CHECK-NEXT: %[[BASE:.*]] = arith.addi %[[TMEM]], %[[LANES]] : i32
// CHECK-NEXT: %[[COL:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[COL]] : i32
// CHECK-NEXT: %[[PTR:.*]] = llvm.inttoptr %[[ADDR]] : i32 to !llvm.ptr<6>
// CHECK-NEXT: nvvm.tcgen05.st %[[PTR]], %[[V]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x128b>} : vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: arith.constant 32 : i32
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c67699856_i32, %false {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// CHECK: arith.constant 40 : i32
// CHECK: nvvm.tcgen05.mma {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// CHECK: arith.constant 48 : i32
// CHECK: nvvm.tcgen05.mma {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// CHECK: arith.constant 56 : i32
// CHECK: nvvm.tcgen05.mma {{.*}} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
// CHECK: nvvm.tcgen05.commit
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c64_i32
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @tcgen05_tmem_a(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %v: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x16xbf16>
    %yt = tile.permute %y [1, 0] : tensor<64x16xbf16> -> tensor<16x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %p = tile.mma %x, %yt, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
    %half = arith.constant dense<0.5> : tensor<64x64xf32>
    %ps = arith.mulf %p, %half : tensor<64x64xf32>
    %pb = arith.truncf %ps : tensor<64x64xf32> to tensor<64x64xbf16>
    %w = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x32xbf16>
    %z2 = arith.constant dense<0.0> : tensor<64x32xf32>
    %o = tile.mma %pb, %w, %z2 {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
    tile.store %o, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: the kernel's hint 'tcgen05_tmem_a' = 0 stages that A in
// shared memory (core matrices) and the MMAs take it by descriptor; the 64
// columns are the first mma's alone.
// CHECK-LABEL: llvm.func @tcgen05_tmem_a_off
// CHECK-NOT: shape_16x128b
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c67699856_i32, %false {{.*}} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK-NOT: shape_16x128b
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @tcgen05_tmem_a_off(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %v: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_100a = {tcgen05_tmem_a = 0}}>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x16xbf16>
    %yt = tile.permute %y [1, 0] : tensor<64x16xbf16> -> tensor<16x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %p = tile.mma %x, %yt, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
    %half = arith.constant dense<0.5> : tensor<64x64xf32>
    %ps = arith.mulf %p, %half : tensor<64x64xf32>
    %pb = arith.truncf %ps : tensor<64x64xf32> to tensor<64x64xbf16>
    %w = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x32xbf16>
    %z2 = arith.constant dense<0.0> : tensor<64x32xf32>
    %o = tile.mma %pb, %w, %z2 {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
    tile.store %o, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}
