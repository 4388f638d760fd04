// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// A tile's encoding is its tilegpu layout or none: another dialect's passed
// every verifier, the passes left it alone, and the lowering then said the
// tile had no layout ("run --tilegpu-assign-layouts first") after that pass
// had run.

func.func @string_encoding(%a: !tile.view<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tile.load' op result tile has the encoding "weird", which is not a tilegpu layout}}
  %x = tile.load %a[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32, "weird">
  return
}
