// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @unknown_kind(%a: tensor<64x8xf32>) {
  // expected-error @below {{expected reduction kind 'sum', 'max' or 'min', got 'prod'}}
  %r = tile.reduce prod %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @kind_is_case_sensitive(%a: tensor<64x8xf32>) {
  // expected-error @below {{expected reduction kind 'sum', 'max' or 'min', got 'MAX'}}
  %r = tile.reduce MAX %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @missing_kind(%a: tensor<64x8xf32>) {
  // expected-error @below {{expected valid keyword}}
  %r = tile.reduce %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// -----

// The old `%a, max` spelling is rejected.
func.func @kind_after_operand(%a: tensor<64x8xf32>) {
  // expected-error @below {{expected valid keyword}}
  %r = tile.reduce %a, max {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @missing_result_type(%a: tensor<64x8xf32>) {
  // expected-error @below {{expected '->'}}
  %r = tile.reduce sum %a {axis = 1 : i64} : tensor<64x8xf32>
  return
}

// -----

func.func @bad_reduce_kind_attr(%a: tensor<64x8xf32>) {
  // expected-error @below {{expected ::tessel::tile::ReduceKind to be one of: sum, max, min}}
  // expected-error @below {{failed to parse Tile_ReduceKindAttr parameter 'value' which is to be a `::tessel::tile::ReduceKind`}}
  %r = "tile.reduce"(%a) <{axis = 0 : i64, kind = #tile<reduce_kind mean>}> : (tensor<64x8xf32>) -> tensor<8xf32>
  return
}
