// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @repeated_entry(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.permute' op [1, 1] is not a permutation of 0..1}}
  %t = tile.permute %a [1, 1] : tensor<64x8xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @entry_out_of_range(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.permute' op [1, 2] is not a permutation of 0..1}}
  %t = tile.permute %a [1, 2] : tensor<64x8xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @negative_entry(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.permute' op [-1, 0] is not a permutation of 0..1}}
  %t = tile.permute %a [-1, 0] : tensor<64x8xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @too_long(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.permute' op permutation has 3 entries for a rank-2 tile}}
  %t = tile.permute %a [1, 0, 2] : tensor<64x8xf32> -> tensor<8x64xf32>
  return
}

// -----

func.func @too_short(%a: tensor<2x4x8xf32>) {
  // expected-error @below {{'tile.permute' op permutation has 2 entries for a rank-3 tile}}
  %t = tile.permute %a [1, 0] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  return
}

// -----

func.func @empty_for_rank1(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.permute' op permutation has 0 entries for a rank-1 tile}}
  %t = tile.permute %a [] : tensor<64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @wrong_result_shape(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.permute' op permuting 'tensor<64x8xf32>' by [1, 0] gives 'tensor<8x64xf32>', not 'tensor<64x8xf32>'}}
  %t = tile.permute %a [1, 0] : tensor<64x8xf32> -> tensor<64x8xf32>
  return
}

// -----

// The inverse of [1, 2, 0] is [2, 0, 1]: a common mix-up.
func.func @inverse_permutation_result(%a: tensor<2x4x8xf32>) {
  // expected-error @below {{'tile.permute' op permuting 'tensor<2x4x8xf32>' by [1, 2, 0] gives 'tensor<4x8x2xf32>', not 'tensor<8x2x4xf32>'}}
  %t = tile.permute %a [1, 2, 0] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  return
}

// -----

func.func @wrong_result_element_type(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.permute' op permuting 'tensor<64x8xf32>' by [1, 0] gives 'tensor<8x64xf32>', not 'tensor<8x64xf16>'}}
  %t = tile.permute %a [1, 0] : tensor<64x8xf32> -> tensor<8x64xf16>
  return
}

// -----

func.func @non_power_of_two(%a: tensor<64x12xf32>) {
  // expected-error @below {{'tile.permute' op source tile dimensions must be powers of two, got 64x12}}
  %t = tile.permute %a [1, 0] : tensor<64x12xf32> -> tensor<12x64xf32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?x8xf32>) {
  // expected-error @below {{'tile.permute' op source tile must have a static shape, got 'tensor<?x8xf32>'}}
  %t = tile.permute %a [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  return
}

// -----

func.func @perm_not_dense_array(%a: tensor<64x8xf32>) {
  // expected-error @below {{invalid properties {perm = [1, 0]} for op tile.permute: Invalid attribute `perm` in property conversion: [1, 0]}}
  %t = "tile.permute"(%a) <{perm = [1, 0]}> : (tensor<64x8xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @missing_perm(%a: tensor<64x8xf32>) {
  // expected-error @below {{expected '['}}
  %t = tile.permute %a : tensor<64x8xf32> -> tensor<8x64xf32>
  return
}
