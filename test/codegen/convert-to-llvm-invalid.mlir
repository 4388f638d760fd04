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
