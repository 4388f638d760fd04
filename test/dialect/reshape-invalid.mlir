// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @count_mismatch(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.reshape' op cannot reshape 64 (64 elements) to 8x4 (32 elements)}}
  %r = tile.reshape %a : tensor<64xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @count_mismatch_to_scalar(%a: tensor<2xf32>) {
  // expected-error @below {{'tile.reshape' op cannot reshape 2 (2 elements) to scalar (1 elements)}}
  %r = tile.reshape %a : tensor<2xf32> -> tensor<f32>
  return
}

// -----

func.func @element_type_change(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.reshape' op cannot change the element type from 'f32' to 'f16'}}
  %r = tile.reshape %a : tensor<64xf32> -> tensor<8x8xf16>
  return
}

// -----

// Same bit size is not enough: reshape is not a bitcast.
func.func @no_bitcast(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.reshape' op cannot change the element type from 'f32' to 'i32'}}
  %r = tile.reshape %a : tensor<64xf32> -> tensor<64xi32>
  return
}

// -----

func.func @source_non_power_of_two(%a: tensor<48xf32>) {
  // expected-error @below {{'tile.reshape' op source tile dimensions must be powers of two, got 48}}
  %r = tile.reshape %a : tensor<48xf32> -> tensor<8x6xf32>
  return
}

// -----

// Shapes are checked before element counts.
func.func @result_non_power_of_two(%a: tensor<2x4xf32>) {
  // expected-error @below {{'tile.reshape' op result tile dimensions must be powers of two, got 3x3}}
  %r = tile.reshape %a : tensor<2x4xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @dynamic_result(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.reshape' op result tile must have a static shape, got 'tensor<?x8xf32>'}}
  %r = tile.reshape %a : tensor<64xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @unranked_result(%a: tensor<64xf32>) {
  // expected-error @below {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %r = tile.reshape %a : tensor<64xf32> -> tensor<*xf32>
  return
}
