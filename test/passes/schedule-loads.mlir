// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-assign-latencies --tilegpu-schedule-loads | FileCheck %s
// The same through the pass pipeline (../shared/DESIGN.md's name for both):
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-pipeline | FileCheck %s
// With remarks, every load with a latency says how far ahead it is issued,
// or why not:
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-assign-latencies --tilegpu-schedule-loads=remarks=true -verify-diagnostics -o /dev/null
// The lowering expands what was scheduled (ring sizes, cp.async groups):
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LLVM

// Each load as far ahead as its latency: rings of 4 and 2 buffers. A
// buffer's bound: 64 x (16 + 8) bf16 = 3072 bytes, 16 x (32 + 8) = 1280.
// The lowering's rings (mma.sync staging pads rows by 8 elements too):
// 4 x 3072 + 2 x 1280 = 14848 bytes; a prologue of three groups (the
// iterations -3, -2, -1), one group per iteration, and the mma waits for
// all but the newest one (the nearer load is one iteration ahead).
// CHECK-LABEL: func.func @deep
// CHECK: tile.load {{.*}} {latency = 3 : i64, tilegpu.distance = 3 : i64, tilegpu.latency = 3 : i64}
// CHECK: tile.load {{.*}} {tilegpu.distance = 1 : i64, tilegpu.latency = 1 : i64}
// LLVM: module attributes {tilegpu.dynamic_shared_bytes = 14848 : i64
// LLVM-LABEL: llvm.func @deep
// LLVM-COUNT-3: nvvm.cp.async.commit.group
// LLVM-NEXT: scf.for
// LLVM: arith.andi %{{.*}}, %c1_i32
// LLVM: arith.remsi %{{.*}}, %c4_i32
// LLVM-NEXT: arith.cmpi ne
// LLVM-NEXT: scf.if
// LLVM-NEXT: nvvm.barrier0
// LLVM: nvvm.cp.async.commit.group
// LLVM-NOT: nvvm.cp.async.wait.group 0
// LLVM: nvvm.cp.async.wait.group 1
// LLVM: nvvm.mma.sync
module attributes {tilegpu.target = "sm_90a"} {
  func.func @deep(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-remark @below {{issued 3 iterations ahead (4 buffers of 3072 bytes)}}
      %x = tile.load %a[%c0, %k] {latency = 3 : i64} : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 1280 bytes)}}
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Both loads at distance 2: the mma waits for all but the two newest groups.
// CHECK-LABEL: func.func @both_two
// CHECK-COUNT-2: tilegpu.distance = 2 : i64
// LLVM-LABEL: llvm.func @both_two
// LLVM-COUNT-2: nvvm.cp.async.commit.group
// LLVM-NEXT: scf.for
// LLVM: nvvm.cp.async.wait.group 2
module attributes {tilegpu.target = "sm_90a"} {
  func.func @both_two(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_stages = 3}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-remark @below {{issued 2 iterations ahead (3 buffers of 3072 bytes)}}
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      // expected-remark @below {{issued 2 iterations ahead (3 buffers of 1280 bytes)}}
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Shared memory cuts the rings, first come first served. A TMA buffer is
// 128 x 128 bf16 = 32768 bytes (1024-aligned). The loop-invariant TMA
// operand before the loop keeps one (163840 - 32768 = 131072 left): the
// first load asks for 8 iterations and gets 3 (4 buffers: all that is
// left); the second does not fit even two buffers. In the nested loop
// below the first load's ring, nothing is left either.
// CHECK-LABEL: func.func @budget
// CHECK: tile.load {{.*}} {latency = 8 : i64, tilegpu.distance = 3 : i64, tilegpu.latency = 8 : i64, tilegpu.tma}
// CHECK-NOT: tilegpu.distance
// CHECK: return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @budget(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128x128xf32>
    %w = tile.load %a[%c0, %c0] {tilegpu.tma} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x128xbf16>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x128xf32>) : i32 {
      // expected-remark @below {{issued 3 iterations ahead (4 buffers of 32768 bytes); latency 8 cut to fit in shared memory}}
      %x = tile.load %a[%k, %c0] {latency = 8 : i64, tilegpu.tma} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x128xbf16>
      // expected-remark @below {{not scheduled: two buffers of 32768 bytes do not fit in the 0 bytes of shared memory left for rings}}
      %y = tile.load %a[%c0, %k] {tilegpu.tma} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x128xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
      %e = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %d) -> (tensor<128x128xf32>) : i32 {
        // expected-remark @below {{not scheduled: two buffers of 32768 bytes do not fit in the 0 bytes of shared memory left for rings}}
        %u = tile.load %a[%j, %k] {tilegpu.tma} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x128xbf16>
        %f = tile.mma %w, %u, %acc2 {precision = #tile<precision bf16>} : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<128x128xf32>
        scf.yield %f : tensor<128x128xf32>
      }
      scf.yield %e : tensor<128x128xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A hand-written latency on a load the loop cannot issue ahead (the loop
// writes its view) is checked again and not scheduled.
// CHECK-LABEL: func.func @hand_written
// CHECK-NOT: tilegpu.distance
// CHECK: tile.load {{.*}} {tilegpu.distance = 1 : i64, tilegpu.latency = 1 : i64}
module attributes {tilegpu.target = "sm_90a"} {
  func.func @hand_written(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-remark @below {{not scheduled: the loop writes the view}}
      %x = tile.load %a[%c0, %k] {tilegpu.latency = 2 : i64} : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      // expected-remark @below {{issued 1 iteration ahead (2 buffers of 1280 bytes)}}
      %y = tile.load %b[%k, %c0] {tilegpu.latency = 1 : i64} : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      %t = arith.truncf %d : tensor<64x32xf32> to tensor<64x32xbf16>
      tile.store %t, %a[%c0, %k] : tensor<64x32xbf16>, !tile.view<?x?xbf16>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Loads into registers (the prefetch_registers hint: 12 registers per
// thread here, per loop): one iteration ahead, first come first served.
// 512 f32 elements are 8 registers per thread (their layout: 8 per thread
// on 4 warps, each element held twice); 512 bf16 elements
// are 8 too, carried as 4 32-bit words (the accesses are even vectors);
// x's latency 3 is cut to 1 (the budget: every load gets one iteration
// first).
// The last load does not fit in what is left.
// CHECK-LABEL: func.func @registers
// CHECK: tile.load {{.*}} {latency = 3 : i64, tilegpu.distance = 1 : i64, tilegpu.latency = 3 : i64}
// CHECK: tile.load {{.*}} {tilegpu.distance = 1 : i64, tilegpu.latency = 1 : i64}
// CHECK-NOT: tilegpu.distance
// CHECK: return
// LLVM-LABEL: llvm.func @registers
// (The loop carries the accumulator's 8 registers, x's 8 and y's 4 words.)
// LLVM: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i32, i32)
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers(%a: !tile.view<?xf32>, %h: !tile.view<?xbf16>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 12}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<512xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead into 8 registers the loop carries; latency 3 cut to 1 (the prefetch_registers budget)}}
      %x = tile.load %a[%k] {latency = 3 : i64} : !tile.view<?xf32> -> tensor<512xf32>
      // expected-remark @below {{issued 1 iteration ahead into 4 registers the loop carries}}
      %y = tile.load %h[%k] : !tile.view<?xbf16> -> tensor<512xbf16>
      // expected-remark @below {{not scheduled: 8 registers, more than the 0 of the prefetch_registers budget left}}
      %w = tile.load %a[%n] : !tile.view<?xf32> -> tensor<512xf32>
      %yf = arith.extf %y : tensor<512xbf16> to tensor<512xf32>
      %s = arith.addf %x, %yf : tensor<512xf32>
      %s2 = arith.addf %s, %w : tensor<512xf32>
      %t = arith.addf %acc, %s2 : tensor<512xf32>
      scf.yield %t : tensor<512xf32>
    }
    tile.store %r, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// Loads into registers as far ahead as their latency asks, within the
// budget: x (8 registers) 3 iterations ahead (24), y (4 words) cut from 6
// to 4 (16 registers: 4 iterations are the most a loop carries). The
// lowering's loop carries the accumulator's 8 registers, x's 3 sets of 8 and
// y's 4 sets of 4 words, and issues 3 iterations of x and 4 of y before it.
// CHECK-LABEL: func.func @registers_deep
// CHECK: tile.load {{.*}} {latency = 3 : i64, tilegpu.distance = 3 : i64, tilegpu.latency = 3 : i64}
// CHECK: tile.load {{.*}} {latency = 6 : i64, tilegpu.distance = 4 : i64, tilegpu.latency = 6 : i64}
// (The prologue: y's iteration 0, then x's 0 and y's 1, x's 1 and y's 2,
// x's 2 and y's 3; the loop carries x's three sets, then y's four.)
// LLVM-LABEL: llvm.func @registers_deep
// LLVM: %[[Y0:[0-9]+]]:4 = scf.if {{.*}} -> (i32, i32, i32, i32)
// LLVM: %[[X0:[0-9]+]]:8 = scf.if {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
// LLVM: %{{.*}}:48 = scf.for {{.*}} = %[[X0]]#7, {{.*}} = %[[Y0]]#0, {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
// Each iteration yields x's sets 1 and 2 (%arg27-%arg42), then the x it
// issued for k + 3; y's sets 1-3 (%arg47-%arg58), then the y for k + 4.
// LLVM: scf.yield {{.*}}, %arg27, {{.*}}, %arg42, %[[NX:[0-9]+]]#0, {{.*}}, %[[NX]]#7, %arg47, {{.*}}, %arg58, %[[NY:[0-9]+]]#0, %[[NY]]#1, %[[NY]]#2, %[[NY]]#3 : f32
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers_deep(%a: !tile.view<?xf32>, %h: !tile.view<?xbf16>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 40}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<512xf32>) : i32 {
      // expected-remark @below {{issued 3 iterations ahead into 24 registers the loop carries}}
      %x = tile.load %a[%k] {latency = 3 : i64} : !tile.view<?xf32> -> tensor<512xf32>
      // expected-remark @below {{issued 4 iterations ahead into 16 registers the loop carries; latency 6 cut to 4 (registers carry at most 4 iterations)}}
      %y = tile.load %h[%k] {latency = 6 : i64} : !tile.view<?xbf16> -> tensor<512xbf16>
      %yf = arith.extf %y : tensor<512xbf16> to tensor<512xf32>
      %s = arith.addf %x, %yf : tensor<512xf32>
      %t = arith.addf %acc, %s : tensor<512xf32>
      scf.yield %t : tensor<512xf32>
    }
    tile.store %r, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// The budget goes first to one iteration for every load, then deeper in
// body order: x (4 registers, latency 2) does not take y's share (taking
// its 8 first would leave y none).
// CHECK-LABEL: func.func @registers_shared
// CHECK: tile.load {{.*}}tilegpu.distance = 1 : i64
// CHECK: tile.load {{.*}}tilegpu.distance = 1 : i64
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers_shared(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 8}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<512xf32>) : i32 {
      // expected-remark @below {{issued 1 iteration ahead into 4 registers the loop carries; latency 2 cut to 1 (the prefetch_registers budget)}}
      %x = tile.load %a[%k] {latency = 2 : i64} : !tile.view<?xf32> -> tensor<512xf32>
      // expected-remark @below {{issued 1 iteration ahead into 4 registers the loop carries}}
      %y = tile.load %c[%k] : !tile.view<?xf32> -> tensor<512xf32>
      %s = arith.addf %x, %y : tensor<512xf32>
      %t = arith.addf %acc, %s : tensor<512xf32>
      scf.yield %t : tensor<512xf32>
    }
    tile.store %r, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
}
