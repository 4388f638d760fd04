// RUN: tessel-opt %s --tile-route-mma-operands=remarks=true 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: tessel-opt %s --tilegpu-assign-layouts --tile-route-mma-operands=remarks=true 2>&1 | FileCheck %s --check-prefix=LAID

// The routing is a tile-level rewrite: on the traced kernel it fires; once
// the tiles have layouts (after tilegpu-assign-layouts) it must not (the
// layouts were chosen for the unrouted form).
// TILE: remark: routed: the operand computed in registers moves to the A slot
// TILE: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// LAID: remark: not routed: the tiles already have layouts
// LAID-NOT: remark: routed
module attributes {tilegpu.target = "sm_90a"} {
  func.func @laid_out(%v: !tile.view<?x?xbf16>, %o: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b2 = arith.addf %b, %b : tensor<64x64xbf16>
    %bt = tile.permute %b2 [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %m = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %mt = tile.permute %m [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
    tile.store %mt, %o[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
