// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// Tiles have static shapes whose dimensions are powers of two; every op that
// takes or makes a tile checks it and names the tile in the message.

func.func @load_result(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op result tile dimensions must be powers of two, got 48x16}}
  %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<48x16xf32>
  return
}

// -----

func.func @load_result_dynamic(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op result tile must have a static shape, got 'tensor<?x16xf32>'}}
  %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<?x16xf32>
  return
}

// -----

// 0 is not a power of two: empty tiles are rejected.
func.func @load_result_zero(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op result tile dimensions must be powers of two, got 0x16}}
  %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<0x16xf32>
  return
}

// -----

// The shape is checked before the addressing (3 dims vs a rank-2 view).
func.func @shape_checked_first(%x: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op result tile dimensions must be powers of two, got 5x2x2}}
  %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<5x2x2xf32>
  return
}

// -----

func.func @store_value(%x: !tile.view<?xf32>, %t: tensor<96xf32>, %i: i32) {
  // expected-error @below {{'tile.store' op stored tile dimensions must be powers of two, got 96}}
  tile.store %t, %x[%i] : tensor<96xf32>, !tile.view<?xf32>
  return
}

// -----

func.func @mma_a(%a: tensor<48x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<48x32xf32>) {
  // expected-error @below {{'tile.mma' op operand a dimensions must be powers of two, got 48x16}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<48x16xbf16>, tensor<16x32xbf16>, tensor<48x32xf32>
  return
}

// -----

func.func @mma_b(%a: tensor<64x16xbf16>, %b: tensor<16x?xbf16>, %c: tensor<64x32xf32>) {
  // expected-error @below {{'tile.mma' op operand b must have a static shape, got 'tensor<16x?xbf16>'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x?xbf16>, tensor<64x32xf32>
  return
}

// -----

func.func @mma_acc(%a: tensor<64x16xbf16>, %b: tensor<16x24xbf16>, %c: tensor<64x24xf32>) {
  // expected-error @below {{'tile.mma' op operand b dimensions must be powers of two, got 16x24}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x24xbf16>, tensor<64x24xf32>
  return
}

// -----

func.func @mma_acc_dynamic(%a: tensor<64x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<?x32xf32>) {
  // expected-error @below {{'tile.mma' op accumulator must have a static shape, got 'tensor<?x32xf32>'}}
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<?x32xf32>
  return
}

// -----

func.func @cumsum(%a: tensor<64x7xf32>) {
  // expected-error @below {{'tile.cumsum' op tile dimensions must be powers of two, got 64x7}}
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<64x7xf32>
  return
}

// -----

func.func @reduce(%a: tensor<?x?xf32>) {
  // expected-error @below {{'tile.reduce' op source tile must have a static shape, got 'tensor<?x?xf32>'}}
  %r = tile.reduce sum %a {axis = 0 : i64} : tensor<?x?xf32> -> tensor<?xf32>
  return
}

// -----

func.func @permute(%a: tensor<3x4xf32>) {
  // expected-error @below {{'tile.permute' op source tile dimensions must be powers of two, got 3x4}}
  %t = tile.permute %a [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_result(%a: tensor<1xf32>) {
  // expected-error @below {{'tile.broadcast' op result tile dimensions must be powers of two, got 10}}
  %b = tile.broadcast %a : tensor<1xf32> -> tensor<10xf32>
  return
}

// -----

func.func @reshape_source(%a: tensor<6xf32>) {
  // expected-error @below {{'tile.reshape' op source tile dimensions must be powers of two, got 6}}
  %r = tile.reshape %a : tensor<6xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @iota(%a: tensor<6xf32>) {
  // expected-error @below {{'tile.iota' op result tile dimensions must be powers of two, got 4x12}}
  %i = tile.iota {axis = 0 : i64} : tensor<4x12xi32>
  return
}

// -----

// Element counts are exact int64 products: 2^32 x 2^32 elements overflow.
func.func @too_many_elements(%a: tensor<4294967296x4294967296xf32>) {
  // expected-error @below {{'tile.reshape' op source tile has too many elements, got 4294967296x4294967296}}
  %r = tile.reshape %a : tensor<4294967296x4294967296xf32> -> tensor<2x4294967296x4294967296xf32>
  return
}

// -----

func.func @broadcast_too_many_elements(%a: tensor<1x4xf32>) {
  // expected-error @below {{'tile.broadcast' op result tile has too many elements, got 4611686018427387904x4}}
  %b = tile.broadcast %a : tensor<1x4xf32> -> tensor<4611686018427387904x4xf32>
  return
}
