// The thread's parity bits of 32 mbarriers share a register (bit i mod 32 of
// word i / 32), and a ring's mbarriers never straddle two words (its
// buffer's bit is a shift by the stage): eleven loops in a row, each with a
// ring of three buffers (two loads issued two iterations ahead, one
// mbarrier per buffer): the first ten take mbarriers 0-29, the eleventh
// would take 30-32 and starts at 32 instead (35 in all, not 33), its bits in
// a second register.
// RUN: tessel-opt %s --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s
// CHECK: llvm.mlir.global internal @tessel_mbar() {{.*}} : !llvm.array<35 x i64>
// CHECK-LABEL: llvm.func @eleven_rings
// Two parity words (two allocas of one i32, zeroed; each created at the
// top of the entry block, so the second word's comes first), the second
// read by the eleventh loop's waits only:
// CHECK: %[[W1:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[W0:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NOT: llvm.alloca
// CHECK-NOT: llvm.load %[[W1]]
// CHECK-COUNT-10: scf.for
// CHECK-NOT: llvm.load %[[W1]]
// CHECK: scf.for
// CHECK-NOT: llvm.load %[[W0]]
// CHECK: llvm.load %[[W1]]
// CHECK-NOT: llvm.load %[[W0]]
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @eleven_rings(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r0 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r1 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r0) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r1) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r2) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r4 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r3) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r5 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r4) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r6 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r5) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r7 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r6) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r8 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r7) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r9 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r8) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %r10 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r9) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%k, %c0] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r10, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
