// RUN: tessel-opt %s --tilegpu-assign-layouts --convert-tilegpu-to-llvm -verify-diagnostics

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
