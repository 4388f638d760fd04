// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @rank(%x: !tile.view<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.prefetch' op box has 1 extents for a rank-2 view}}
  tile.prefetch %x[%c0, %c0] {box = array<i64: 64>} : !tile.view<?x?xf32>
  return
}

// -----

func.func @indices(%x: !tile.view<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.prefetch' op takes one tile index per view dimension (2), got 1}}
  tile.prefetch %x[%c0] {box = array<i64: 64, 64>} : !tile.view<?x?xf32>
  return
}

// -----

func.func @extent(%x: !tile.view<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.prefetch' op box extents must be positive, got 0}}
  tile.prefetch %x[%c0, %c0] {box = array<i64: 64, 0>} : !tile.view<?x?xf32>
  return
}
