// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// `precision` names the operand format; it must match the operands.

func.func @bf16_with_f16_operands(%a: tensor<64x16xf16>, %b: tensor<16x32xf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op precision 'bf16' needs 'bf16' operands, got 'f16'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xf16>, tensor<16x32xf16>, tensor<64x32xf32>
  return
}

// -----

func.func @bf16_with_f32_operands(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op precision 'bf16' needs 'bf16' operands, got 'f32'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xf32>, tensor<16x32xf32>, tensor<64x32xf32>
  return
}

// -----

func.func @f16_with_bf16_operands(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op precision 'f16' needs 'f16' operands, got 'bf16'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision f16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @f16_with_f32_operands(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op precision 'f16' needs 'f16' operands, got 'f32'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision f16>} : tensor<64x16xf32>, tensor<16x32xf32>, tensor<64x32xf32>
  return
}

// -----

func.func @tf32_with_bf16_operands(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op precision 'tf32' needs 'f32' operands, got 'bf16'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision tf32>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @tf32_with_f64_operands(%a: tensor<64x16xf64>, %b: tensor<16x32xf64>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op precision 'tf32' needs 'f32' operands, got 'f64'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision tf32>} : tensor<64x16xf64>, tensor<16x32xf64>, tensor<64x32xf32>
  return
}

// -----

// Integer tensor-core products are not supported (no precision names them).
func.func @integer_operands(%a: tensor<64x16xi8>, %b: tensor<16x32xi8>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op precision 'bf16' needs 'bf16' operands, got 'i8'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xi8>, tensor<16x32xi8>, tensor<64x32xf32>
  return
}

// -----

func.func @bad_precision_keyword(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{expected ::tessel::tile::Precision to be one of: bf16, f16, tf32}}
  // expected-error @below {{failed to parse Tile_PrecisionAttr parameter 'value' which is to be a `::tessel::tile::Precision`}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision fp8>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @precision_not_enum(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op attribute 'precision' failed to satisfy constraint: tensor-core operand precision}}
  %d = tile.mma %a, %b, %c {precision = "bf16"} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @precision_wrong_enum(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op attribute 'precision' failed to satisfy constraint: tensor-core operand precision}}
  %d = tile.mma %a, %b, %c {precision = #tile<padding zero>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
  return
}
