// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @too_few_indices(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op expects 2 tile indices for a rank-2 view, got 1}}
  %t = tile.load %x[%i] : !tile.view<?x?xf32> -> tensor<64x16xf32>
  return
}

// -----

func.func @too_many_indices(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op expects 1 tile indices for a rank-1 view, got 3}}
  %t = tile.load %x[%i, %i, %i] : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @no_indices(%x: !tile.view<?xf32>) {
  // expected-error @below {{'tile.load' op expects 1 tile indices for a rank-1 view, got 0}}
  %t = tile.load %x[] : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @element_type_mismatch(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op tile element type 'f16' does not match view element type 'f32'}}
  %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<64x16xf16>
  return
}

// -----

func.func @element_type_mismatch_int(%x: !tile.view<?xi32>, %i: i32) {
  // expected-error @below {{'tile.load' op tile element type 'i64' does not match view element type 'i32'}}
  %t = tile.load %x[%i] : !tile.view<?xi32> -> tensor<8xi64>
  return
}

// -----

func.func @rank_mismatch_without_squeeze(%x: !tile.view<?x?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op tile rank 2 differs from view rank 3; list the view dimensions the tile drops in 'squeeze'}}
  %t = tile.load %x[%i, %i, %i] : !tile.view<?x?x?xf32> -> tensor<64x16xf32>
  return
}

// -----

func.func @tile_rank_above_view_rank(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op tile rank 2 differs from view rank 1; list the view dimensions the tile drops in 'squeeze'}}
  %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<64x16xf32>
  return
}

// -----

func.func @latency_too_large(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'latency' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 10}}
  %t = tile.load %x[%i] {latency = 11} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @latency_zero(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'latency' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 10}}
  %t = tile.load %x[%i] {latency = 0} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @latency_negative(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'latency' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 10}}
  %t = tile.load %x[%i] {latency = -2} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @latency_not_integer(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'latency' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 10}}
  %t = tile.load %x[%i] {latency = 2.0} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @allow_tma_not_bool(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'allow_tma' failed to satisfy constraint: bool attribute}}
  %t = tile.load %x[%i] {allow_tma = 1} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @padding_not_enum(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'padding' failed to satisfy constraint: value of out-of-bounds elements of a load}}
  %t = tile.load %x[%i] {padding = 0 : i32} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @padding_wrong_enum(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'padding' failed to satisfy constraint: value of out-of-bounds elements of a load}}
  %t = tile.load %x[%i] {padding = #tile<precision bf16>} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @index_not_i32(%x: !tile.view<?xf32>, %i: index) {
  // expected-error @below {{'tile.load' op operand #1 must be variadic of 32-bit signless integer, but got 'index'}}
  %t = "tile.load"(%x, %i) : (!tile.view<?xf32>, index) -> tensor<64xf32>
  return
}

// -----

func.func @source_not_view(%x: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op operand #0 must be A strided view of global memory, but got 'tensor<64xf32>'}}
  %t = "tile.load"(%x, %i) : (tensor<64xf32>, i32) -> tensor<64xf32>
  return
}

// -----

func.func @result_not_tensor(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op result #0 must be ranked tensor of any type values, but got 'vector<64xf32>'}}
  %t = "tile.load"(%x, %i) : (!tile.view<?xf32>, i32) -> vector<64xf32>
  return
}
