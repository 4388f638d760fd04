// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// Loads that only feed an mma, indexed by the induction variable, are copied
// one iteration ahead: the first iteration's copies (cp.async, 16 bytes)
// before the loop; in the loop a barrier (the buffer about to be refilled was
// read the iteration before), the next iteration's copies, a commit, then the
// mma waits for all groups but that newest one. Two buffers per load in
// dynamic shared memory: (64 x (16 + 8) + 16 x (32 + 8)) x 2 B, twice.
// CHECK: module attributes {tilegpu.dynamic_shared_bytes = 8704 : i64
// CHECK: llvm.mlir.global external @tessel_dsmem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @pipelined
// CHECK: nvvm.cp.async.shared.global {{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: scf.for
// CHECK: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global {{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async.wait.group 0
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
module attributes {tilegpu.target = "sm_90a"} {
  func.func @pipelined(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must not fire: the loop writes the view (a copy one iteration early would
// read before the write), and the other operand's index comes from a value
// the loop carries. Both operands are copied where the mma stands, and it
// waits for everything; no dynamic shared memory.
// CHECK-NOT: tilegpu.dynamic_shared_bytes
// CHECK-NOT: tessel_dsmem
// CHECK-LABEL: llvm.func @not_pipelined
// CHECK: scf.for
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NOT: nvvm.cp.async.wait.group 1
module attributes {tilegpu.target = "sm_90a"} {
  func.func @not_pipelined(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %j = %c0) -> (tensor<64x32xf32>, i32) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %y = tile.load %b[%j, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      %w = arith.truncf %d : tensor<64x32xf32> to tensor<64x32xbf16>
      tile.store %w, %a[%c1, %k] : tensor<64x32xbf16>, !tile.view<?x?xbf16>
      %j2 = arith.addi %j, %c1 : i32
      scf.yield %d, %j2 : tensor<64x32xf32>, i32
    }
    tile.store %r#0, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Two pipelined loops in a row: the second one's buffers start where the
// first one's did, so a barrier separates the first loop's last reads from
// the second loop's first copy.
// CHECK-LABEL: llvm.func @two_loops
// CHECK: scf.for
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global
// CHECK: scf.for
module attributes {tilegpu.target = "sm_90a"} {
  func.func @two_loops(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    %r2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x32xf32>) : i32 {
      %x = tile.load %a[%c1, %k] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %y = tile.load %b[%k, %c1] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r2, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// With the prefetch_registers hint, a load whose tile lands in registers
// (not an mma operand) and whose index follows the induction variable is
// issued one iteration ahead: once before the loop (when it runs), then at
// the top of each iteration for the next one (when there is one); the loop
// carries its registers (4 f32 per thread here) and the body computes on
// the carried ones.
// CHECK-LABEL: llvm.func @register_prefetch
// CHECK: scf.if {{.*}} -> (f32, f32, f32, f32)
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[P0:arg[0-9]+]] = {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: scf.if {{.*}} -> (f32, f32, f32, f32)
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: arith.addf %{{.*}}, %[[P0]] : f32
// CHECK: scf.yield {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32
module attributes {tilegpu.target = "sm_90a"} {
  func.func @register_prefetch(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 4}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<512xf32>) : i32 {
      %x = tile.load %a[%k] : !tile.view<?xf32> -> tensor<512xf32>
      %s = arith.addf %acc, %x : tensor<512xf32>
      scf.yield %s : tensor<512xf32>
    }
    tile.store %r, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// Must not fire: without the hint (the default is off), over the hint's
// budget, when the loop writes the view, or when the index is carried by
// the loop.
// CHECK-LABEL: llvm.func @no_register_prefetch
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32) :
// CHECK-LABEL: llvm.func @over_budget
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32) :
// CHECK-LABEL: llvm.func @written
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32) :
// CHECK-LABEL: llvm.func @carried_index
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, i32) :
module attributes {tilegpu.target = "sm_90a"} {
  func.func @no_register_prefetch(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<512xf32>) : i32 {
      %x = tile.load %a[%k] : !tile.view<?xf32> -> tensor<512xf32>
      %s = arith.addf %acc, %x : tensor<512xf32>
      scf.yield %s : tensor<512xf32>
    }
    tile.store %r, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
  func.func @over_budget(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 3}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<512xf32>) : i32 {
      %x = tile.load %a[%k] : !tile.view<?xf32> -> tensor<512xf32>
      %s = arith.addf %acc, %x : tensor<512xf32>
      scf.yield %s : tensor<512xf32>
    }
    tile.store %r, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
  func.func @written(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 8}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<512xf32>) : i32 {
      %x = tile.load %a[%k] : !tile.view<?xf32> -> tensor<512xf32>
      %s = arith.addf %acc, %x : tensor<512xf32>
      tile.store %s, %a[%c1] : tensor<512xf32>, !tile.view<?xf32>
      scf.yield %s : tensor<512xf32>
    }
    tile.store %r, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
  func.func @carried_index(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 8}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<512xf32>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %j = %c0) -> (tensor<512xf32>, i32) : i32 {
      %x = tile.load %a[%j] : !tile.view<?xf32> -> tensor<512xf32>
      %s = arith.addf %acc, %x : tensor<512xf32>
      %j2 = arith.addi %j, %c1 : i32
      scf.yield %s, %j2 : tensor<512xf32>, i32
    }
    tile.store %r#0, %c[%c0] : tensor<512xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// 16-bit elements travel as 32-bit words: the loop carries the loaded words
// (two bf16 each) and unpacks them where the load stood, so that nothing
// waits for the load before the next iteration uses it.
// CHECK-LABEL: llvm.func @register_prefetch_bf16
// CHECK: scf.for {{.*}} -> (bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, i32, i32, i32, i32)
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-NEXT: llvm.bitcast {{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK: llvm.bitcast {{.*}} : i32 to vector<2xbf16>
// CHECK: arith.addf
// CHECK: scf.yield {{.*}} : bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16, i32, i32, i32, i32
module attributes {tilegpu.target = "sm_90a"} {
  func.func @register_prefetch_bf16(%a: !tile.view<?xbf16>, %c: !tile.view<?xbf16>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 4}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<1024xbf16>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<1024xbf16>) : i32 {
      %x = tile.load %a[%k] : !tile.view<?xbf16> -> tensor<1024xbf16>
      %s = arith.addf %acc, %x : tensor<1024xbf16>
      scf.yield %s : tensor<1024xbf16>
    }
    tile.store %r, %c[%c0] : tensor<1024xbf16>, !tile.view<?xbf16>
    return
  }
}
