// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @wrong_result_shape(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.reduce' op reducing 'tensor<64x8xf32>' along axis 1 gives 'tensor<64xf32>', not 'tensor<8xf32>'}}
  %r = tile.reduce sum %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<8xf32>
  return
}

// -----

// The reduced dimension is removed, not kept with extent 1.
func.func @keepdims_not_supported(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.reduce' op reducing 'tensor<64x8xf32>' along axis 1 gives 'tensor<64xf32>', not 'tensor<64x1xf32>'}}
  %r = tile.reduce sum %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64x1xf32>
  return
}

// -----

func.func @wrong_result_element_type(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.reduce' op reducing 'tensor<64x8xf32>' along axis 1 gives 'tensor<64xf32>', not 'tensor<64xf16>'}}
  %r = tile.reduce sum %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf16>
  return
}

// -----

func.func @rank1_to_rank1(%a: tensor<64xf32>) {
  // expected-error @below {{'tile.reduce' op reducing 'tensor<64xf32>' along axis 0 gives 'tensor<f32>', not 'tensor<1xf32>'}}
  %r = tile.reduce max %a {axis = 0 : i64} : tensor<64xf32> -> tensor<1xf32>
  return
}

// -----

func.func @axis_out_of_range(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.reduce' op axis 2 is out of range for a rank-2 tile}}
  %r = tile.reduce sum %a {axis = 2 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @axis_negative(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.reduce' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %r = tile.reduce sum %a {axis = -1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @rank0_source(%a: tensor<f32>) {
  // expected-error @below {{'tile.reduce' op axis 0 is out of range for a rank-0 tile}}
  %r = tile.reduce sum %a {axis = 0 : i64} : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @i1_tile(%a: tensor<64x8xi1>) {
  // expected-error @below {{'tile.reduce' op cannot accumulate an i1 tile}}
  %r = tile.reduce max %a {axis = 0 : i64} : tensor<64x8xi1> -> tensor<8xi1>
  return
}

// -----

func.func @index_tile(%a: tensor<64xindex>) {
  // expected-error @below {{'tile.reduce' op needs a float or integer tile, got 'tensor<64xindex>'}}
  %r = tile.reduce sum %a {axis = 0 : i64} : tensor<64xindex> -> tensor<index>
  return
}

// -----

func.func @non_power_of_two(%a: tensor<64x6xf32>) {
  // expected-error @below {{'tile.reduce' op source tile dimensions must be powers of two, got 64x6}}
  %r = tile.reduce sum %a {axis = 1 : i64} : tensor<64x6xf32> -> tensor<64xf32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<64x?xf32>) {
  // expected-error @below {{'tile.reduce' op source tile must have a static shape, got 'tensor<64x?xf32>'}}
  %r = tile.reduce sum %a {axis = 1 : i64} : tensor<64x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @missing_axis(%a: tensor<64x8xf32>) {
  // expected-error @below {{'tile.reduce' op requires attribute 'axis'}}
  %r = tile.reduce sum %a : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// -----

// In the generic form the kind is a property, converted by its C++ type.
func.func @kind_not_enum(%a: tensor<64x8xf32>) {
  // expected-error @below {{invalid properties {axis = 0 : i64, kind = "sum"} for op tile.reduce: Invalid attribute `kind` in property conversion: "sum"}}
  %r = "tile.reduce"(%a) <{axis = 0 : i64, kind = "sum"}> : (tensor<64x8xf32>) -> tensor<8xf32>
  return
}
