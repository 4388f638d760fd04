// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s
// RUN: tessel-opt %s -canonicalize | FileCheck %s --check-prefix=CANON

// Tiles and views in structured control flow: loop-carried accumulators,
// latency hints on loads inside loops, and branches.

// CHECK-LABEL: func.func @k_loop
// CHECK-SAME: (%[[A:.*]]: !tile.view<?x?xbf16>, %[[B:.*]]: !tile.view<?x?xbf16>, %[[C:.*]]: !tile.view<?x?xf32>, %[[K:.*]]: i32)
// CANON-LABEL: func.func @k_loop
func.func @k_loop(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %k: i32) {
  %m = tile.program_id 0
  %n = tile.program_id 1
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  // CHECK: %[[M:.*]] = tile.program_id 0
  // CHECK: %[[N:.*]] = tile.program_id 1
  // CHECK: %[[ACC:.*]] = scf.for %[[KK:.*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[IT:.*]] = %{{.*}}) -> (tensor<128x64xf32>) : i32 {
  // CHECK: %[[TA:.*]] = tile.load %[[A]][%[[M]], %[[KK]]] {latency = 2 : i64} : !tile.view<?x?xbf16> -> tensor<128x32xbf16>
  // CHECK: %[[TB:.*]] = tile.load %[[B]][%[[KK]], %[[N]]] {latency = 2 : i64} : !tile.view<?x?xbf16> -> tensor<32x64xbf16>
  // CHECK: %[[D:.*]] = tile.mma %[[TA]], %[[TB]], %[[IT]] {precision = #tile<precision bf16>} : tensor<128x32xbf16>, tensor<32x64xbf16>, tensor<128x64xf32>
  // CHECK: scf.yield %[[D]] : tensor<128x64xf32>
  // CHECK: tile.store %[[ACC]], %[[C]][%[[M]], %[[N]]] : tensor<128x64xf32>, !tile.view<?x?xf32>
  // The loop and its loads survive canonicalization (the loads feed the store).
  // CANON: scf.for
  // CANON-COUNT-2: tile.load
  // CANON: tile.mma
  // CANON: tile.store
  %acc = scf.for %kk = %c0 to %k step %c1 iter_args(%it = %zero) -> (tensor<128x64xf32>) : i32 {
    %ta = tile.load %a[%m, %kk] {latency = 2} : !tile.view<?x?xbf16> -> tensor<128x32xbf16>
    %tb = tile.load %b[%kk, %n] {latency = 2} : !tile.view<?x?xbf16> -> tensor<32x64xbf16>
    %d = tile.mma %ta, %tb, %it {precision = #tile<precision bf16>} : tensor<128x32xbf16>, tensor<32x64xbf16>, tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  tile.store %acc, %c[%m, %n] : tensor<128x64xf32>, !tile.view<?x?xf32>
  return
}

// A branch that picks a tile; an online-softmax style running max.
// CHECK-LABEL: func.func @k_branch
// CANON-LABEL: func.func @k_branch
func.func @k_branch(%x: !tile.view<?x?xf32>, %flag: i1, %steps: i32) -> tensor<64xf32> {
  %pid = tile.program_id 0
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant dense<0xFF800000> : tensor<64xf32>
  // CHECK: %[[PID:.*]] = tile.program_id 0
  // CHECK: %[[RMAX:.*]] = scf.for %[[I:.*]] = {{.*}} iter_args(%[[MX:.*]] = %{{.*}}) -> (tensor<64xf32>) : i32 {
  // CHECK: %[[T:.*]] = tile.load %{{.*}}[%[[PID]], %[[I]]] {padding = #tile<padding neg_inf>} : !tile.view<?x?xf32> -> tensor<64x32xf32>
  // CHECK: %[[R:.*]] = tile.reduce max %[[T]] {axis = 1 : i64} : tensor<64x32xf32> -> tensor<64xf32>
  // CHECK: arith.maximumf %[[MX]], %[[R]] : tensor<64xf32>
  // CHECK: scf.if
  // CHECK: scf.yield %[[RMAX]]
  // CHECK: %[[BC:.*]] = tile.broadcast %[[RMAX]] : tensor<64xf32> -> tensor<2x64xf32>
  // CHECK: tile.reduce min %[[BC]] {axis = 0 : i64} : tensor<2x64xf32> -> tensor<64xf32>
  // CANON: tile.reduce max
  %run = scf.for %i = %c0 to %steps step %c1 iter_args(%mx = %init) -> (tensor<64xf32>) : i32 {
    %t = tile.load %x[%pid, %i] {padding = #tile<padding neg_inf>} : !tile.view<?x?xf32> -> tensor<64x32xf32>
    %r = tile.reduce max %t {axis = 1 : i64} : tensor<64x32xf32> -> tensor<64xf32>
    %new = arith.maximumf %mx, %r : tensor<64xf32>
    scf.yield %new : tensor<64xf32>
  }
  %res = scf.if %flag -> (tensor<64xf32>) {
    scf.yield %run : tensor<64xf32>
  } else {
    %b = tile.broadcast %run : tensor<64xf32> -> tensor<2x64xf32>
    %m = tile.reduce min %b {axis = 0 : i64} : tensor<2x64xf32> -> tensor<64xf32>
    scf.yield %m : tensor<64xf32>
  }
  return %res : tensor<64xf32>
}
