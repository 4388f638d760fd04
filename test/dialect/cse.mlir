// RUN: tessel-opt %s -split-input-file -cse | FileCheck %s

// Memory effects as CSE sees them: grid queries and tile math are pure, loads
// only read, stores write.

// CHECK-LABEL: func.func @pure_ops_merge
func.func @pure_ops_merge(%x: !tile.view<?xf32>, %a: tensor<8x8xf32>) -> (i32, i32, i32, i32, i32, i32, tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK: %[[P:.*]] = tile.program_id 0
  // CHECK-NEXT: %[[N:.*]] = tile.num_programs 0
  // CHECK-NEXT: %[[D:.*]] = tile.dim %{{.*}}, 0 : !tile.view<?xf32>
  // CHECK-NEXT: %[[T:.*]] = tile.permute %{{.*}} [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  // CHECK-NEXT: return %[[P]], %[[P]], %[[N]], %[[N]], %[[D]], %[[D]], %[[T]], %[[T]]
  %p0 = tile.program_id 0
  %p1 = tile.program_id 0
  %n0 = tile.num_programs 0
  %n1 = tile.num_programs 0
  %d0 = tile.dim %x, 0 : !tile.view<?xf32>
  %d1 = tile.dim %x, 0 : !tile.view<?xf32>
  %t0 = tile.permute %a [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %t1 = tile.permute %a [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return %p0, %p1, %n0, %n1, %d0, %d1, %t0, %t1 : i32, i32, i32, i32, i32, i32, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Must not merge: different attributes mean different values.
// CHECK-LABEL: func.func @different_attrs
func.func @different_attrs(%a: tensor<8x8xf32>) -> (i32, i32, tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK: %[[P0:.*]] = tile.program_id 0
  // CHECK: %[[P1:.*]] = tile.program_id 1
  // CHECK: %[[S0:.*]] = tile.cumsum %{{.*}} {axis = 0 : i64} : tensor<8x8xf32>
  // CHECK: %[[S1:.*]] = tile.cumsum %{{.*}} {axis = 0 : i64, reverse = true} : tensor<8x8xf32>
  // CHECK: return %[[P0]], %[[P1]], %[[S0]], %[[S1]]
  %p0 = tile.program_id 0
  %p1 = tile.program_id 1
  %s0 = tile.cumsum %a {axis = 0 : i64} : tensor<8x8xf32>
  %s1 = tile.cumsum %a {axis = 0 : i64, reverse = true} : tensor<8x8xf32>
  return %p0, %p1, %s0, %s1 : i32, i32, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Two identical loads with no store between them read the same data.
// CHECK-LABEL: func.func @loads_merge
// CHECK-SAME: (%[[X:.*]]: !tile.view<?xf32>, %[[I:.*]]: i32)
func.func @loads_merge(%x: !tile.view<?xf32>, %i: i32) -> (tensor<16xf32>, tensor<16xf32>) {
  // CHECK: %[[L:.*]] = tile.load %[[X]][%[[I]]] : !tile.view<?xf32> -> tensor<16xf32>
  // CHECK-NOT: tile.load
  // CHECK: return %[[L]], %[[L]]
  %a = tile.load %x[%i] : !tile.view<?xf32> -> tensor<16xf32>
  %b = tile.load %x[%i] : !tile.view<?xf32> -> tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}

// -----

// Must not merge across a store: it may have changed the data.
// CHECK-LABEL: func.func @store_between_loads
// CHECK-SAME: (%[[X:.*]]: !tile.view<?xf32>, %[[I:.*]]: i32, %[[T:.*]]: tensor<16xf32>)
func.func @store_between_loads(%x: !tile.view<?xf32>, %i: i32, %t: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  // CHECK: %[[A:.*]] = tile.load %[[X]][%[[I]]] : !tile.view<?xf32> -> tensor<16xf32>
  // CHECK-NEXT: tile.store %[[T]], %[[X]][%[[I]]] : tensor<16xf32>, !tile.view<?xf32>
  // CHECK-NEXT: %[[B:.*]] = tile.load %[[X]][%[[I]]] : !tile.view<?xf32> -> tensor<16xf32>
  // CHECK-NEXT: return %[[A]], %[[B]]
  %a = tile.load %x[%i] : !tile.view<?xf32> -> tensor<16xf32>
  tile.store %t, %x[%i] : tensor<16xf32>, !tile.view<?xf32>
  %b = tile.load %x[%i] : !tile.view<?xf32> -> tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}

// -----

// Must not merge: a different padding gives different out-of-bounds values.
// CHECK-LABEL: func.func @different_padding
func.func @different_padding(%x: !tile.view<?xf32>, %i: i32) -> (tensor<16xf32>, tensor<16xf32>) {
  // CHECK: %[[A:.*]] = tile.load %{{.*}} : !tile.view<?xf32> -> tensor<16xf32>
  // CHECK: %[[B:.*]] = tile.load %{{.*}} {padding = #tile<padding neg_inf>} : !tile.view<?xf32> -> tensor<16xf32>
  // CHECK: return %[[A]], %[[B]]
  %a = tile.load %x[%i] : !tile.view<?xf32> -> tensor<16xf32>
  %b = tile.load %x[%i] {padding = #tile<padding neg_inf>} : !tile.view<?xf32> -> tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}

// -----

// Two identical stores both stay (CSE never removes writes).
// CHECK-LABEL: func.func @stores_stay
func.func @stores_stay(%x: !tile.view<?xf32>, %i: i32, %t: tensor<16xf32>) {
  // CHECK: tile.store %{{.*}} : tensor<16xf32>, !tile.view<?xf32>
  // CHECK-NEXT: tile.store %{{.*}} : tensor<16xf32>, !tile.view<?xf32>
  // CHECK-NEXT: return
  tile.store %t, %x[%i] : tensor<16xf32>, !tile.view<?xf32>
  tile.store %t, %x[%i] : tensor<16xf32>, !tile.view<?xf32>
  return
}
