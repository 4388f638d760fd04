// RUN: tessel-opt %s --split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// A per-column factor of an mma-laid-out tile, loaded and exponentiated
// (compute_out's exp2(Acs_t0 - Acs_s) dt_s, scaling the stored C·Bᵀ block in
// bf16 pairs): in the mma layout's column slice every thread would load and
// exponentiate 16 of the 64 columns, so tilegpu-assign-layouts gives every
// warp the whole vector, two elements per lane (wordPerLane; the layouts are
// checked in assign-layouts.mlir @column_weights_in_warp). Each lane
// exponentiates its two columns, packs its two bf16 into one word, and the
// reshape into the columns fetches each of the thread's 8 column pairs with
// one shuffle of that word (remapWordsInWarp): no shared memory and no CTA
// barrier, where the blocked layout went through both.
// CHECK-LABEL: llvm.func @column_weights_in_warp
// The per-row factor (the mma layout's row slice: two rows per thread).
// CHECK-COUNT-2: "llvm.nvvm.ex2.approx.ftz.f32"
// The per-column one: two per lane.
// CHECK-COUNT-2: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync idx %{{.*}}, %[[WORD:[0-9]+]], %{{.*}}, %c31
// CHECK-COUNT-7: nvvm.shfl.sync idx %{{.*}}, %[[WORD]], %{{.*}}, %c31
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @column_weights_in_warp(%c: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>, %acs: !tile.view<?xf32, align = 16, unit_stride>, %dt: !tile.view<?xf32, align = 16, unit_stride>, %y: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ct = tile.load %c[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %btt = tile.permute %bt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %cb = tile.mma %ct, %btt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %a0 = tile.load %acs[%c0] : !tile.view<?xf32, align = 16, unit_stride> -> tensor<1xf32>
    %a0b = tile.broadcast %a0 : tensor<1xf32> -> tensor<64xf32>
    %at = tile.load %acs[%c0] : !tile.view<?xf32, align = 16, unit_stride> -> tensor<64xf32>
    %rd = arith.subf %at, %a0b : tensor<64xf32>
    %re = math.exp2 %rd : tensor<64xf32>
    %rc = tile.reshape %re : tensor<64xf32> -> tensor<64x1xf32>
    %rb = tile.broadcast %rc : tensor<64x1xf32> -> tensor<64x64xf32>
    %as = tile.load %acs[%c1] : !tile.view<?xf32, align = 16, unit_stride> -> tensor<64xf32>
    %cd = arith.subf %a0b, %as : tensor<64xf32>
    %ce = math.exp2 %cd : tensor<64xf32>
    %dtt = tile.load %dt[%c1] : !tile.view<?xf32, align = 16, unit_stride> -> tensor<64xf32>
    %cw = arith.mulf %ce, %dtt : tensor<64xf32>
    %ch = arith.truncf %cw : tensor<64xf32> to tensor<64xbf16>
    %cr = tile.reshape %ch : tensor<64xbf16> -> tensor<1x64xbf16>
    %cbb = tile.broadcast %cr : tensor<1x64xbf16> -> tensor<64x64xbf16>
    %s = arith.mulf %cb, %rb : tensor<64x64xf32>
    %sh = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
    %p = arith.mulf %sh, %cbb : tensor<64x64xbf16>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %o = tile.mma %p, %xt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %o, %y[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The same with an f32 column vector (the shape of a variant of compute_out
// tried and not kept, bench/results/2026-12-04-saturated-decay.md: u_s =
// log2(dt_s) - Acs_s added to the rows' Acs before the exp2): two f32 elements per
// lane are two words, so each of the thread's 8 column pairs takes two
// shuffles from one source lane (16 in all), still without shared memory or
// a CTA barrier. (Before, a 64-element f32 vector did not fit one word per
// lane and went through shared memory.)
// CHECK-LABEL: llvm.func @f32_columns_in_warp
// CHECK-COUNT-2: "llvm.nvvm.lg2.approx.ftz.f"
// CHECK-NOT: "llvm.nvvm.lg2.approx.ftz.f"
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-16: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @f32_columns_in_warp(%c: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>, %acs: !tile.view<?xf32, align = 16, unit_stride>, %dt: !tile.view<?xf32, align = 16, unit_stride>, %y: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ct = tile.load %c[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %btt = tile.permute %bt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %cb = tile.mma %ct, %btt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %as = tile.load %acs[%c1] : !tile.view<?xf32, align = 16, unit_stride> -> tensor<64xf32>
    %dtt = tile.load %dt[%c1] : !tile.view<?xf32, align = 16, unit_stride> -> tensor<64xf32>
    %l = math.log2 %dtt fastmath<afn> : tensor<64xf32>
    %u = arith.subf %l, %as : tensor<64xf32>
    %ur = tile.reshape %u : tensor<64xf32> -> tensor<1x64xf32>
    %ub = tile.broadcast %ur : tensor<1x64xf32> -> tensor<64x64xf32>
    %e = arith.addf %cb, %ub : tensor<64x64xf32>
    %w = math.exp2 %e : tensor<64x64xf32>
    %p = arith.truncf %w : tensor<64x64xf32> to tensor<64x64xbf16>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %o = tile.mma %p, %xt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %o, %y[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
