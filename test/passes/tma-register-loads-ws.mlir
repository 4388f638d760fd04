// RUN: tessel-opt %s --tilegpu-assign-layouts --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null

// tma_register_loads applies in warp-specialised kernels too: their
// consumers fill such rings themselves (the producer fills those of mma
// operands and fragment loads; test kernel test_ws_scaled_t_bf16).
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @ws(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %y: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {tma_register_loads = 1, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<4x128xf32>
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<4x128xf32>) : i32 {
      // expected-remark @below {{copied by the TMA}}
      %t = tile.load %a[%k, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<4x128xf32>
      %next = arith.addf %acc, %t : tensor<4x128xf32>
      scf.yield %next : tensor<4x128xf32>
    }
    tile.store %s, %y[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
    return
  }
}
