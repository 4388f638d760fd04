// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s

// With the hint refresh_in_loops, each iteration of a loop reads the thread
// index and the kernel's parameters afresh (opaque moves LLVM cannot hoist),
// so that what derives from them is recomputed per iteration.
// CHECK-LABEL: llvm.func @refreshed
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: scf.for
// CHECK-NEXT: llvm.inline_asm has_side_effects "", "=r,0" %[[TID]] : (i32) -> i32
// CHECK: llvm.inline_asm has_side_effects "", "=l,0"
module attributes {tilegpu.target = "sm_90a"} {
  func.func @refreshed(%x: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {refresh_in_loops = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %t = tile.load %x[%k, %c0] : !tile.view<?x?xf32> -> tensor<16x32xf32>
      tile.store %t, %x[%c0, %k] : tensor<16x32xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Without it (or on another target), nothing is re-read.
// CHECK-LABEL: llvm.func @plain
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @plain(%x: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_100a = {refresh_in_loops = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %t = tile.load %x[%k, %c0] : !tile.view<?x?xf32> -> tensor<16x32xf32>
      tile.store %t, %x[%c0, %k] : tensor<16x32xf32>, !tile.view<?x?xf32>
    }
    return
  }
}
