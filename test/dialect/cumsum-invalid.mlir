// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.cumsum' op axis 2 is out of range for a rank-2 tile}}
  %s = tile.cumsum %a {axis = 2 : i64} : tensor<64x8xf32>
  return
}

// -----

func.func @axis_on_rank0(%a: tensor<f32>) {
  // expected-error @below {{'tile.cumsum' op axis 0 is out of range for a rank-0 tile}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<f32>
  return
}

// -----

func.func @axis_negative(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.cumsum' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %s = tile.cumsum %a {axis = -1 : i64} : tensor<64x8xf32>
  return
}

// -----

func.func @axis_i32(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.cumsum' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %s = tile.cumsum %a {axis = 0 : i32} : tensor<64x8xf32>
  return
}

// -----

func.func @missing_axis(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.cumsum' op requires attribute 'axis'}}
  %s = tile.cumsum %a : tensor<64x8xf32>
  return
}

// -----

func.func @i1_tile(%a: tensor<64x8xi1>) {
  // expected-error @below {{'tile.cumsum' op cannot accumulate an i1 tile}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<64x8xi1>
  return
}

// -----

func.func @index_tile(%a: tensor<64xindex>) {
  // expected-error @below {{'tile.cumsum' op needs a float or integer tile, got 'tensor<64xindex>'}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<64xindex>
  return
}

// -----

func.func @signed_integer_tile(%a: tensor<64xsi32>) {
  // expected-error @below {{'tile.cumsum' op needs a float or integer tile, got 'tensor<64xsi32>'}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<64xsi32>
  return
}

// -----

func.func @complex_tile(%a: tensor<64xcomplex<f32>>) {
  // expected-error @below {{'tile.cumsum' op needs a float or integer tile, got 'tensor<64xcomplex<f32>>'}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<64xcomplex<f32>>
  return
}

// -----

func.func @result_type_differs(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.cumsum' op requires the same type for all operands and results}}
  %s = "tile.cumsum"(%a) <{axis = 0 : i64}> : (tensor<64x8xf32>) -> tensor<64x8xf16>
  return
}

// -----

func.func @non_power_of_two(%a: tensor<48xf32>) {
  // expected-error @below {{'tile.cumsum' op tile dimensions must be powers of two, got 48}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<48xf32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?x8xf32>) {
  // expected-error @below {{'tile.cumsum' op tile must have a static shape, got 'tensor<?x8xf32>'}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<?x8xf32>
  return
}

// -----

func.func @reverse_not_bool(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.cumsum' op attribute 'reverse' failed to satisfy constraint: bool attribute}}
  %s = tile.cumsum %a {axis = 0 : i64, reverse = 1} : tensor<64xf32>
  return
}
