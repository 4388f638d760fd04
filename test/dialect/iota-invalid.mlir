// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @float_tile() {
  // expected-error @below {{'tile.iota' op needs a signless integer tile (i8..i64), got 'f32'}}
  %i = tile.iota {axis = 0 : i64} : tensor<64xf32>
  return
}

// -----

func.func @i1_tile() {
  // expected-error @below {{'tile.iota' op needs a signless integer tile (i8..i64), got 'i1'}}
  %i = tile.iota {axis = 0 : i64} : tensor<2xi1>
  return
}

// -----

func.func @index_tile() {
  // expected-error @below {{'tile.iota' op needs a signless integer tile (i8..i64), got 'index'}}
  %i = tile.iota {axis = 0 : i64} : tensor<64xindex>
  return
}

// -----

func.func @unsigned_tile() {
  // expected-error @below {{'tile.iota' op needs a signless integer tile (i8..i64), got 'ui32'}}
  %i = tile.iota {axis = 0 : i64} : tensor<64xui32>
  return
}

// -----

func.func @odd_width_tile() {
  // expected-error @below {{'tile.iota' op needs a signless integer tile (i8..i64), got 'i4'}}
  %i = tile.iota {axis = 0 : i64} : tensor<8xi4>
  return
}

// -----

func.func @wide_tile() {
  // expected-error @below {{'tile.iota' op needs a signless integer tile (i8..i64), got 'i128'}}
  %i = tile.iota {axis = 0 : i64} : tensor<8xi128>
  return
}

// -----

// The values 0..255 do not fit in a signed i8.
func.func @overflow_i8() {
  // expected-error @below {{'tile.iota' op values up to 255 do not fit in 'i8'}}
  %i = tile.iota {axis = 0 : i64} : tensor<256xi8>
  return
}

// -----

// Only the extent along the axis matters (see iota.mlir for 256x2 along axis 1).
func.func @overflow_along_axis() {
  // expected-error @below {{'tile.iota' op values up to 255 do not fit in 'i8'}}
  %i = tile.iota {axis = 1 : i64} : tensor<2x256xi8>
  return
}

// -----

func.func @overflow_i16() {
  // expected-error @below {{'tile.iota' op values up to 65535 do not fit in 'i16'}}
  %i = tile.iota {axis = 0 : i64} : tensor<65536xi16>
  return
}

// -----

func.func @axis_out_of_range() {
  // expected-error @below {{'tile.iota' op axis 1 is out of range for a rank-1 tile}}
  %i = tile.iota {axis = 1 : i64} : tensor<128xi32>
  return
}

// -----

func.func @rank0() {
  // expected-error @below {{'tile.iota' op axis 0 is out of range for a rank-0 tile}}
  %i = tile.iota {axis = 0 : i64} : tensor<i32>
  return
}

// -----

func.func @axis_negative() {
  // expected-error @below {{'tile.iota' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %i = tile.iota {axis = -1 : i64} : tensor<128xi32>
  return
}

// -----

func.func @missing_axis() {
  // expected-error @below {{'tile.iota' op requires attribute 'axis'}}
  %i = tile.iota : tensor<128xi32>
  return
}

// -----

func.func @non_power_of_two() {
  // expected-error @below {{'tile.iota' op result tile dimensions must be powers of two, got 100}}
  %i = tile.iota {axis = 0 : i64} : tensor<100xi32>
  return
}

// -----

func.func @dynamic_shape() {
  // expected-error @below {{'tile.iota' op result tile must have a static shape, got 'tensor<?xi32>'}}
  %i = tile.iota {axis = 0 : i64} : tensor<?xi32>
  return
}
