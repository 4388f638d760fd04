// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --convert-tilegpu-to-llvm | FileCheck %s

// tcgen05: a loop-carried accumulator whose only use in the body is the one
// tcgen05 mma there stays in tensor memory across the loop: stored once
// before the loop (16x256b; zeros too, so that every MMA accumulates and a
// loop that runs no iteration leaves its initial value), no tcgen05.st/ld
// inside the loop (which carries the accumulator's stale registers
// unchanged), loaded once after it.
// CHECK-LABEL: llvm.func @loop_acc_zero
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:[^ ]*]] = %{{.*}}
// CHECK-NOT: nvvm.tcgen05.st
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK-NOT: nvvm.tcgen05.wait <store>
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c67634320_i32, %true
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.commit
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK-NOT: nvvm.tcgen05.st
// CHECK: scf.yield %[[A0]],
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NOT: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.dealloc
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @loop_acc_zero(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// An accumulator that enters loaded: the same (stored before the loop,
// loaded after it).
// CHECK-LABEL: llvm.func @loop_acc_loaded
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: scf.for
// CHECK-NOT: nvvm.tcgen05.st
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c67634320_i32, %true
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK: scf.yield
// CHECK: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.dealloc
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @loop_acc_loaded(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = tile.load %c[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Two 64-row blocks (M = 128 on 4 warps): both stored before the loop (at
// columns 0 and N = 32), both loaded after it. In a nest, the inner loop's
// accumulator is resident (stored and loaded once per outer iteration);
// the outer loop's is not (its body has the inner mma and its own).
// CHECK-LABEL: llvm.func @loop_acc_two_blocks
// CHECK: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.st
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: scf.for
// CHECK-NOT: nvvm.tcgen05.st
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.commit
// CHECK-NOT: nvvm.tcgen05.st
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK: scf.yield
// CHECK: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.ld
// CHECK-LABEL: llvm.func @loop_acc_nested
// CHECK: scf.for
// CHECK: nvvm.tcgen05.st
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: scf.for
// CHECK-NOT: nvvm.tcgen05.st
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK: scf.yield
// CHECK: nvvm.tcgen05.ld
// The outer mma moves its accumulator around itself.
// CHECK: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.ld
// CHECK: scf.yield
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @loop_acc_two_blocks(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x32xbf16>, tensor<128x32xf32>
      scf.yield %d : tensor<128x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<128x32xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @loop_acc_nested(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %v: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %zp = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %p = scf.for %k = %c0 to %n step %c1 iter_args(%pacc = %zp) -> (tensor<64x32xf32>) : i32 {
        %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
        %d = tile.mma %x, %yt, %pacc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
        scf.yield %d : tensor<64x32xf32>
      }
      %pb = arith.truncf %p : tensor<64x32xf32> to tensor<64x32xbf16>
      %w = tile.load %v[%j, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %e = tile.mma %pb, %w, %acc {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
      scf.yield %e : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: hint tcgen05_tmem_acc = 0; the accumulator read elsewhere
// in the body (scaled before the mma); a second tcgen05 mma in the body
// (without the hint at 2, see the last cases), although the accumulator's
// mma alone would qualify. Each mma then moves its accumulator
// to tensor memory and back (st, ld inside the loop).
// CHECK-LABEL: llvm.func @loop_acc_hint_off
// CHECK: scf.for
// CHECK: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.ld
// CHECK: scf.yield
// CHECK-LABEL: llvm.func @loop_acc_other_use
// CHECK: scf.for
// CHECK: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.ld
// CHECK: scf.yield
// CHECK-LABEL: llvm.func @loop_acc_two_mmas
// CHECK: scf.for
// CHECK: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.ld
// CHECK: scf.yield
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @loop_acc_hint_off(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_100a = {tcgen05_tmem_acc = 0}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = tile.load %c[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @loop_acc_other_use(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %half = arith.constant dense<0.5> : tensor<64x32xf32>
    %init = tile.load %c[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %s = arith.mulf %acc, %half : tensor<64x32xf32>
      %d = tile.mma %x, %yt, %s {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @loop_acc_two_mmas(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %init = tile.load %c[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %e = tile.mma %x, %yt, %init {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      tile.store %e, %c[%c0, %k] : tensor<64x32xf32>, !tile.view<?x?xf32>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Hint tcgen05_tmem_acc = 2: the outer loop's accumulator stays resident
// although its body has another tcgen05 mma (the inner loop's): it holds
// columns 0-63, stored once before the outer loop and loaded once after it;
// the inner accumulator takes the columns after it (its zeros stored at 64,
// its MMAs' D at 64, loaded from 64), and the outer mma's register A (P)
// goes to 64 too, once the inner result is in registers. 128 columns, as
// without the hint (compute_out's P·x on sm_100a/sm_103a).
// CHECK-LABEL: llvm.func @loop_acc_nested_others
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %c128_i32
// The outer accumulator stored at column 0 (lane base only):
// CHECK: %[[L0:.*]] = arith.shli %{{.*}}, %c16_i32{{.*}} : i32
// CHECK-NEXT: %[[A0:.*]] = arith.addi %{{.*}}, %[[L0]] : i32
// CHECK-NEXT: %[[P0:.*]] = llvm.inttoptr %[[A0]]
// CHECK-NEXT: nvvm.tcgen05.st %[[P0]], %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<32xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: scf.for
// CHECK-NOT: vector<32xi32>
// The inner accumulator's zeros at column 64:
// CHECK: %[[Z:.*]] = arith.addi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK-NEXT: %[[ZP:.*]] = llvm.inttoptr %[[Z]]
// CHECK-NEXT: nvvm.tcgen05.st %[[ZP]], %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK: scf.for
// CHECK-NOT: vector<32xi32>
// CHECK: %[[D:.*]] = arith.addi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK-NEXT: %[[DP:.*]] = llvm.inttoptr %[[D]]
// CHECK: nvvm.tcgen05.mma %[[DP]],
// CHECK: scf.yield
// CHECK-NOT: vector<32xi32>
// The inner result loaded from column 64, P stored there:
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK-NEXT: %[[RP:.*]] = llvm.inttoptr %[[R]]
// CHECK-NEXT: nvvm.tcgen05.ld %[[RP]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK-NOT: vector<32xi32>
// CHECK: %[[PA:.*]] = arith.addi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK-NEXT: %[[PAP:.*]] = llvm.inttoptr %[[PA]]
// CHECK-NEXT: nvvm.tcgen05.st %[[PAP]], %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x128b>} : vector<8xi32>
// The outer mma: D at column 0 (the base address itself), A at 64.
// CHECK: %[[OB:.*]] = llvm.ptrtoint
// CHECK-NEXT: %[[OD:.*]] = llvm.inttoptr %[[OB]]
// CHECK-NEXT: %[[OB2:.*]] = llvm.ptrtoint
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[OA:.*]] = arith.addi %[[OB2]], %[[C64]] : i32
// CHECK-NEXT: %[[OAP:.*]] = llvm.inttoptr %[[OA]]
// CHECK: nvvm.tcgen05.mma %[[OD]], %[[OAP]],
// CHECK-NOT: vector<32xi32>
// CHECK: scf.yield
// The outer accumulator loaded once after the loop, from column 0:
// CHECK: %[[LE:.*]] = arith.shli %{{.*}}, %c16_i32{{.*}} : i32
// CHECK-NEXT: %[[AE:.*]] = arith.addi %{{.*}}, %[[LE]] : i32
// CHECK-NEXT: %[[PE:.*]] = llvm.inttoptr %[[AE]]
// CHECK-NEXT: nvvm.tcgen05.ld %[[PE]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<32xi32>
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @loop_acc_nested_others(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %v: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_100a = {tcgen05_tmem_acc = 2}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %zp = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %p = scf.for %k = %c0 to %n step %c1 iter_args(%pacc = %zp) -> (tensor<64x32xf32>) : i32 {
        %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
        %d = tile.mma %x, %yt, %pacc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
        scf.yield %d : tensor<64x32xf32>
      }
      %pb = arith.truncf %p : tensor<64x32xf32> to tensor<64x32xbf16>
      %w = tile.load %v[%j, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %e = tile.mma %pb, %w, %acc {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
      scf.yield %e : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The same with the other mma directly in the body (not resident: C·Bᵀ
// unrolled over n, compute_out's N_MAX = 64): its D also at column 64.
// CHECK-LABEL: llvm.func @loop_acc_others_in_body
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %c128_i32
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<32xi32>
// CHECK: scf.for
// CHECK-NOT: vector<32xi32>
// CHECK: %[[D:.*]] = arith.addi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK-NEXT: %[[DP:.*]] = llvm.inttoptr %[[D]]
// CHECK: nvvm.tcgen05.mma %[[DP]],
// CHECK-NOT: vector<32xi32>
// CHECK: nvvm.tcgen05.commit
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK-NEXT: %[[RP:.*]] = llvm.inttoptr %[[R]]
// CHECK-NEXT: nvvm.tcgen05.ld %[[RP]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK-NOT: vector<32xi32>
// CHECK: %[[PA:.*]] = arith.addi %{{.*}}, %c64_i32{{.*}} : i32
// CHECK-NEXT: %[[PAP:.*]] = llvm.inttoptr %[[PA]]
// CHECK-NEXT: nvvm.tcgen05.st %[[PAP]], %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x128b>} : vector<8xi32>
// CHECK-NOT: vector<32xi32>
// CHECK: scf.yield
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<32xi32>
module attributes {tilegpu.target = "sm_100a", tilegpu.tma_available, tilegpu.tcgen05_available} {
  func.func @loop_acc_others_in_body(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %v: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_100a = {tcgen05_tmem_acc = 2}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %zp = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%j, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %p = tile.mma %x, %yt, %zp {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      %pb = arith.truncf %p : tensor<64x32xf32> to tensor<64x32xbf16>
      %w = tile.load %v[%j, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %e = tile.mma %pb, %w, %acc {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
      scf.yield %e : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
