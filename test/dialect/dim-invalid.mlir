// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @dim_out_of_range(%x: !tile.view<?x?xf32>) {
  // expected-error @below {{'tile.dim' op dimension 2 is out of range for a rank-2 view}}
  %0 = tile.dim %x, 2 : !tile.view<?x?xf32>
  return
}

// -----

func.func @dim_out_of_range_rank1(%x: !tile.view<16xi32>) {
  // expected-error @below {{'tile.dim' op dimension 7 is out of range for a rank-1 view}}
  %0 = tile.dim %x, 7 : !tile.view<16xi32>
  return
}

// -----

func.func @dim_negative(%x: !tile.view<?x?xf32>) {
  // expected-error @below {{'tile.dim' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tile.dim %x, -1 : !tile.view<?x?xf32>
  return
}

// -----

// tile.dim returns an i32 (and folds a static size to an i32 constant): a static
// size of 2^31 or more cannot be represented.
func.func @static_size_too_large(%x: !tile.view<?x4294967296xf32>) {
  // expected-error @below {{'tile.dim' op static size 4294967296 of dimension 1 does not fit the i32 result}}
  %0 = tile.dim %x, 1 : !tile.view<?x4294967296xf32>
  return
}

// -----

func.func @static_size_int32_max_plus_one(%x: !tile.view<2147483648xf32>) {
  // expected-error @below {{'tile.dim' op static size 2147483648 of dimension 0 does not fit the i32 result}}
  %0 = tile.dim %x, 0 : !tile.view<2147483648xf32>
  return
}

// -----

func.func @not_a_view(%x: tensor<16xf32>) {
  // expected-error @below {{'tile.dim' op operand #0 must be A strided view of global memory, but got 'tensor<16xf32>'}}
  %0 = "tile.dim"(%x) <{dim = 0 : i64}> : (tensor<16xf32>) -> i32
  return
}

// -----

func.func @result_not_i32(%x: !tile.view<?xf32>) {
  // expected-error @below {{'tile.dim' op result #0 must be 32-bit signless integer, but got 'index'}}
  %0 = "tile.dim"(%x) <{dim = 0 : i64}> : (!tile.view<?xf32>) -> index
  return
}

// -----

func.func @missing_dim(%x: !tile.view<?xf32>) {
  // expected-error @below {{'tile.dim' op requires attribute 'dim'}}
  %0 = "tile.dim"(%x) : (!tile.view<?xf32>) -> i32
  return
}

// -----

func.func @custom_form_needs_type(%x: !tile.view<?xf32>) {
  // expected-error @below {{expected ':'}}
  %0 = tile.dim %x, 0
  return
}
