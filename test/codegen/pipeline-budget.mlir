// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// tilegpu-schedule-loads lays out the rings as the lowering allocates them,
// so the lowering never rejects what it scheduled (it errors on rings that
// do not fit: pipeline-invalid.mlir).

// A loop-invariant TMA operand's buffer in one branch dies with the branch:
// the other branch's loop has the whole budget. Its latency-10 TMA load
// gets 9 iterations (10 x 16384 bytes = 163840, all of it); the lowering
// agrees.
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 163840 : i64
// CHECK-LABEL: llvm.func @branch_buffers
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @branch_buffers(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %p: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128x64xf32>
    scf.if %p {
      %w = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32>) : i32 {
        %x = tile.load %a[%k, %c0] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x64xbf16>
        %d = tile.mma %x, %w, %acc {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>
        scf.yield %d : tensor<128x64xf32>
      }
      tile.store %r, %c[%c0, %c0] : tensor<128x64xf32>, !tile.view<?x?xf32>
    } else {
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128x64xf32>) : i32 {
        %x = tile.load %a[%k, %c0] {latency = 10 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<128x64xbf16>
        %y = tile.load %b[%k, %c0] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>
        scf.yield %d : tensor<128x64xf32>
      }
      tile.store %r, %c[%c0, %c0] : tensor<128x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Alignment: an outer loop's cp.async rings end off a 1024-byte boundary
// (2560 + 6144 bytes), so its TMA ring starts 512 bytes further on; the
// inner loop's rings count from there (the pass's offsets are the
// lowering's, or further).
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 162816 : i64
// CHECK-LABEL: llvm.func @aligned_rings
!V = !tile.view<?x?xbf16, align = 16, unit_stride>
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @aligned_rings(%a: !V, %b: !V, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %z2 = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      %q = tile.load %b[%k, %c0] {allow_tma = false} : !V -> tensor<16x32xbf16>
      %p = tile.load %a[%c0, %k] {allow_tma = false} : !V -> tensor<64x16xbf16>
      %t = tile.load %a[%k, %c0] : !V -> tensor<64x64xbf16>
      %s = tile.load %b[%c0, %k] {allow_tma = false} : !V -> tensor<64x32xbf16>
      %d1 = tile.mma %p, %q, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      %d2 = tile.mma %t, %s, %d1 {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
      %e = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %d2) -> (tensor<64x32xf32>) : i32 {
        %u1 = tile.load %a[%j, %k] {allow_tma = false, latency = 6 : i64} : !V -> tensor<64x128xbf16>
        %u2 = tile.load %b[%j, %k] {allow_tma = false, latency = 10 : i64} : !V -> tensor<16x32xbf16>
        %v = tile.load %b[%k, %j] {allow_tma = false} : !V -> tensor<128x32xbf16>
        %w = tile.load %a[%k, %j] {allow_tma = false} : !V -> tensor<64x16xbf16>
        %f1 = tile.mma %u1, %v, %acc2 {precision = #tile<precision bf16>} : tensor<64x128xbf16>, tensor<128x32xbf16>, tensor<64x32xf32>
        %f2 = tile.mma %w, %u2, %f1 {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
        scf.yield %f2 : tensor<64x32xf32>
      }
      scf.yield %e : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}
