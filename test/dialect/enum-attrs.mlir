// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// The three enum attributes of the dialect, spelled #tile<mnemonic value>, also
// parse and print on their own (here as discardable attributes of a foreign op).

// CHECK-LABEL: func.func @paddings
// CHECK: test.paddings = [#tile<padding zero>, #tile<padding neg_inf>, #tile<padding nan>]
func.func @paddings() {
  func.return {test.paddings = [#tile<padding zero>, #tile<padding neg_inf>, #tile<padding nan>]}
}

// CHECK-LABEL: func.func @precisions
// CHECK: test.precisions = [#tile<precision bf16>, #tile<precision f16>, #tile<precision tf32>]
func.func @precisions() {
  func.return {test.precisions = [#tile<precision bf16>, #tile<precision f16>, #tile<precision tf32>]}
}

// CHECK-LABEL: func.func @reduce_kinds
// CHECK: test.kinds = [#tile<reduce_kind sum>, #tile<reduce_kind max>, #tile<reduce_kind min>]
func.func @reduce_kinds() {
  func.return {test.kinds = [#tile<reduce_kind sum>, #tile<reduce_kind max>, #tile<reduce_kind min>]}
}

// Hints, too, are an ordinary attribute away from a kernel function.
// CHECK-LABEL: func.func @hints_value
// CHECK: test.hints = #tile.hints<{sm_90a = {num_warps = 8 : i64}}>
func.func @hints_value() {
  func.return {test.hints = #tile.hints<{sm_90a = {num_warps = 8}}>}
}
