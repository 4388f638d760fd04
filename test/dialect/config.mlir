// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// tile.config records the compile-time constants a kernel was traced with.

// CHECK-LABEL: func.func @traced
// CHECK-SAME: attributes {tile.config = {BLOCK_M = 64 : i64, CAUSAL = 1 : i64}, tile.hints = #tile.hints<{default = {num_warps = 4 : i64}}>}
func.func @traced() attributes {tile.config = {CAUSAL = 1, BLOCK_M = 64}, tile.hints = #tile.hints<{default = {num_warps = 4}}>} {
  return
}

// CHECK-LABEL: func.func @empty_config
// CHECK-SAME: attributes {tile.config = {}}
func.func @empty_config() attributes {tile.config = {}} {
  return
}
