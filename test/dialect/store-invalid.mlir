// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @too_few_indices(%x: !tile.view<?x?xf32>, %t: tensor<64x16xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op expects 2 tile indices for a rank-2 view, got 1}}
  tile.store %t, %x[%i] : tensor<64x16xf32>, !tile.view<?x?xf32>
  return
}

// -----

func.func @too_many_indices(%x: !tile.view<?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op expects 1 tile indices for a rank-1 view, got 2}}
  tile.store %t, %x[%i, %i] : tensor<64xf32>, !tile.view<?xf32>
  return
}

// -----

func.func @element_type_mismatch(%x: !tile.view<?xbf16>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op tile element type 'f32' does not match view element type 'bf16'}}
  tile.store %t, %x[%i] : tensor<64xf32>, !tile.view<?xbf16>
  return
}

// -----

func.func @rank_mismatch_without_squeeze(%x: !tile.view<?x?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op tile rank 1 differs from view rank 2; list the view dimensions the tile drops in 'squeeze'}}
  tile.store %t, %x[%i, %i] : tensor<64xf32>, !tile.view<?x?xf32>
  return
}

// -----

func.func @latency_too_large(%x: !tile.view<?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op attribute 'latency' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 10}}
  tile.store %t, %x[%i] {latency = 11} : tensor<64xf32>, !tile.view<?xf32>
  return
}

// -----

func.func @latency_zero(%x: !tile.view<?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op attribute 'latency' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 10}}
  tile.store %t, %x[%i] {latency = 0} : tensor<64xf32>, !tile.view<?xf32>
  return
}

// -----

func.func @non_power_of_two(%x: !tile.view<?xf32>, %t: tensor<48xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op stored tile dimensions must be powers of two, got 48}}
  tile.store %t, %x[%i] : tensor<48xf32>, !tile.view<?xf32>
  return
}

// -----

func.func @dynamic_shape(%x: !tile.view<?xf32>, %t: tensor<?xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op stored tile must have a static shape, got 'tensor<?xf32>'}}
  tile.store %t, %x[%i] : tensor<?xf32>, !tile.view<?xf32>
  return
}

// -----

func.func @has_result(%x: !tile.view<?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op requires zero results}}
  %r = "tile.store"(%t, %x, %i) : (tensor<64xf32>, !tile.view<?xf32>, i32) -> i32
  return
}

// -----

func.func @value_not_tensor(%x: !tile.view<?xf32>, %t: vector<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op operand #0 must be ranked tensor of any type values, but got 'vector<64xf32>'}}
  "tile.store"(%t, %x, %i) : (vector<64xf32>, !tile.view<?xf32>, i32) -> ()
  return
}

// -----

func.func @index_not_i32(%x: !tile.view<?xf32>, %t: tensor<64xf32>, %i: i64) {
  // expected-error @below {{'tile.store' op operand #2 must be variadic of 32-bit signless integer, but got 'i64'}}
  "tile.store"(%t, %x, %i) : (tensor<64xf32>, !tile.view<?xf32>, i64) -> ()
  return
}

// -----

func.func @operands_swapped(%x: !tile.view<?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op operand #0 must be ranked tensor of any type values, but got '!tile.view<?xf32>'}}
  "tile.store"(%x, %t, %i) : (!tile.view<?xf32>, tensor<64xf32>, i32) -> ()
  return
}
