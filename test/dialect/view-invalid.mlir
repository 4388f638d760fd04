// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// The !tile.view verifier.

// expected-error @below {{a view needs rank >= 1}}
func.func @rank0(%x: !tile.view<f32>) {
  return
}

// -----

// expected-error @below {{view element type must be bf16, f16, f32, f64, i8, i16, i32 or i64, got 'i1'}}
func.func @i1_elements(%x: !tile.view<?xi1>) {
  return
}

// -----

// expected-error @below {{view element type must be bf16, f16, f32, f64, i8, i16, i32 or i64, got 'index'}}
func.func @index_elements(%x: !tile.view<?xindex>) {
  return
}

// -----

// expected-error @below {{view element type must be bf16, f16, f32, f64, i8, i16, i32 or i64, got 'ui8'}}
func.func @unsigned_elements(%x: !tile.view<?xui8>) {
  return
}

// -----

// expected-error @below {{view element type must be bf16, f16, f32, f64, i8, i16, i32 or i64, got 'f8E4M3FN'}}
func.func @fp8_elements(%x: !tile.view<?xf8E4M3FN>) {
  return
}

// -----

// expected-error @below {{view element type must be bf16, f16, f32, f64, i8, i16, i32 or i64, got 'vector<4xf32>'}}
func.func @vector_elements(%x: !tile.view<?xvector<4xf32>>) {
  return
}

// -----

// expected-error @below {{view element type must be bf16, f16, f32, f64, i8, i16, i32 or i64, got '!tile.view<?xf32>'}}
func.func @nested_view(%x: !tile.view<?x!tile.view<?xf32>>) {
  return
}

// -----

// expected-error @below {{view alignment must be a power of two between the element size (4 bytes) and 256, got 2}}
func.func @align_below_element_size(%x: !tile.view<?xf32, align = 2>) {
  return
}

// -----

// expected-error @below {{view alignment must be a power of two between the element size (2 bytes) and 256, got 24}}
func.func @align_not_power_of_two(%x: !tile.view<?xbf16, align = 24>) {
  return
}

// -----

// expected-error @below {{view alignment must be a power of two between the element size (1 bytes) and 256, got 512}}
func.func @align_too_large(%x: !tile.view<?xi8, align = 512>) {
  return
}

// -----

// expected-error @below {{view alignment must be a power of two between the element size (8 bytes) and 256, got -8}}
func.func @align_negative(%x: !tile.view<?xf64, align = -8>) {
  return
}
