// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @bad_dim(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.broadcast' op cannot broadcast 64x8 to 64x16: dimension 1 is 8, neither 1 nor 16}}
  %b = tile.broadcast %a : tensor<64x8xf32> -> tensor<64x16xf32>
  return
}

// -----

// Alignment is from the right: 64 faces 8, not 64.
func.func @aligned_from_the_right(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.broadcast' op cannot broadcast 64 to 64x8: dimension 0 is 64, neither 1 nor 8}}
  %b = tile.broadcast %a : tensor<64xf32> -> tensor<64x8xf32>
  return
}

// -----

// Broadcasting never shrinks a dimension.
func.func @shrink(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.broadcast' op cannot broadcast 64x8 to 32x8: dimension 0 is 64, neither 1 nor 32}}
  %b = tile.broadcast %a : tensor<64x8xf32> -> tensor<32x8xf32>
  return
}

// -----

func.func @lower_rank(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.broadcast' op cannot broadcast 64x8 to the lower-rank shape 8}}
  %b = tile.broadcast %a : tensor<64x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @to_scalar(%a: tensor<1xf32>) {
  // expected-error @below {{'tile.broadcast' op cannot broadcast 1 to the lower-rank shape scalar}}
  %b = tile.broadcast %a : tensor<1xf32> -> tensor<f32>
  return
}

// -----

func.func @element_type_change(%a: tensor<1x8xf32>) {
  // expected-error @below {{'tile.broadcast' op cannot change the element type from 'f32' to 'f16'}}
  %b = tile.broadcast %a : tensor<1x8xf32> -> tensor<64x8xf16>
  return
}

// -----

func.func @result_non_power_of_two(%a: tensor<1x8xf32>) {
  // expected-error @below {{'tile.broadcast' op result tile dimensions must be powers of two, got 48x8}}
  %b = tile.broadcast %a : tensor<1x8xf32> -> tensor<48x8xf32>
  return
}

// -----

func.func @source_non_power_of_two(%a: tensor<1x3xf32>) {
  // expected-error @below {{'tile.broadcast' op source tile dimensions must be powers of two, got 1x3}}
  %b = tile.broadcast %a : tensor<1x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @result_dynamic(%a: tensor<1x8xf32>) {
  // expected-error @below {{'tile.broadcast' op result tile must have a static shape, got 'tensor<?x8xf32>'}}
  %b = tile.broadcast %a : tensor<1x8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @source_dynamic(%a: tensor<?xf32>) {
  // expected-error @below {{'tile.broadcast' op source tile must have a static shape, got 'tensor<?xf32>'}}
  %b = tile.broadcast %a : tensor<?xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @result_zero_extent(%a: tensor<1xf32>) {
  // expected-error @below {{'tile.broadcast' op result tile dimensions must be powers of two, got 0}}
  %b = tile.broadcast %a : tensor<1xf32> -> tensor<0xf32>
  return
}
