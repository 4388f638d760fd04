// RUN: tessel-opt %s -split-input-file -verify-diagnostics --tilegpu-assign-layouts --convert-tilegpu-to-llvm

// A tilegpu.tma mark the rules do not allow (here hand-written: the view
// promises no alignment) is rejected, not lowered to a bad copy.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @bad_load(%a: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tilegpu.tma' on a load the TMA cannot copy: the view does not promise unit stride and 16-byte alignment}}
    %x = tile.load %a[%c0, %c0] {tilegpu.tma} : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.mma %x, %x, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// On a target without the TMA.
module attributes {tilegpu.target = "sm_80"} {
  func.func @no_tma(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xbf16, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    // expected-error @below {{'tilegpu.tma' on a store the TMA cannot copy: the target has no TMA}}
    tile.store %x, %c[%c0, %c0] {tma = true, tilegpu.tma} : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    return
  }
}

// -----

// A hand-written tilegpu.multicast the rules do not allow: the tile differs
// between the cluster's CTAs (indexed by program_id(0), the cluster along
// x); and one naming more CTAs than the cluster has.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @bad_multicast(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 2>, multicast = 1}}>} {
    %c0 = arith.constant 0 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tilegpu.multicast' on a load the cluster's CTAs may not share: an index may differ between the cluster's CTAs}}
    %x = tile.load %a[%i, %c0] {tilegpu.tma, tilegpu.multicast = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %d = tile.mma %x, %x, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @multicast_count(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {cluster = array<i64: 2>, multicast = 1}}>} {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tilegpu.multicast' names 4 CTAs; the kernel's cluster has 2}}
    %x = tile.load %a[%c0, %c0] {tilegpu.tma, tilegpu.multicast = 4 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %d = tile.mma %x, %x, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %d, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
