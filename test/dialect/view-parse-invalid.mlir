// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// Syntax errors of !tile.view.

// expected-error @below {{expected 'align' or 'unit_stride', got 'aligned'}}
func.func @unknown_keyword(%x: !tile.view<?xf32, aligned = 16>) {
  return
}

// -----

// expected-error @below {{expected 'align' or 'unit_stride', got 'contiguous'}}
func.func @unknown_fact(%x: !tile.view<?xf32, contiguous>) {
  return
}

// -----

// expected-error @below {{'align' is given twice}}
func.func @align_twice(%x: !tile.view<?xf32, align = 16, align = 32>) {
  return
}

// -----

// expected-error @below {{'unit_stride' is given twice}}
func.func @unit_stride_twice(%x: !tile.view<?xf32, unit_stride, unit_stride>) {
  return
}

// -----

// expected-error @below {{expected '='}}
func.func @align_without_value(%x: !tile.view<?xf32, align>) {
  return
}

// -----

// expected-error @below {{expected integer value}}
func.func @align_not_integer(%x: !tile.view<?xf32, align = x>) {
  return
}

// -----

// expected-error @below {{expected '<'}}
func.func @no_parameters(%x: !tile.view) {
  return
}

// -----

// expected-error @below {{unbalanced '<' character in pretty dialect name}}
func.func @unterminated(%x: !tile.view<?xf32 {
  return
}

// -----

// Strides are not part of the type (they are kernel arguments).
// expected-error @below {{expected '>'}}
func.func @strides_not_in_type(%x: !tile.view<?x?xf32 strides [1, ?]>) {
  return
}

// -----

// expected-error @below {{expected non-function type}}
func.func @negative_size(%x: !tile.view<-1xf32>) {
  return
}

// -----

// expected-error @below {{unknown  type `tile` in dialect `tile`}}
func.func @unknown_type(%x: !tile.tile<?xf32>) {
  return
}
