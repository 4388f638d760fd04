// RUN: tessel-opt %s -split-input-file -verify-diagnostics --tilegpu-assign-layouts --convert-tilegpu-to-llvm
// And through tesselc, at the DSL source line: compute_out's three products on
// 8 warps (64-row blocks).
// RUN: rm -rf %t && mkdir -p %t && tesselc --emit=ptx --target=sm_90a -D num_warps=8 -D BLOCK_M=64 -o %t compute_out 2>&1 | FileCheck %s --check-prefix=TESSELC
// TESSELC-COUNT-3: tesselc: warning: {{.*}}ComputeOut.cpp:{{[0-9]+}}:{{[0-9]+}}: warpgroup MMA asked for (hint 'wgmma'), but this 64x64x64 mma runs on mma.sync

// A kernel that asks for warpgroup MMAs but has an mma the warpgroup MMA
// cannot take is compiled (with mma.sync for that mma) and warned about at
// the mma, with the reason: here 64 rows on 8 warps, which spreads the warps
// over N (#tilegpu.mma<[4, 2]>) instead of whole warpgroups along M. tesselc
// prints it at the user's source line (codegen::compile collects the
// passes' warnings).
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @eight_warps(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, num_warps = 8}}>} {
    %c0 = arith.constant 0 : i32
    %a = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-warning @below {{warpgroup MMA asked for (hint 'wgmma'), but this 64x64x64 mma runs on mma.sync: its accumulator layout #tilegpu.mma<[4, 2]> is not whole warpgroups along M (a warpgroup MMA takes all the warps along M, a multiple of 4, 16 rows each: with 8 warps M must be a multiple of 128)}}
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not warn: the same mma on 4 warps is one warpgroup MMA; and 128 rows
// on 8 warps are two.
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @four_warps(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %a = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @eight_warps_128(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1, num_warps = 8}}>} {
    %c0 = arith.constant 0 : i32
    %a = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<128x64xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>
    tile.store %s, %c[%c0, %c0] : tensor<128x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Without the hint the fallback is no surprise: no warning.
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @not_asked(%x: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_90a = {num_warps = 8}}>} {
    %c0 = arith.constant 0 : i32
    %a = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %bt = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    tile.store %s, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
