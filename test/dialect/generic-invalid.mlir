// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// ODS-level checks seen through the generic form: op names, operand and result
// counts and types, property types.

func.func @unknown_op() {
  // expected-error @below {{custom op 'tile.transpose' is unknown}}
  %t = tile.transpose
  return
}

// -----

func.func @unregistered_generic_op() {
  // expected-error @below {{unregistered operation 'tile.transpose' found in dialect ('tile') that does not allow unknown operations}}
  "tile.transpose"() : () -> ()
  return
}

// -----

func.func @cumsum_two_operands(%a: tensor<8xf32>) {
  // expected-error @below {{'tile.cumsum' op requires a single operand}}
  %s = "tile.cumsum"(%a, %a) <{axis = 0 : i64}> : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @permute_no_result(%a: tensor<8xf32>) {
  // expected-error @below {{'tile.permute' op requires one result}}
  "tile.permute"(%a) <{perm = array<i64: 0>}> : (tensor<8xf32>) -> ()
  return
}

// -----

func.func @broadcast_unranked(%a: tensor<*xf32>) {
  // expected-error @below {{'tile.broadcast' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %b = "tile.broadcast"(%a) : (tensor<*xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @reshape_memref(%a: memref<8xf32>) {
  // expected-error @below {{'tile.reshape' op operand #0 must be ranked tensor of any type values, but got 'memref<8xf32>'}}
  %b = "tile.reshape"(%a) : (memref<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @iota_vector_result() {
  // expected-error @below {{'tile.iota' op result #0 must be ranked tensor of any type values, but got 'vector<8xi32>'}}
  %i = "tile.iota"() <{axis = 0 : i64}> : () -> vector<8xi32>
  return
}

// -----

func.func @load_padding_property_type(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{invalid properties {padding = 0 : i32} for op tile.load: Invalid attribute `padding` in property conversion: 0 : i32}}
  %t = "tile.load"(%x, %i) <{padding = 0 : i32}> : (!tile.view<?xf32>, i32) -> tensor<8xf32>
  return
}

// -----

func.func @load_latency_property_out_of_range(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{'tile.load' op attribute 'latency' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 10}}
  %t = "tile.load"(%x, %i) <{latency = 12 : i64}> : (!tile.view<?xf32>, i32) -> tensor<8xf32>
  return
}

// -----

func.func @mma_precision_property_type(%a: tensor<8x8xbf16>, %c: tensor<8x8xf32>) {
  // expected-error @below {{invalid properties {precision = "bf16"} for op tile.mma: Invalid attribute `precision` in property conversion: "bf16"}}
  %d = "tile.mma"(%a, %a, %c) <{precision = "bf16"}> : (tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @iota_axis_property_type() {
  // expected-error @below {{invalid properties {axis = "0"} for op tile.iota: Invalid attribute `axis` in property conversion: "0"}}
  %i = "tile.iota"() <{axis = "0"}> : () -> tensor<8xi32>
  return
}

// -----

func.func @store_squeeze_property_type(%x: !tile.view<?x?xf32>, %t: tensor<8xf32>, %i: i32) {
  // expected-error @below {{invalid properties {squeeze = [0]} for op tile.store: Invalid attribute `squeeze` in property conversion: [0]}}
  "tile.store"(%t, %x, %i, %i) <{squeeze = [0]}> : (tensor<8xf32>, !tile.view<?x?xf32>, i32, i32) -> ()
  return
}

// -----

func.func @program_id_with_region() {
  // expected-error @below {{'tile.program_id' op requires zero regions}}
  %p = "tile.program_id"() <{dim = 0 : i64}> ({
  }) : () -> i32
  return
}
