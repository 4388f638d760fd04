// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// #tile.hints on kernel functions. Dictionary keys are printed sorted and
// integers with their type.

// The example of the attribute description.
// CHECK-LABEL: func.func @per_target
// CHECK-SAME: attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : i64}, sm_90a = {num_warps = 8 : i64, occupancy = 1 : i64}}>}
func.func @per_target() attributes {tile.hints = #tile.hints<{
    default = {num_warps = 4}, sm_90a = {num_warps = 8, occupancy = 1}}>} {
  return
}

// Every target key and every hint, at the edges of their ranges.
// CHECK-LABEL: func.func @all_targets
// CHECK-SAME: default = {num_stages = 1 : i64, num_warps = 1 : i64, occupancy = 1 : i64}
// CHECK-SAME: sm_100a = {cluster = array<i64: 2, 2, 2>, num_warps = 32 : i64}
// CHECK-SAME: sm_103a = {cluster = array<i64: 8>, num_stages = 8 : i64}
// CHECK-SAME: sm_90a = {cluster = array<i64: 2, 1>, occupancy = 32 : i64}
func.func @all_targets() attributes {tile.hints = #tile.hints<{
    sm_90a = {occupancy = 32, cluster = array<i64: 2, 1>},
    sm_100a = {num_warps = 32, cluster = array<i64: 2, 2, 2>},
    sm_103a = {num_stages = 8, cluster = array<i64: 8>},
    default = {num_warps = 1, occupancy = 1, num_stages = 1}}>} {
  return
}

// Empty dictionaries are allowed (no hints at all, or none for a target).
// CHECK-LABEL: func.func @empty
// CHECK-SAME: attributes {tile.hints = #tile.hints<{}>}
func.func @empty() attributes {tile.hints = #tile.hints<{}>} {
  return
}
// CHECK-LABEL: func.func @empty_target
// CHECK-SAME: attributes {tile.hints = #tile.hints<{sm_90a = {}}>}
func.func @empty_target() attributes {tile.hints = #tile.hints<{sm_90a = {}}>} {
  return
}

// Hints may be written with any signless integer type; the type is kept.
// CHECK-LABEL: func.func @typed_integers
// CHECK-SAME: #tile.hints<{default = {num_stages = 3 : i8, num_warps = 4 : i32}}>
func.func @typed_integers() attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : i32, num_stages = 3 : i8}}>} {
  return
}

// Hints sit next to other function attributes and on kernels with a body.
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: attributes {llvm.emit_c_interface, tile.hints = #tile.hints<{default = {num_warps = 8 : i64}}>}
// CHECK: tile.program_id 0
func.func @kernel(%x: !tile.view<?xf32>) attributes {llvm.emit_c_interface, tile.hints = #tile.hints<{default = {num_warps = 8}}>} {
  %pid = tile.program_id 0
  return
}

// An attribute alias of hints shared by two kernels.
#hints = #tile.hints<{default = {num_warps = 4}}>
// CHECK-LABEL: func.func @alias_a
// CHECK-SAME: tile.hints = #{{.*}}
func.func @alias_a() attributes {tile.hints = #hints} {
  return
}
