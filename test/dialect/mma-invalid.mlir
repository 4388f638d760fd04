// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @k_mismatch(%a: tensor<64x16xbf16>, %b: tensor<32x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op inner dimensions do not agree: a is 64x16 (MxK) and b is 32x32 (KxN), K 16 vs 32}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<32x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @acc_shape_n_mismatch(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @below {{'tile.mma' op accumulator is 64x64 but a (64x16) times b (16x32) is 64x32}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x64xf32>
  return
}

// -----

func.func @acc_shape_m_mismatch(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<32x32xf32>) {
  // expected-error @below {{'tile.mma' op accumulator is 32x32 but a (64x16) times b (16x32) is 64x32}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<32x32xf32>
  return
}

// -----

func.func @acc_transposed(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<32x64xf32>) {
  // expected-error @below {{'tile.mma' op accumulator is 32x64 but a (64x16) times b (16x32) is 64x32}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<32x64xf32>
  return
}

// -----

func.func @acc_not_f32(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf16>) {
  // expected-error @below {{'tile.mma' op accumulator must be f32, got 'f16'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf16>
  return
}

// -----

func.func @acc_f64(%a: tensor<64x8xf32>, %b: tensor<8x32xf32>, %c: tensor<64x32xf64>) {
  // expected-error @below {{'tile.mma' op accumulator must be f32, got 'f64'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision tf32>} : tensor<64x8xf32>, tensor<8x32xf32>, tensor<64x32xf64>
  return
}

// -----

func.func @operand_types_differ(%a: tensor<64x16xbf16>, %b: tensor<16x32xf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op operand element types differ: a is 'bf16', b is 'f16'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xf16>, tensor<64x32xf32>
  return
}

// -----

func.func @a_not_2d(%a: tensor<64xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op operand a must be a 2-D tile, got 'tensor<64xbf16>'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @b_not_2d(%a: tensor<64x16xbf16>, %b: tensor<2x16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op operand b must be a 2-D tile, got 'tensor<2x16x32xbf16>'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<2x16x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @acc_not_2d(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<f32>) {
  // expected-error @below {{'tile.mma' op accumulator must be a 2-D tile, got 'tensor<f32>'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<f32>
  return
}

// -----

func.func @result_type_differs_from_acc(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op failed to verify that all of {acc, result} have same type}}
  %d = "tile.mma"(%a, %b, %c) <{precision = #tile<precision bf16>}> : (tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>) -> tensor<64x16xf32>
  return
}

// -----

func.func @missing_precision(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op requires attribute 'precision'}}
  %d = tile.mma %a, %b, %c : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @too_few_operands(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>) {
  // expected-error @below {{'tile.mma' op expected 3 operands, but found 2}}
  %d = "tile.mma"(%a, %b) <{precision = #tile<precision bf16>}> : (tensor<64x16xbf16>, tensor<16x32xbf16>) -> tensor<64x32xf32>
  return
}
