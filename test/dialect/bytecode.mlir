// RUN: tessel-opt %s --emit-bytecode | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --verify-roundtrip | FileCheck %s

// Every op, the view type, the enum and hints attributes survive MLIR bytecode
// (the form tesselc caches kernels in) and the parser's own round-trip check
// (custom form, generic form and bytecode must all re-parse to the same IR).

// CHECK-LABEL: func.func @everything
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x?xbf16, align = 16, unit_stride> {tile.name = "x"}, %[[Y:.*]]: !tile.view<?x64xf32>, %[[N:.*]]: i32)
// CHECK-SAME: attributes {tile.config = {BLOCK = 64 : i64}, tile.hints = #tile.hints<{default = {num_warps = 4 : i64}, sm_90a = {cluster = array<i64: 2>, num_warps = 8 : i64}}>}
func.func @everything(%x: !tile.view<?x?xbf16, align = 16, unit_stride> {tile.name = "x"}, %y: !tile.view<?x64xf32>, %n: i32)
    attributes {tile.config = {BLOCK = 64}, tile.hints = #tile.hints<{default = {num_warps = 4}, sm_90a = {num_warps = 8, cluster = array<i64: 2>}}>} {
  // CHECK: %[[P:.*]] = tile.program_id 0
  // CHECK: %[[G:.*]] = tile.num_programs 1
  // CHECK: %[[D:.*]] = tile.dim %[[Y]], 1 : !tile.view<?x64xf32>
  %p = tile.program_id 0
  %g = tile.num_programs 1
  %d = tile.dim %y, 1 : !tile.view<?x64xf32>
  // CHECK: %[[A:.*]] = tile.load %[[X]][%[[P]], %[[N]]] {allow_tma = false, latency = 4 : i64, padding = #tile<padding nan>} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x32xbf16>
  %a = tile.load %x[%p, %n] {padding = #tile<padding nan>, latency = 4, allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x32xbf16>
  // CHECK: %[[AT:.*]] = tile.permute %[[A]] [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %at = tile.permute %a [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  // CHECK: %[[M:.*]] = tile.mma %[[A]], %[[AT]], %{{.*}} {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
  %m = tile.mma %a, %at, %zero {precision = #tile<precision bf16>} : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32>
  // CHECK: %[[S:.*]] = tile.cumsum %[[M]] {axis = 1 : i64, reverse = true} : tensor<64x64xf32>
  %s = tile.cumsum %m {axis = 1 : i64, reverse = true} : tensor<64x64xf32>
  // CHECK: %[[R:.*]] = tile.reduce max %[[S]] {axis = 0 : i64} : tensor<64x64xf32> -> tensor<64xf32>
  %r = tile.reduce max %s {axis = 0 : i64} : tensor<64x64xf32> -> tensor<64xf32>
  // CHECK: %[[B:.*]] = tile.broadcast %[[R]] : tensor<64xf32> -> tensor<2x64xf32>
  %b = tile.broadcast %r : tensor<64xf32> -> tensor<2x64xf32>
  // CHECK: %[[RS:.*]] = tile.reshape %[[B]] : tensor<2x64xf32> -> tensor<128xf32>
  %rs = tile.reshape %b : tensor<2x64xf32> -> tensor<128xf32>
  // CHECK: tile.iota {axis = 0 : i64} : tensor<128xi16>
  %i = tile.iota {axis = 0 : i64} : tensor<128xi16>
  // CHECK: tile.store %[[S]], %[[Y]][%[[P]], %[[G]]] {latency = 1 : i64} : tensor<64x64xf32>, !tile.view<?x64xf32>
  tile.store %s, %y[%p, %g] {latency = 1} : tensor<64x64xf32>, !tile.view<?x64xf32>
  return
}
