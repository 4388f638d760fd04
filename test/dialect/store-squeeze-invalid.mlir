// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @squeeze_out_of_range(%x: !tile.view<?x?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op squeezed dimension 5 is out of range for a rank-2 view}}
  tile.store %t, %x[%i, %i] {squeeze = array<i64: 5>} : tensor<64xf32>, !tile.view<?x?xf32>
  return
}

// -----

func.func @squeeze_negative(%x: !tile.view<?x?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op squeezed dimension -3 is out of range for a rank-2 view}}
  tile.store %t, %x[%i, %i] {squeeze = array<i64: -3>} : tensor<64xf32>, !tile.view<?x?xf32>
  return
}

// -----

func.func @squeeze_not_increasing(%x: !tile.view<?x?x?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op squeezed dimensions must be strictly increasing}}
  tile.store %t, %x[%i, %i, %i] {squeeze = array<i64: 2, 0>} : tensor<64xf32>, !tile.view<?x?x?xf32>
  return
}

// -----

func.func @rank_mismatch_with_squeeze(%x: !tile.view<?x?x?xf32>, %t: tensor<64x8x4xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op tile rank 3 plus 1 squeezed dimension(s) differs from view rank 3}}
  tile.store %t, %x[%i, %i, %i] {squeeze = array<i64: 1>} : tensor<64x8x4xf32>, !tile.view<?x?x?xf32>
  return
}

// -----

func.func @squeeze_not_dense_array(%x: !tile.view<?x?xf32>, %t: tensor<64xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op attribute 'squeeze' failed to satisfy constraint: i64 dense array attribute}}
  tile.store %t, %x[%i, %i] {squeeze = 0 : i64} : tensor<64xf32>, !tile.view<?x?xf32>
  return
}
