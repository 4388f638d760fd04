// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// neg_inf and nan exist only in float types.

func.func @neg_inf_on_integer_tile(%x: !tile.view<?x?xi32>, %i: i32) {
  // expected-error @below {{'tile.load' op padding 'neg_inf' needs a float element type, got 'i32'}}
  %t = tile.load %x[%i, %i] {padding = #tile<padding neg_inf>} : !tile.view<?x?xi32> -> tensor<64x16xi32>
  return
}

// -----

func.func @nan_on_integer_tile(%x: !tile.view<?xi8>, %i: i32) {
  // expected-error @below {{'tile.load' op padding 'nan' needs a float element type, got 'i8'}}
  %t = tile.load %x[%i] {padding = #tile<padding nan>} : !tile.view<?xi8> -> tensor<128xi8>
  return
}

// -----

func.func @neg_inf_on_i64_generic(%x: !tile.view<?xi64>, %i: i32) {
  // expected-error @below {{'tile.load' op padding 'neg_inf' needs a float element type, got 'i64'}}
  %t = "tile.load"(%x, %i) <{padding = #tile<padding neg_inf>}> : (!tile.view<?xi64>, i32) -> tensor<16xi64>
  return
}

// -----

func.func @bad_padding_keyword(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{expected ::tessel::tile::Padding to be one of: zero, neg_inf, nan}}
  // expected-error @below {{failed to parse Tile_PaddingAttr parameter 'value' which is to be a `::tessel::tile::Padding`}}
  %t = tile.load %x[%i] {padding = #tile<padding inf>} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @padding_keyword_is_case_sensitive(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{expected ::tessel::tile::Padding to be one of: zero, neg_inf, nan}}
  // expected-error @below {{failed to parse Tile_PaddingAttr parameter 'value' which is to be a `::tessel::tile::Padding`}}
  %t = tile.load %x[%i] {padding = #tile<padding NaN>} : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @padding_as_string(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'padding' failed to satisfy constraint: value of out-of-bounds elements of a load}}
  %t = tile.load %x[%i] {padding = "zero"} : !tile.view<?xf32> -> tensor<64xf32>
  return
}
