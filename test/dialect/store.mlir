// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// CHECK-LABEL: func.func @store_2d
// CHECK-SAME: (%[[X:.*]]: !tile.view<?x?xf32>, %[[T:.*]]: tensor<64x16xf32>, %[[I:.*]]: i32, %[[J:.*]]: i32)
func.func @store_2d(%x: !tile.view<?x?xf32>, %t: tensor<64x16xf32>, %i: i32, %j: i32) {
  // CHECK: tile.store %[[T]], %[[X]][%[[I]], %[[J]]] : tensor<64x16xf32>, !tile.view<?x?xf32>
  tile.store %t, %x[%i, %j] : tensor<64x16xf32>, !tile.view<?x?xf32>
  return
}

// CHECK-LABEL: func.func @store_latency
func.func @store_latency(%x: !tile.view<?xbf16, align = 128, unit_stride>, %t: tensor<256xbf16>, %i: i32) {
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}] {latency = 1 : i64} : tensor<256xbf16>, !tile.view<?xbf16, align = 128, unit_stride>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}] {latency = 10 : i64} : tensor<256xbf16>, !tile.view<?xbf16, align = 128, unit_stride>
  tile.store %t, %x[%i] {latency = 1} : tensor<256xbf16>, !tile.view<?xbf16, align = 128, unit_stride>
  tile.store %t, %x[%i] {latency = 10} : tensor<256xbf16>, !tile.view<?xbf16, align = 128, unit_stride>
  return
}

// A load, a computation and a store of the result: the usual kernel body.
// CHECK-LABEL: func.func @load_compute_store
func.func @load_compute_store(%x: !tile.view<?x?xf16>, %y: !tile.view<?x?xf16>) {
  // CHECK: %[[PID:.*]] = tile.program_id 0
  // CHECK: %[[A:.*]] = tile.load %{{.*}}[%[[PID]], %[[PID]]] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // CHECK: %[[B:.*]] = math.exp2 %[[A]] : tensor<32x32xf16>
  // CHECK: tile.store %[[B]], %{{.*}}[%[[PID]], %[[PID]]] : tensor<32x32xf16>, !tile.view<?x?xf16>
  %pid = tile.program_id 0
  %a = tile.load %x[%pid, %pid] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  %b = math.exp2 %a : tensor<32x32xf16>
  tile.store %b, %y[%pid, %pid] : tensor<32x32xf16>, !tile.view<?x?xf16>
  return
}

// Every view element type can be stored.
// CHECK-LABEL: func.func @element_types
func.func @element_types(%a: !tile.view<?xi8>, %b: !tile.view<?xi16>, %c: !tile.view<?xi64>, %d: !tile.view<?xf64>,
                         %ta: tensor<16xi8>, %tb: tensor<16xi16>, %tc: tensor<16xi64>, %td: tensor<16xf64>, %i: i32) {
  // CHECK: tile.store %{{.*}} : tensor<16xi8>, !tile.view<?xi8>
  // CHECK: tile.store %{{.*}} : tensor<16xi16>, !tile.view<?xi16>
  // CHECK: tile.store %{{.*}} : tensor<16xi64>, !tile.view<?xi64>
  // CHECK: tile.store %{{.*}} : tensor<16xf64>, !tile.view<?xf64>
  tile.store %ta, %a[%i] : tensor<16xi8>, !tile.view<?xi8>
  tile.store %tb, %b[%i] : tensor<16xi16>, !tile.view<?xi16>
  tile.store %tc, %c[%i] : tensor<16xi64>, !tile.view<?xi64>
  tile.store %td, %d[%i] : tensor<16xf64>, !tile.view<?xf64>
  return
}
