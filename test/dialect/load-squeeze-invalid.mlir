// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @squeeze_out_of_range(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op squeezed dimension 2 is out of range for a rank-2 view}}
  %t = tile.load %x[%i, %i] {squeeze = array<i64: 2>} : !tile.view<?x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @squeeze_negative(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op squeezed dimension -1 is out of range for a rank-2 view}}
  %t = tile.load %x[%i, %i] {squeeze = array<i64: -1>} : !tile.view<?x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @squeeze_decreasing(%x: !tile.view<?x?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op squeezed dimensions must be strictly increasing}}
  %t = tile.load %x[%i, %i, %i] {squeeze = array<i64: 1, 0>} : !tile.view<?x?x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @squeeze_repeated(%x: !tile.view<?x?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op squeezed dimensions must be strictly increasing}}
  %t = tile.load %x[%i, %i, %i] {squeeze = array<i64: 1, 1>} : !tile.view<?x?x?xf32> -> tensor<64x8xf32>
  return
}

// -----

func.func @rank_mismatch_with_squeeze(%x: !tile.view<?x?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op tile rank 1 plus 1 squeezed dimension(s) differs from view rank 3}}
  %t = tile.load %x[%i, %i, %i] {squeeze = array<i64: 0>} : !tile.view<?x?x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @too_many_squeezed(%x: !tile.view<?x?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op tile rank 2 plus 2 squeezed dimension(s) differs from view rank 3}}
  %t = tile.load %x[%i, %i, %i] {squeeze = array<i64: 0, 2>} : !tile.view<?x?x?xf32> -> tensor<64x8xf32>
  return
}

// -----

func.func @squeeze_not_dense_array(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'squeeze' failed to satisfy constraint: i64 dense array attribute}}
  %t = tile.load %x[%i, %i] {squeeze = [0]} : !tile.view<?x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @squeeze_i32_array(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'squeeze' failed to satisfy constraint: i64 dense array attribute}}
  %t = tile.load %x[%i, %i] {squeeze = array<i32: 0>} : !tile.view<?x?xf32> -> tensor<64xf32>
  return
}
