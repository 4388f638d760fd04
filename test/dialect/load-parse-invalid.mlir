// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// Syntax errors of the custom form.

func.func @missing_brackets(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{expected '['}}
  %t = tile.load %x %i : !tile.view<?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @missing_arrow(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{expected '->'}}
  %t = tile.load %x[%i] : !tile.view<?xf32> tensor<64xf32>
  return
}

// -----

func.func @unranked_result(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<*xf32>
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @view_type_mismatch(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{use of value '%x' expects different type than prior uses: '!tile.view<?xf16>' vs '!tile.view<?xf32>'}}
  %t = tile.load %x[%i] : !tile.view<?xf16> -> tensor<64xf16>
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @index_type_mismatch(%x: !tile.view<?xf32>, %i: index) {
  // expected-error @below {{use of value '%i' expects different type than prior uses: 'i32' vs 'index'}}
  %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<64xf32>
  return
}
