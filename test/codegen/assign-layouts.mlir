// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts | FileCheck %s

// The default layout: 4 elements per thread along the last dimension, lanes
// from the fastest dimension, warps from the slowest; num_warps from the hints
// of the module's target.
// CHECK-LABEL: func.func @hinted
// CHECK-SAME: tilegpu.num_warps = 8
// CHECK: tile.load {{.*}} -> tensor<256x16xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>>
// CHECK: tile.permute {{.*}} -> tensor<16x256xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @hinted(%x: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {num_warps = 2}, sm_90a = {num_warps = 8}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<256x16xf32>
    %p = tile.permute %t [1, 0] : tensor<256x16xf32> -> tensor<16x256xf32>
    return
  }
}

// -----

// Without a hint for the target, the `default` entry; without hints, 4 warps.
// Tiles combined elementwise share one layout (so compares, selects and
// casts find their operands' registers in the same places), made for the
// narrowest element among them: 16 bytes of bf16 per thread.
// A tile smaller than the CTA's threads wraps around (threads share elements).
// CHECK-LABEL: func.func @default_warps
// CHECK-SAME: tilegpu.num_warps = 4
// CHECK: tile.load {{.*}} -> tensor<64xbf16, #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: arith.extf {{.*}} to tensor<64xf32, #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: arith.cmpf {{.*}} : tensor<64xf32, #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
module {
  func.func @default_warps(%x: !tile.view<?xbf16>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0] : !tile.view<?xbf16> -> tensor<64xbf16>
    %f = arith.extf %t : tensor<64xbf16> to tensor<64xf32>
    %z = arith.constant dense<0.0> : tensor<64xf32>
    %c = arith.cmpf ogt, %f, %z : tensor<64xf32>
    return
  }
}

// -----

// Loop-carried tiles get the layout on the loop's results and block arguments.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32, #tilegpu.blocked
// CHECK: arith.addf {{.*}} : tensor<32x32xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
module {
  func.func @loop(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<32x32xf32>) : i32 {
      %a = arith.addf %acc, %acc : tensor<32x32xf32>
      scf.yield %a : tensor<32x32xf32>
    }
    return
  }
}

// -----

// An mma's accumulator and result take the mma layout, and so does every
// tile tied to them: the loop that carries the accumulator, the elementwise
// ops on it, the zeros it starts from. A per-row value broadcast over the
// result takes the same layout, sliced where a reshape inserted the unit
// dimension, so that the threads holding a row of the tile hold its value.
// The operands, loaded from memory, keep blocked layouts (16 bytes per
// thread). 64x32 on 4 warps: 4x1 (as few A and B re-reads as 2x2).
// CHECK-LABEL: func.func @mma_layouts
// CHECK: tile.load {{.*}} -> tensor<64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.mma<warpsPerCTA = [4, 1]>>>
// CHECK: tile.reshape {{.*}} -> tensor<64x1xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK: tile.broadcast {{.*}} -> tensor<64x32xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK: scf.for {{.*}} -> (tensor<64x32xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>)
// CHECK: tile.load {{.*}} -> tensor<64x16xbf16, #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: tile.mma {{.*}} tensor<64x32xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK: arith.mulf {{.*}} : tensor<64x32xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
module {
  func.func @mma_layouts(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %s: !tile.view<?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %row = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %col = tile.reshape %row : tensor<64xf32> -> tensor<64x1xf32>
    %init = tile.broadcast %col : tensor<64x1xf32> -> tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      %e = arith.mulf %d, %init : tensor<64x32xf32>
      scf.yield %e : tensor<64x32xf32>
    }
    return
  }
}

// -----

// Where the tile is not made of whole 16x8 blocks for its warps, no mma
// layout: the accumulator keeps a blocked layout (the mma then goes through
// shared memory).
// CHECK-LABEL: func.func @mma_too_small
// CHECK: tile.mma {{.*}}, tensor<16x8xf32, #tilegpu.blocked
module {
  func.func @mma_too_small(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x8xbf16>
    %z = arith.constant dense<0.0> : tensor<16x8xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xf32>
    return
  }
}

// -----

// On a target with warpgroup MMA, a kernel whose hint asks for wgmma is
// marked and its 64x64 accumulator takes the warpgroup layout (warps along M
// only: wgmma's accumulator registers); without the hint, the mma.sync
// layout (2x2 warps).
// CHECK-LABEL: func.func @wgmma_hinted
// CHECK-SAME: tilegpu.wgmma
// CHECK: tile.mma {{.*}}, tensor<64x64xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK-LABEL: func.func @wgmma_not_hinted
// CHECK-NOT: tilegpu.wgmma
// CHECK: tile.mma {{.*}}, tensor<64x64xf32, #tilegpu.mma<warpsPerCTA = [2, 2]>>
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @wgmma_hinted(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
    return
  }
  func.func @wgmma_not_hinted(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
    return
  }
}

// -----

// A cumsum keeps its type: source and result share a layout, here the one
// made for the bf16 load the source is cast from.
// CHECK-LABEL: func.func @cumsum_of_cast
// CHECK: tile.cumsum {{.*}} : tensor<256xf32, #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
module {
  func.func @cumsum_of_cast(%x: !tile.view<?xbf16>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0] : !tile.view<?xbf16> -> tensor<256xbf16>
    %f = arith.extf %t : tensor<256xbf16> to tensor<256xf32>
    %s = tile.cumsum %f {axis = 0 : i64} : tensor<256xf32>
    return
  }
}

// -----

// A 16-bit A computed in registers and transposed into a warpgroup mma
// (x scaled per token, then (x * w)ᵀ · B: the state kernels' update) is
// computed in the transposed accumulator layout, the load of x included,
// and the per-token weights sliced from it; the transpose is then in the
// accumulator's layout, which hands wgmma its A fragments from registers.
// CHECK-LABEL: func.func @transposed_register_a
// CHECK: tile.load %arg0{{.*}} -> tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>
// CHECK: tile.load %arg2{{.*}} -> tensor<64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>>
// CHECK: arith.mulf {{.*}} : tensor<64x64xf32, #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>
// CHECK: tile.permute {{.*}} -> tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK: tile.mma {{.*}} : tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>, {{.*}}, tensor<64x128xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
//
// Must not fire: the kernel's hint 'wgmma_register_a' = 0 (A staged in
// shared memory, the transpose folded into the mma's read), ...
// CHECK-LABEL: func.func @transposed_register_a_off
// CHECK-NOT: transposed = true
// CHECK: tile.permute {{.*}} -> tensor<64x64xbf16, #tilegpu.blocked
// ... a transposed load (the mma reads its staged copy the other way
// round), ...
// CHECK-LABEL: func.func @transposed_load
// CHECK-NOT: transposed = true
// CHECK: tile.permute {{.*}} -> tensor<64x64xbf16, #tilegpu.blocked
// ... a load of x the TMA cannot copy (its view promises no unit stride:
// in the transposed layout it would be one 2-byte load per element), ...
// CHECK-LABEL: func.func @transposed_register_a_strided
// CHECK-NOT: transposed = true
// CHECK: tile.permute {{.*}} -> tensor<64x64xbf16, #tilegpu.blocked
// ... a transpose that is also the B operand (mma(%a, %a)), and a scaled
// tile that is itself an mma's A besides, ...
// CHECK-LABEL: func.func @transposed_register_a_also_b
// CHECK-NOT: transposed = true
// CHECK-LABEL: func.func @transposed_register_a_also_a
// CHECK-NOT: transposed = true
// ... and mma.sync (no wgmma hint).
// CHECK-LABEL: func.func @transposed_register_a_mma_sync
// CHECK-NOT: transposed = true
// CHECK: return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @transposed_register_a(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
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
    return
  }
  func.func @transposed_register_a_off(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, wgmma_register_a = 0}}>} {
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
    return
  }
  func.func @transposed_load(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %a = tile.permute %xt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    return
  }
  func.func @transposed_register_a_strided(%x: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
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
    return
  }
  func.func @transposed_register_a_also_b(%x: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %xf : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.mma %a, %a, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    return
  }
  func.func @transposed_register_a_also_a(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %xf : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    %t = tile.mma %xh, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    return
  }
  func.func @transposed_register_a_mma_sync(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>) {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %xf : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    return
  }
}

// -----

// Per-token weights that are loaded and pass through a transcendental
// function (w = exp2(a) * dt: the state kernels' decay) keep the blocked
// layout where the slice of the transposed accumulator layout would
// replicate them 32 times (every thread loading and exponentiating 16 of
// the 64 tokens): each token is loaded and exponentiated about once, and the
// reshape moves w into the slice through shared memory. (w in f32: two per
// lane would not fit one 32-bit word, the in-warp layout of
// @column_weights_in_warp below.)
// CHECK-LABEL: func.func @replicated_weights_blocked
// CHECK: tile.load %arg2{{.*}} -> tensor<64xf32, #tilegpu.blocked
// CHECK: math.exp2 {{.*}} : tensor<64xf32, #tilegpu.blocked
// CHECK: tile.reshape {{.*}} -> tensor<64x1xf32, #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>
// CHECK: tile.permute {{.*}} -> tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
//
// Must not fire: weights loaded but computed without a transcendental
// function (a load replicated is one load per register; its values keep
// the slice), ...
// CHECK-LABEL: func.func @replicated_weights_no_exp
// CHECK: tile.load %arg2{{.*}} -> tensor<64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>>
// ... and a per-row factor the slice replicates 4 times only (the four
// lanes of a quad hold each row of an mma.sync-shaped accumulator).
// CHECK-LABEL: func.func @row_exp_slice
// CHECK: tile.load {{.*}} -> tensor<64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.mma<warpsPerCTA = [4, 1]>>>
// CHECK: math.exp2 {{.*}} : tensor<64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.mma<warpsPerCTA = [4, 1]>>>
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @replicated_weights_blocked(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %acs: !tile.view<?xf32, unit_stride>, %dt: !tile.view<?xf32, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %at = tile.load %acs[%c0] : !tile.view<?xf32, unit_stride> -> tensor<64xf32>
    %dtt = tile.load %dt[%c0] : !tile.view<?xf32, unit_stride> -> tensor<64xf32>
    %e = math.exp2 %at : tensor<64xf32>
    %wt = arith.mulf %e, %dtt : tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    return
  }
  func.func @replicated_weights_no_exp(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %acs: !tile.view<?xf32, unit_stride>, %dt: !tile.view<?xf32, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
    %at = tile.load %acs[%c0] : !tile.view<?xf32, unit_stride> -> tensor<64xf32>
    %dtt = tile.load %dt[%c0] : !tile.view<?xf32, unit_stride> -> tensor<64xf32>
    %wt = arith.mulf %at, %dtt : tensor<64xf32>
    %wc = tile.reshape %wt : tensor<64xf32> -> tensor<64x1xf32>
    %wb = tile.broadcast %wc : tensor<64x1xf32> -> tensor<64x64xf32>
    %xf = arith.extf %xt : tensor<64x64xbf16> to tensor<64x64xf32>
    %xs = arith.mulf %xf, %wb : tensor<64x64xf32>
    %xh = arith.truncf %xs : tensor<64x64xf32> to tensor<64x64xbf16>
    %a = tile.permute %xh [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x128xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    return
  }
  func.func @row_exp_slice(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %s: !tile.view<?xf32>) {
    %c0 = arith.constant 0 : i32
    %row = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %e = math.exp2 %row : tensor<64xf32>
    %col = tile.reshape %e : tensor<64xf32> -> tensor<64x1xf32>
    %f = tile.broadcast %col : tensor<64x1xf32> -> tensor<64x32xf32>
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %y = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
    %m = arith.mulf %d, %f : tensor<64x32xf32>
    return
  }
}
// -----

// A per-column factor loaded, exponentiated and rounded to 16 bits before
// it meets an mma-laid-out tile (compute_out's column decay, scaling the
// stored C·Bᵀ block in bf16 pairs): the column slice would replicate it 32
// times, so every warp holds the whole vector instead, two elements per
// lane (one 32-bit word of bf16: the reshape is then one warp shuffle per
// column pair, remap-in-warp.mlir). The broadcast of the block's first Acs,
// used by the per-row factor and by the column factor, is cloned for each,
// so that the column factor does not take the row factor's slice.
// CHECK-LABEL: func.func @column_weights_in_warp
// CHECK-DAG: tile.broadcast %{{.*}} : tensor<1xf32, {{.*}}> -> tensor<64xf32, #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK-DAG: tile.broadcast %{{.*}} : tensor<1xf32, {{.*}}> -> tensor<64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.mma<warpsPerCTA = [4, 1]>>>
// CHECK: math.exp2 {{.*}} : tensor<64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.mma<warpsPerCTA = [4, 1]>>>
// CHECK: math.exp2 {{.*}} : tensor<64xf32, #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: tile.reshape {{.*}} : tensor<64xbf16, #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<1x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
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

// A layout given in the input is kept (here the transposed mma layout, as
// printed and parsed).
// CHECK-LABEL: func.func @given_transposed
// CHECK: tile.load {{.*}} -> tensor<64x32xbf16, #tilegpu.mma<warpsPerCTA = [2, 1], transposed = true>>
module {
  func.func @given_transposed(%x: !tile.view<?x?xbf16>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16, #tilegpu.mma<warpsPerCTA = [2, 1], transposed = true>>
    return
  }
}

// -----

// A 16-bit tile loaded, transposed, and combined with an accumulator (a
// block of C·Bᵀ stored the other way round, scaled, fed to the next mma:
// compute_out with chunk_cb's blocks) is loaded in the transposed
// accumulator layout: the transpose renames registers, and the load is read
// as fragments from its TMA copy.
// CHECK-LABEL: func.func @transposed_load_to_accumulator
// CHECK: tile.load %arg0{{.*}} -> tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>
// CHECK: tile.permute {{.*}} -> tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK: arith.mulf {{.*}} : tensor<64x64xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// ... also where no mma result joins the group: a 16-bit A computed in
// registers takes the accumulator's layout when nothing else lays its group
// out (here a 64 x 32 A of a 64 x 64 result: no shape in the group is an
// accumulator's).
// CHECK-LABEL: func.func @transposed_load_to_register_a
// CHECK: tile.load %arg0{{.*}} -> tensor<32x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1], transposed = true>>
// CHECK: tile.permute {{.*}} -> tensor<64x32xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK: arith.truncf {{.*}} to tensor<64x32xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK-LABEL: func.func @computed_register_a
// CHECK: tile.load %arg0{{.*}} -> tensor<64x32xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// CHECK: arith.truncf {{.*}} to tensor<64x32xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
//
// Must not fire: a load the TMA cannot copy (no unit stride: in the
// transposed layout, one 2-byte load per element), ...
// CHECK-LABEL: func.func @transposed_load_to_accumulator_strided
// CHECK-NOT: transposed = true
// CHECK: tile.permute {{.*}} -> tensor<64x64xbf16, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// ... a 32-bit tile (no 16-bit fragments to read), ...
// CHECK-LABEL: func.func @transposed_load_to_accumulator_f32
// CHECK-NOT: transposed = true
// CHECK: tile.permute {{.*}} -> tensor<64x64xf32, #tilegpu.mma<warpsPerCTA = [4, 1]>>
// ... and mma.sync (no wgmma hint).
// CHECK-LABEL: func.func @transposed_load_to_accumulator_mma_sync
// CHECK-NOT: transposed = true
// CHECK: return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @transposed_load_to_accumulator(%cbt: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %l = tile.load %cbt[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %t = tile.permute %l [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %f = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %xt, %xt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %p = arith.mulf %f, %d : tensor<64x64xf32>
    %h = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
    %s = tile.mma %h, %xt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    return
  }
  func.func @transposed_load_to_register_a(%cbt: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>, %w: !tile.view<?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %l = tile.load %cbt[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
    %t = tile.permute %l [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
    %f = arith.extf %t : tensor<64x32xbf16> to tensor<64x32xf32>
    %wt = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<32xf32>
    %wr = tile.reshape %wt : tensor<32xf32> -> tensor<1x32xf32>
    %wb = tile.broadcast %wr : tensor<1x32xf32> -> tensor<64x32xf32>
    %p = arith.mulf %f, %wb : tensor<64x32xf32>
    %h = arith.truncf %p : tensor<64x32xf32> to tensor<64x32xbf16>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.mma %h, %xt, %z {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
    return
  }
  func.func @computed_register_a(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %l = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x32xbf16>
    %f = arith.extf %l : tensor<64x32xbf16> to tensor<64x32xf32>
    %p = arith.mulf %f, %f : tensor<64x32xf32>
    %h = arith.truncf %p : tensor<64x32xf32> to tensor<64x32xbf16>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.mma %h, %xt, %z {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
    return
  }
  func.func @transposed_load_to_accumulator_strided(%cbt: !tile.view<?x?xbf16>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %l = tile.load %cbt[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %t = tile.permute %l [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %f = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %xt, %xt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %p = arith.mulf %f, %d : tensor<64x64xf32>
    return
  }
  func.func @transposed_load_to_accumulator_f32(%cbt: !tile.view<?x?xf32, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %l = tile.load %cbt[%c0, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<64x64xf32>
    %t = tile.permute %l [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %xt, %xt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %p = arith.mulf %t, %d : tensor<64x64xf32>
    return
  }
  func.func @transposed_load_to_accumulator_mma_sync(%cbt: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %l = tile.load %cbt[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %t = tile.permute %l [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %f = arith.extf %t : tensor<64x64xbf16> to tensor<64x64xf32>
    %xt = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %xt, %xt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %p = arith.mulf %f, %d : tensor<64x64xf32>
    return
  }
}

// -----

// Every memory access of the group runs along a squeezed view dimension (its
// stride is not the unit one: no access can be a vector): one element per
// thread along the last dimension, so that 64 elements take 64 lanes instead
// of each thread issuing 4 (f32) or 8 (bf16) scalar accesses of a tile
// replicated over the rest. Loads and stores alike; the group's elementwise
// ops follow.
// CHECK-LABEL: func.func @strided_only
// CHECK: tile.load {{.*}} -> tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: arith.addf {{.*}} : tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: tile.load {{.*}} -> tensor<64x16xbf16, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// CHECK: arith.negf {{.*}} : tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: tile.store {{.*}} : tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>, !tile.view<?x?xf32>
module {
  func.func @strided_only(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?x?xbf16>, %o: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %v = arith.constant dense<1.0> : tensor<64xf32>
    %t = tile.load %x[%c0, %c0] {squeeze = array<i64: 1>} : !tile.view<?x?xf32> -> tensor<64xf32>
    %s = arith.addf %t, %t : tensor<64xf32>
    %u = tile.load %y[%c0, %c0, %c0] {squeeze = array<i64: 2>} : !tile.view<?x?x?xbf16> -> tensor<64x16xbf16>
    %n = arith.negf %v : tensor<64xf32>
    tile.store %n, %o[%c0, %c0] {squeeze = array<i64: 1>} : tensor<64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not change: a group with one vector access as well keeps the vector
// layout (the contiguous load gets its 16-byte accesses; the strided one
// would issue scalar accesses in any layout).
// CHECK-LABEL: func.func @strided_and_contiguous
// CHECK: tile.load {{.*}} -> tensor<64xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: tile.load {{.*}} -> tensor<64xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: arith.addf {{.*}} : tensor<64xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
module {
  func.func @strided_and_contiguous(%x: !tile.view<?x?xf32>, %y: !tile.view<?xf32>) {
    %c0 = arith.constant 0 : i32
    %a = tile.load %x[%c0, %c0] {squeeze = array<i64: 1>} : !tile.view<?x?xf32> -> tensor<64xf32>
    %b = tile.load %y[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    %s = arith.addf %a, %b : tensor<64xf32>
    return
  }
}
