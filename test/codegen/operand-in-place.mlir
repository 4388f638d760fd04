// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma=remarks=true -verify-diagnostics -o /dev/null
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// Hint operand_in_place: a wgmma B computed in registers from a loop's load
// (E + s R, rounded to bf16; R loaded from global memory) takes E's TMA
// copy's ring buffer. E is copied swizzled as an mma operand (box 64 x 64:
// the tensor map's 128-byte panel), read where it stands (after its
// mbarrier, four 16-byte ld.shared per thread), and the computed operand is
// written back into the same buffer (four 16-byte st.shared at the
// swizzled places), then one proxy fence and barrier before the wgmma,
// which waits for its group before the next refill. The rings are the
// only shared memory: 2 x (8 + 8) KB dynamic, no scratch buffer.
// CHECK-LABEL: module attributes {tilegpu.dynamic_shared_bytes = 32768 : i64
// CHECK-NOT: @tessel_smem
// CHECK-LABEL: llvm.func @in_place(
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK: math.fma
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.yield
// CHECK: llvm.mlir.global external constant @tessel_tma_in_place(dense<[2, 2, 1, 2, 128, 64, 64,
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @in_place(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %e: !tile.view<?x?xbf16, align = 16, unit_stride>, %r: !tile.view<?x?xbf16, align = 16, unit_stride>, %s: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : i64, route_mma_operands = 0 : i64}, sm_90a = {operand_in_place = 1 : i64, wgmma = 1 : i64}}>} {
    %i = tile.program_id 0
    %j = tile.program_id 1
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-remark @below {{not copied by the TMA}}
    %s1 = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<1xf32>
    %s2 = tile.reshape %s1 : tensor<1xf32> -> tensor<1x1xf32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %out = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{copied by the TMA}}
      %et = tile.load %e[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{not copied by the TMA: the load says allow_tma = false}}
      %rt = tile.load %r[%j, %k] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %rf = arith.extf %rt : tensor<64x64xbf16> to tensor<64x64xf32>
      %ef = arith.extf %et : tensor<64x64xbf16> to tensor<64x64xf32>
      %sb = tile.broadcast %s2 : tensor<1x1xf32> -> tensor<64x64xf32>
      %f = math.fma %rf, %sb, %ef : tensor<64x64xf32>
      %bt = arith.truncf %f : tensor<64x64xf32> to tensor<64x64xbf16>
      // expected-remark @below {{copied by the TMA}}
      %at = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %b = tile.permute %bt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %next = tile.mma %at, %b, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    tile.store %out, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Where it must not fire: without the hint (E is loaded from global memory
// and the operand staged in the scratch buffer, 8 KB); the computed tile in
// A's slot; the loaded tile used for more than the operand.
// CHECK-LABEL: module attributes {tilegpu.dynamic_shared_bytes = 16384 : i64, tilegpu.shared_bytes = 8192 : i64
// CHECK-LABEL: llvm.func @no_hint(
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @no_hint(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %e: !tile.view<?x?xbf16, align = 16, unit_stride>, %r: !tile.view<?x?xbf16, align = 16, unit_stride>, %s: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : i64, route_mma_operands = 0 : i64}, sm_90a = {wgmma = 1 : i64}}>} {
    %i = tile.program_id 0
    %j = tile.program_id 1
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-remark @below {{not copied by the TMA}}
    %s1 = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<1xf32>
    %s2 = tile.reshape %s1 : tensor<1xf32> -> tensor<1x1xf32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %out = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand loaded where it is used, a loop-invariant one, one read as mma fragments, one a loop issues ahead into registers (hint tma_register_loads), or one an mma operand is computed from (hint operand_in_place)}}
      %et = tile.load %e[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{not copied by the TMA: the load says allow_tma = false}}
      %rt = tile.load %r[%j, %k] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %rf = arith.extf %rt : tensor<64x64xbf16> to tensor<64x64xf32>
      %ef = arith.extf %et : tensor<64x64xbf16> to tensor<64x64xf32>
      %sb = tile.broadcast %s2 : tensor<1x1xf32> -> tensor<64x64xf32>
      %f = math.fma %rf, %sb, %ef : tensor<64x64xf32>
      %bt = arith.truncf %f : tensor<64x64xf32> to tensor<64x64xbf16>
      // expected-remark @below {{copied by the TMA}}
      %at = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %b = tile.permute %bt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %next = tile.mma %at, %b, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    tile.store %out, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @as_a(
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @as_a(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %e: !tile.view<?x?xbf16, align = 16, unit_stride>, %r: !tile.view<?x?xbf16, align = 16, unit_stride>, %s: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : i64, route_mma_operands = 0 : i64}, sm_90a = {operand_in_place = 1 : i64, wgmma = 1 : i64}}>} {
    %i = tile.program_id 0
    %j = tile.program_id 1
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-remark @below {{not copied by the TMA}}
    %s1 = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<1xf32>
    %s2 = tile.reshape %s1 : tensor<1xf32> -> tensor<1x1xf32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %out = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand loaded where it is used, a loop-invariant one, one read as mma fragments, one a loop issues ahead into registers (hint tma_register_loads), or one an mma operand is computed from (hint operand_in_place)}}
      %et = tile.load %e[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{not copied by the TMA: the load says allow_tma = false}}
      %rt = tile.load %r[%j, %k] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %rf = arith.extf %rt : tensor<64x64xbf16> to tensor<64x64xf32>
      %ef = arith.extf %et : tensor<64x64xbf16> to tensor<64x64xf32>
      %sb = tile.broadcast %s2 : tensor<1x1xf32> -> tensor<64x64xf32>
      %f = math.fma %rf, %sb, %ef : tensor<64x64xf32>
      %bt = arith.truncf %f : tensor<64x64xf32> to tensor<64x64xbf16>
      // expected-remark @below {{copied by the TMA}}
      %at = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %b = tile.permute %bt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %next = tile.mma %b, %at, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    tile.store %out, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @twice(
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @twice(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %e: !tile.view<?x?xbf16, align = 16, unit_stride>, %r: !tile.view<?x?xbf16, align = 16, unit_stride>, %s: !tile.view<?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : i64, route_mma_operands = 0 : i64}, sm_90a = {operand_in_place = 1 : i64, wgmma = 1 : i64}}>} {
    %i = tile.program_id 0
    %j = tile.program_id 1
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-remark @below {{not copied by the TMA}}
    %s1 = tile.load %s[%c0] : !tile.view<?xf32> -> tensor<1xf32>
    %s2 = tile.reshape %s1 : tensor<1xf32> -> tensor<1x1xf32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %out = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      // expected-remark @below {{not copied by the TMA: the tile is not only an mma operand loaded where it is used, a loop-invariant one, one read as mma fragments, one a loop issues ahead into registers (hint tma_register_loads), or one an mma operand is computed from (hint operand_in_place)}}
      %et = tile.load %e[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{not copied by the TMA: the load says allow_tma = false}}
      %rt = tile.load %r[%j, %k] {allow_tma = false} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %rf = arith.extf %rt : tensor<64x64xbf16> to tensor<64x64xf32>
      %ef = arith.extf %et : tensor<64x64xbf16> to tensor<64x64xf32>
      %sb = tile.broadcast %s2 : tensor<1x1xf32> -> tensor<64x64xf32>
      %f = math.fma %rf, %sb, %ef : tensor<64x64xf32>
      %bt = arith.truncf %f : tensor<64x64xf32> to tensor<64x64xbf16>
      // expected-remark @below {{copied by the TMA}}
      %at = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %b = tile.permute %bt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %m = tile.mma %at, %b, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      %next = arith.addf %m, %ef : tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    tile.store %out, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
