// RUN: not tessel-opt %s -split-input-file 2>&1 | FileCheck %s

// Verifier errors are reported at the op's location: for traced kernels that is
// the DSL caller's file:line, not a line of the IR.

// CHECK: kernels/mamba2/chunk_scan.cpp:42:7: error: 'tile.mma' op inner dimensions do not agree: a is 64x16 (MxK) and b is 32x32 (KxN), K 16 vs 32
func.func @k(%a: tensor<64x16xbf16>, %b: tensor<32x32xbf16>, %c: tensor<64x32xf32>) {
  %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<32x32xbf16>, tensor<64x32xf32> loc("kernels/mamba2/chunk_scan.cpp":42:7)
  return
}

// -----

// Through a location alias, as printed with -mlir-print-debuginfo.
// CHECK: kernels/mamba2/ssd.cpp:10:3: error: 'tile.cumsum' op axis 2 is out of range for a rank-2 tile
#loc = loc("kernels/mamba2/ssd.cpp":10:3)
func.func @k(%a: tensor<64x8xf32>) {
  %s = tile.cumsum %a {axis = 2 : i64} : tensor<64x8xf32> loc(#loc)
  return
}

// -----

// A call-site location names the kernel line and, in a note, where it came from.
// CHECK: kernels/chunk.cpp:5:1: error: 'tile.load' op padding 'nan' needs a float element type, got 'i32'
// CHECK-NEXT: dsl/Tessel.h:100:2: note: called from
func.func @k(%x: !tile.view<?xi32>, %i: i32) {
  %t = tile.load %x[%i] {padding = #tile<padding nan>} : !tile.view<?xi32> -> tensor<16xi32> loc(callsite("kernels/chunk.cpp":5:1 at "dsl/Tessel.h":100:2))
  return
}

// -----

// Kernel-level attribute errors are reported at the kernel function.
// CHECK: kernels/bad_hints.cpp:3:1: error: 'tile.hints' must be a #tile.hints attribute
func.func @k() attributes {tile.hints = {default = {num_warps = 4}}} {
  return
} loc("kernels/bad_hints.cpp":3:1)

// -----

// The first error of a function stops its verification; each split is checked.
// CHECK: kernels/reshape.cpp:7:9: error: 'tile.reshape' op cannot reshape 64 (64 elements) to 8x4 (32 elements)
// CHECK-NOT: error:
func.func @k(%a: tensor<64xf32>) {
  %r = tile.reshape %a : tensor<64xf32> -> tensor<8x4xf32> loc("kernels/reshape.cpp":7:9)
  return
}
