// RUN: tessel-opt %s -split-input-file --tilegpu-assign-latencies | FileCheck %s
// With remarks, every load in a loop says its latency and where it came
// from, or why it has none:
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-latencies=remarks=true -verify-diagnostics -o /dev/null

// The load's own hint wins; without one, one iteration (two buffers).
// CHECK-LABEL: func.func @hinted
// CHECK: tile.load {{.*}} {latency = 3 : i64, tilegpu.latency = 3 : i64}
// CHECK: tile.load {{.*}} {tilegpu.latency = 1 : i64}
module attributes {tilegpu.target = "sm_90a"} {
  func.func @hinted(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-remark @below {{latency 3 (the load's hint)}}
      %x = tile.load %a[%c0, %k] {latency = 3 : i64} : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      // expected-remark @below {{latency 1 (the default)}}
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The kernel's num_stages (of the target compiled for, else `default`) sets
// the latency of loads without a hint: num_stages - 1.
// CHECK-LABEL: func.func @num_stages
// CHECK: tile.load {{.*}} {latency = 2 : i64, tilegpu.latency = 2 : i64}
// CHECK: tile.load {{.*}} {tilegpu.latency = 3 : i64}
module attributes {tilegpu.target = "sm_90a"} {
  func.func @num_stages(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_stages = 2}, sm_90a = {num_stages = 4}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-remark @below {{latency 2 (the load's hint)}}
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      // expected-remark @below {{latency 3 (the kernel's num_stages)}}
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: num_stages = 1 asks for no pipelining.
// CHECK-LABEL: func.func @one_stage
// CHECK-NOT: tilegpu.latency
module attributes {tilegpu.target = "sm_90a"} {
  func.func @one_stage(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_stages = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-remark @below {{no latency: the kernel's num_stages asks for none}}
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      // expected-remark @below {{no latency: the kernel's num_stages asks for none}}
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire, one reason each: a tile used in registers in a kernel
// without the prefetch_registers hint; a view the loop writes; an index the loop
// carries; a load not directly in the loop's body (in a branch); a TMA copy
// that is both operands of its mma (each wait would take the next phase).
// A load outside any loop has nothing to say.
// CHECK-LABEL: func.func @not_pipelined
// CHECK-NOT: tilegpu.latency
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @not_pipelined(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %s: !tile.view<?x?xbf16>, %t: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %p: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %z64 = arith.constant dense<0.0> : tensor<64x64xf32>
    %w = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %j = %c0) -> (tensor<64x32xf32>, i32) : i32 {
      // expected-remark @below {{no latency: a tile into registers, and the kernel's prefetch_registers hint is 0 or absent}}
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %x2 = arith.addf %x, %x : tensor<64x16xbf16>
      // expected-remark @below {{no latency: its indices depend on a value the loop carries}}
      %y = tile.load %b[%j, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x2, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      %e = scf.if %p -> (tensor<64x32xf32>) {
        // expected-remark @below {{no latency: the load is not directly in a loop's body}}
        %y2 = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
        %f = tile.mma %x2, %y2, %d {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
        scf.yield %f : tensor<64x32xf32>
      } else {
        scf.yield %d : tensor<64x32xf32>
      }
      // expected-remark @below {{no latency: the loop writes the view}}
      %u = tile.load %s[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %h = tile.mma %x2, %u, %e {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      // expected-remark @below {{no latency: a TMA copy that is more than one mma operand}}
      %v = tile.load %t[%k, %c0] {tilegpu.tma} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %g = tile.mma %v, %v, %z64 {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      tile.store %g, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
      tile.store %w, %s[%k, %c0] : tensor<16x32xbf16>, !tile.view<?x?xbf16>
      %k1 = arith.addi %j, %c1 : i32
      scf.yield %h, %k1 : tensor<64x32xf32>, i32
    }
    tile.store %r#0, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// With the prefetch_registers hint, loads into registers get a latency too
// (tilegpu-schedule-loads issues them one iteration ahead within the
// budget), unless they cannot be: their tile has no layout yet, or the
// loop writes their view.
// CHECK-LABEL: func.func @registers
// CHECK: tile.load {{.*}} {tilegpu.latency = 1 : i64}
// CHECK-NOT: tilegpu.latency
// CHECK: return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 8}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>) : i32 {
      // expected-remark @below {{latency 1 (the default)}}
      %x = tile.load %a[%k] : !tile.view<?xf32> -> tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
      // expected-remark @below {{no latency: the tile has no layout yet (tilegpu-assign-layouts)}}
      %y = tile.load %a[%k] : !tile.view<?xf32> -> tensor<128xf32>
      // expected-remark @below {{no latency: the loop writes the view}}
      %w = tile.load %c[%k] : !tile.view<?xf32> -> tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
      %s = arith.addf %x, %w : tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
      tile.store %y, %c[%k] : tensor<128xf32>, !tile.view<?xf32>
      %t = arith.addf %acc, %s : tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
      scf.yield %t : tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
    }
    return
  }
}

// -----

// num_stages is the depth of the rings: with num_stages = 1 a load into
// registers still gets its latency (prefetch_registers governs it).
// CHECK-LABEL: func.func @one_stage_registers
// CHECK: tile.load {{.*}} {tilegpu.latency = 1 : i64}
module attributes {tilegpu.target = "sm_90a"} {
  func.func @one_stage_registers(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_stages = 1, prefetch_registers = 8}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>) : i32 {
      // expected-remark @below {{latency 1 (the default)}}
      %x = tile.load %a[%k] : !tile.view<?xf32> -> tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
      %t = arith.addf %acc, %x : tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
      scf.yield %t : tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
    }
    return
  }
}
