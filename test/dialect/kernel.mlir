// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s
// RUN: tessel-opt %s -canonicalize -cse | FileCheck %s --check-prefix=CANON

// A whole kernel as the DSL traces it: the Mamba-2 chunk-state computation of
// one (batch, chunk, head) program,
//   states[b, c, h] = x[b, chunk c, h]^T . (decay * B[b, chunk c]),
// with named parameters, per-target hints and a squeeze on every access.

// CHECK-LABEL: func.func @chunk_state
// CHECK-SAME: %[[X:[^:]*]]: !tile.view<?x?x?x?xbf16, align = 16, unit_stride> {tile.name = "x"}
// CHECK-SAME: %[[B:[^:]*]]: !tile.view<?x?x?xbf16, align = 16, unit_stride> {tile.name = "B"}
// CHECK-SAME: %[[DA:[^:]*]]: !tile.view<?x?x?xf32> {tile.name = "dA_cumsum"}
// CHECK-SAME: %[[S:[^:]*]]: !tile.view<?x?x?x?x?xf32, align = 16> {tile.name = "states"}
// CHECK-SAME: attributes {tile.config = {CHUNK = 64 : i64}, tile.hints = #tile.hints<{default = {num_warps = 4 : i64}, sm_100a = {num_warps = 8 : i64}, sm_90a = {num_stages = 2 : i64, num_warps = 8 : i64}}>}
// CANON-LABEL: func.func @chunk_state
func.func @chunk_state(
    %x: !tile.view<?x?x?x?xbf16, align = 16, unit_stride> {tile.name = "x"},
    %bm: !tile.view<?x?x?xbf16, align = 16, unit_stride> {tile.name = "B"},
    %da: !tile.view<?x?x?xf32> {tile.name = "dA_cumsum"},
    %states: !tile.view<?x?x?x?x?xf32, align = 16> {tile.name = "states"})
    attributes {tile.config = {CHUNK = 64},
                tile.hints = #tile.hints<{default = {num_warps = 4},
                                          sm_90a = {num_warps = 8, num_stages = 2},
                                          sm_100a = {num_warps = 8}}>} {
  // CHECK: %[[BATCH:.*]] = tile.program_id 0
  // CHECK: %[[CHUNK:.*]] = tile.program_id 1
  // CHECK: %[[HEAD:.*]] = tile.program_id 2
  %b = tile.program_id 0
  %c = tile.program_id 1
  %h = tile.program_id 2
  %c0 = arith.constant 0 : i32
  // x[b, c*64:(c+1)*64, h, :] as a 64x64 tile (head dim 64).
  // CHECK: %[[XT:.*]] = tile.load %[[X]][%[[BATCH]], %[[CHUNK]], %[[HEAD]], %{{.*}}] {squeeze = array<i64: 0, 2>} : !tile.view<?x?x?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
  %xt = tile.load %x[%b, %c, %h, %c0] {squeeze = array<i64: 0, 2>} : !tile.view<?x?x?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
  // CHECK: %[[BT:.*]] = tile.load %[[B]][%[[BATCH]], %[[CHUNK]], %{{.*}}] {squeeze = array<i64: 0>} : !tile.view<?x?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
  %bt = tile.load %bm[%b, %c, %c0] {squeeze = array<i64: 0>} : !tile.view<?x?x?xbf16, align = 16, unit_stride> -> tensor<64x128xbf16>
  // dA_cumsum[b, h, chunk]: 64 values, padded with zeros past the sequence end.
  // CHECK: %[[DAT:.*]] = tile.load %[[DA]][%[[BATCH]], %[[HEAD]], %[[CHUNK]]] {squeeze = array<i64: 0, 1>} : !tile.view<?x?x?xf32> -> tensor<64xf32>
  %dat = tile.load %da[%b, %h, %c] {squeeze = array<i64: 0, 1>} : !tile.view<?x?x?xf32> -> tensor<64xf32>
  // decay = exp2(dA[last] - dA); dA <= 0, so the last cumsum is the minimum.
  // CHECK: %[[LAST:.*]] = tile.reduce min %[[DAT]] {axis = 0 : i64} : tensor<64xf32> -> tensor<f32>
  // CHECK: %[[LASTB:.*]] = tile.broadcast %[[LAST]] : tensor<f32> -> tensor<64xf32>
  %last = tile.reduce min %dat {axis = 0 : i64} : tensor<64xf32> -> tensor<f32>
  %lastb = tile.broadcast %last : tensor<f32> -> tensor<64xf32>
  %diff = arith.subf %lastb, %dat : tensor<64xf32>
  %decay = math.exp2 %diff : tensor<64xf32>
  // Scale row l of the 64x128 B tile by decay[l].
  // CHECK: %[[DCOL:.*]] = tile.reshape %{{.*}} : tensor<64xf32> -> tensor<64x1xf32>
  // CHECK: %[[DB:.*]] = tile.broadcast %[[DCOL]] : tensor<64x1xf32> -> tensor<64x128xf32>
  %dcol = tile.reshape %decay : tensor<64xf32> -> tensor<64x1xf32>
  %db = tile.broadcast %dcol : tensor<64x1xf32> -> tensor<64x128xf32>
  %bf = arith.extf %bt : tensor<64x128xbf16> to tensor<64x128xf32>
  %scaled = arith.mulf %bf, %db : tensor<64x128xf32>
  %sb = arith.truncf %scaled : tensor<64x128xf32> to tensor<64x128xbf16>
  // states = x^T (64 x 64) . scaled (64 x 128).
  // CHECK: %[[XTT:.*]] = tile.permute %[[XT]] [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  // CHECK: %[[ST:.*]] = tile.mma %[[XTT]], %{{.*}}, %{{.*}} {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
  // CHECK: tile.store %[[ST]], %[[S]][%[[BATCH]], %[[CHUNK]], %[[HEAD]], %{{.*}}, %{{.*}}] {squeeze = array<i64: 0, 1, 2>} : tensor<64x128xf32>, !tile.view<?x?x?x?x?xf32, align = 16>
  %xtt = tile.permute %xt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %st = tile.mma %xtt, %sb, %zero {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
  tile.store %st, %states[%b, %c, %h, %c0, %c0] {squeeze = array<i64: 0, 1, 2>} : tensor<64x128xf32>, !tile.view<?x?x?x?x?xf32, align = 16>
  // Canonicalization keeps every memory access and the product: nothing here folds.
  // CANON-COUNT-3: tile.load
  // CANON: tile.reduce min
  // CANON: tile.permute
  // CANON: tile.mma
  // CANON: tile.store
  return
}
