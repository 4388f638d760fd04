// RUN: tessel-opt %s | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Every op written in the generic form parses and prints in its custom form;
// printed generically, inherent attributes are properties (`<{...}>`).

// CHECK-LABEL: func.func @all_ops
// GENERIC-LABEL: sym_name = "all_ops"
func.func @all_ops(%x: !tile.view<?x?xf32>, %a: tensor<16x8xbf16>, %b: tensor<8x16xbf16>, %c: tensor<16x16xf32>) {
  // CHECK: %[[PID:.*]] = tile.program_id 1
  // GENERIC: "tile.program_id"() <{dim = 1 : i64}> : () -> i32
  %pid = "tile.program_id"() <{dim = 1 : i64}> : () -> i32
  // CHECK: tile.num_programs 2
  // GENERIC: "tile.num_programs"() <{dim = 2 : i64}> : () -> i32
  %np = "tile.num_programs"() <{dim = 2 : i64}> : () -> i32
  // CHECK: tile.dim %{{.*}}, 1 : !tile.view<?x?xf32>
  // GENERIC: "tile.dim"(%{{.*}}) <{dim = 1 : i64}> : (!tile.view<?x?xf32>) -> i32
  %d = "tile.dim"(%x) <{dim = 1 : i64}> : (!tile.view<?x?xf32>) -> i32
  // CHECK: %[[T:.*]] = tile.load %{{.*}}[%[[PID]], %[[PID]]] {latency = 2 : i64, padding = #tile<padding nan>} : !tile.view<?x?xf32> -> tensor<16x16xf32>
  // GENERIC: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}) <{latency = 2 : i64, padding = #tile<padding nan>}> : (!tile.view<?x?xf32>, i32, i32) -> tensor<16x16xf32>
  %t = "tile.load"(%x, %pid, %pid) <{padding = #tile<padding nan>, latency = 2 : i64}> : (!tile.view<?x?xf32>, i32, i32) -> tensor<16x16xf32>
  // CHECK: %[[M:.*]] = tile.mma %{{.*}}, %{{.*}}, %[[T]] {precision = #tile<precision bf16>} : tensor<16x8xbf16>, tensor<8x16xbf16>, tensor<16x16xf32>
  // GENERIC: "tile.mma"(%{{.*}}, %{{.*}}, %{{.*}}) <{precision = #tile<precision bf16>}> : (tensor<16x8xbf16>, tensor<8x16xbf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = "tile.mma"(%a, %b, %t) <{precision = #tile<precision bf16>}> : (tensor<16x8xbf16>, tensor<8x16xbf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: %[[S:.*]] = tile.cumsum %[[M]] {axis = 1 : i64, reverse = true} : tensor<16x16xf32>
  // GENERIC: "tile.cumsum"(%{{.*}}) <{axis = 1 : i64, reverse = true}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = "tile.cumsum"(%m) <{axis = 1 : i64, reverse = true}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: %[[R:.*]] = tile.reduce sum %[[S]] {axis = 0 : i64} : tensor<16x16xf32> -> tensor<16xf32>
  // GENERIC: "tile.reduce"(%{{.*}}) <{axis = 0 : i64, kind = #tile<reduce_kind sum>}> : (tensor<16x16xf32>) -> tensor<16xf32>
  %r = "tile.reduce"(%s) <{axis = 0 : i64, kind = #tile<reduce_kind sum>}> : (tensor<16x16xf32>) -> tensor<16xf32>
  // CHECK: %[[BC:.*]] = tile.broadcast %[[R]] : tensor<16xf32> -> tensor<16x16xf32>
  // GENERIC: "tile.broadcast"(%{{.*}}) : (tensor<16xf32>) -> tensor<16x16xf32>
  %bc = "tile.broadcast"(%r) : (tensor<16xf32>) -> tensor<16x16xf32>
  // CHECK: %[[P:.*]] = tile.permute %[[BC]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  // GENERIC: "tile.permute"(%{{.*}}) <{perm = array<i64: 1, 0>}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %p = "tile.permute"(%bc) <{perm = array<i64: 1, 0>}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: %[[RS:.*]] = tile.reshape %[[P]] : tensor<16x16xf32> -> tensor<256xf32>
  // GENERIC: "tile.reshape"(%{{.*}}) : (tensor<16x16xf32>) -> tensor<256xf32>
  %rs = "tile.reshape"(%p) : (tensor<16x16xf32>) -> tensor<256xf32>
  // CHECK: tile.iota {axis = 0 : i64} : tensor<256xi32>
  // GENERIC: "tile.iota"() <{axis = 0 : i64}> : () -> tensor<256xi32>
  %i = "tile.iota"() <{axis = 0 : i64}> : () -> tensor<256xi32>
  // CHECK: tile.store %[[RS]], %{{.*}}[%[[PID]], %[[PID]]] {squeeze = array<i64: 0>} : tensor<256xf32>, !tile.view<?x?xf32>
  // GENERIC: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{squeeze = array<i64: 0>}> : (tensor<256xf32>, !tile.view<?x?xf32>, i32, i32) -> ()
  "tile.store"(%rs, %x, %pid, %pid) <{squeeze = array<i64: 0>}> : (tensor<256xf32>, !tile.view<?x?xf32>, i32, i32) -> ()
  return
}

// The generic form may also give inherent attributes in the attribute dictionary.
// CHECK-LABEL: func.func @attr_dict_spelling
// GENERIC-LABEL: sym_name = "attr_dict_spelling"
func.func @attr_dict_spelling() -> tensor<8xi32> {
  // CHECK: tile.iota {axis = 0 : i64} : tensor<8xi32>
  // GENERIC: "tile.iota"() <{axis = 0 : i64}> : () -> tensor<8xi32>
  %i = "tile.iota"() {axis = 0 : i64} : () -> tensor<8xi32>
  return %i : tensor<8xi32>
}
