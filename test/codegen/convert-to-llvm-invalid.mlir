// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm -verify-diagnostics

// What the lowering cannot do yet is an error, not a crash.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @small_mma(%a: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<8x16xbf16>
    %y = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x8xbf16>
    %z = arith.constant dense<0.0> : tensor<8x8xf32>
    // expected-error @below {{cannot be lowered to the GPU yet: the mma.sync path needs M % 16 == 0}}
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<8x16xbf16>, tensor<16x8xbf16>, tensor<8x8xf32>
    tile.store %d, %c[%c0, %c0] : tensor<8x8xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A kernel without a body (found by running the no-crash fuzzer's inputs
// through the lowering: it crashed).
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{a kernel without a body cannot be lowered}}
  func.func private @declaration(%x: i32)
}

// -----

// A view carried by a loop: views reach the GPU only as parameters (this
// crashed the lowering).
module attributes {tilegpu.target = "sm_90a"} {
  func.func @carried_view(%v0: !tile.view<?x?xf32>, %o: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-error @below {{carries a view: views can only be the kernel's arguments, used where they are (index them instead)}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %v0) -> (!tile.view<?x?xf32>) : i32 {
      %x = tile.load %v[%i, %c0] : !tile.view<?x?xf32> -> tensor<16x32xf32>
      tile.store %x, %o[%i, %c0] : tensor<16x32xf32>, !tile.view<?x?xf32>
      scf.yield %v : !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// A prefetch is one instruction per cache line, unrolled: a box of more lines
// than 64 per thread (here 4096 x 4096 elements of a strided view on 4 warps:
// one line each) is refused at the op, not compiled for minutes.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @huge_prefetch(%x: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    // expected-error @below {{box covers more than 8192 cache lines (64 per thread of the 4-warp program, each a prefetch instruction): prefetch it in smaller boxes}}
    tile.prefetch %x[%c0, %c0] {box = array<i64: 4096, 4096>} : !tile.view<?x?xf32>
    return
  }
}

// -----

// Extents whose product overflows 64 bits are refused the same way.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @overflowing_prefetch(%x: !tile.view<?x?x?xbf16, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    // expected-error @below {{box covers more than 8192 cache lines}}
    tile.prefetch %x[%c0, %c0, %c0] {box = array<i64: 4611686018427387904, 4611686018427387904, 64>} : !tile.view<?x?x?xbf16, align = 16, unit_stride>
    return
  }
}
