// The persistent program loop is not pipelined across programs; the loops
// inside it are pipelined as before (their rings restart per program), and
// the lowering exports the table that tells the runtime the kernel is
// persistent.
// RUN: tessel-opt %s --tilegpu-persistent-grid --tilegpu-assign-latencies=remarks=true -verify-diagnostics | FileCheck %s
// RUN: tessel-opt %s --tilegpu-persistent-grid --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-pipeline --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @gemm
// CHECK: tile.load {{.*}} : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
// CHECK-NOT: tilegpu.latency
// CHECK: scf.for
// CHECK: tile.load {{.*}} {tilegpu.latency = 1 : i64}
// CHECK: tile.load {{.*}} {tilegpu.latency = 1 : i64}
// CHECK: } {tilegpu.program_loop}

// LLVM: llvm.func @gemm(
// LLVM-SAME: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// LLVM: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// LLVM: nvvm.read.ptx.sreg.ctaid.x
// LLVM: nvvm.read.ptx.sreg.nctaid.x
// Each program reads the thread index and the parameters afresh (opaque
// moves LLVM cannot hoist), so that nothing derived from them is held in
// registers across programs:
// LLVM: scf.for
// LLVM-NEXT: llvm.inline_asm has_side_effects "", "=r,0" %[[TID]] : (i32) -> i32
// LLVM: llvm.inline_asm has_side_effects "", "=l,0" %{{.*}} : (i64) -> i64
// LLVM: llvm.mlir.global external constant @tessel_grid_gemm(dense<1> : tensor<2xi32>)
module attributes {tilegpu.target = "sm_90a"} {
  func.func @gemm(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {persistent = 1, num_warps = 4}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %j = tile.program_id 1
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    // expected-remark @below {{no latency: the loop is the persistent program loop (not pipelined across programs)}}
    %w = tile.load %a[%i, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    // expected-remark @below {{no latency: the loop is the persistent program loop (not pipelined across programs)}}
    %v = tile.load %b[%c0, %j] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %z2 = tile.mma %w, %v, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z2) -> (tensor<64x32xf32>) : i32 {
      // expected-remark @below {{latency 1 (the default)}}
      %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      // expected-remark @below {{latency 1 (the default)}}
      %y = tile.load %b[%k, %j] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%i, %j] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}
