// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @unknown_attr_mnemonic() {
  // expected-error @below {{unknown attribute `layout` in dialect `tile`}}
  func.return {test.a = #tile<layout row_major>}
}

// -----

func.func @padding_keyword() {
  // expected-error @below {{expected ::tessel::tile::Padding to be one of: zero, neg_inf, nan}}
  // expected-error @below {{failed to parse Tile_PaddingAttr parameter 'value' which is to be a `::tessel::tile::Padding`}}
  func.return {test.a = #tile<padding pos_inf>}
}

// -----

func.func @precision_keyword() {
  // expected-error @below {{expected ::tessel::tile::Precision to be one of: bf16, f16, tf32}}
  // expected-error @below {{failed to parse Tile_PrecisionAttr parameter 'value' which is to be a `::tessel::tile::Precision`}}
  func.return {test.a = #tile<precision f32>}
}

// -----

func.func @reduce_kind_keyword() {
  // expected-error @below {{expected ::tessel::tile::ReduceKind to be one of: sum, max, min}}
  // expected-error @below {{failed to parse Tile_ReduceKindAttr parameter 'value' which is to be a `::tessel::tile::ReduceKind`}}
  func.return {test.a = #tile<reduce_kind prod>}
}

// -----

func.func @enum_as_integer() {
  // expected-error @below {{expected valid keyword or string}}
  // expected-error @below {{failed to parse Tile_PaddingAttr parameter 'value' which is to be a `::tessel::tile::Padding`}}
  func.return {test.a = #tile<padding 0>}
}

// -----

// The hints verifier runs wherever the attribute appears, not only on kernels.
func.func @hints_checked_everywhere() {
  // expected-error @below {{unknown target 'sm_75' in hints (known: sm_90a, sm_100a, sm_103a, default)}}
  func.return {test.hints = #tile.hints<{sm_75 = {}}>}
}
