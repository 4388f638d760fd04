// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// !tile.view: sizes (static or ?), element type, and the optional `align` and
// `unit_stride` facts, always printed in that order.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: !tile.view<?xf32>
// CHECK-SAME: !tile.view<?x?xbf16>
// CHECK-SAME: !tile.view<?x?x?x?xi8>
func.func @dynamic(%a: !tile.view<?xf32>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?x?x?xi8>) {
  return
}

// CHECK-LABEL: func.func @static_and_mixed
// CHECK-SAME: !tile.view<1024xf16>
// CHECK-SAME: !tile.view<?x64x?xf32>
// CHECK-SAME: !tile.view<0xi32>
func.func @static_and_mixed(%a: !tile.view<1024xf16>, %b: !tile.view<?x64x?xf32>, %c: !tile.view<0xi32>) {
  return
}

// Every element type a view may hold.
// CHECK-LABEL: func.func @element_types
// CHECK-SAME: !tile.view<?xbf16>, %{{.*}}: !tile.view<?xf16>, %{{.*}}: !tile.view<?xf32>, %{{.*}}: !tile.view<?xf64>
// CHECK-SAME: !tile.view<?xi8>, %{{.*}}: !tile.view<?xi16>, %{{.*}}: !tile.view<?xi32>, %{{.*}}: !tile.view<?xi64>
func.func @element_types(%a: !tile.view<?xbf16>, %b: !tile.view<?xf16>, %c: !tile.view<?xf32>, %d: !tile.view<?xf64>,
                         %e: !tile.view<?xi8>, %f: !tile.view<?xi16>, %g: !tile.view<?xi32>, %h: !tile.view<?xi64>) {
  return
}

// `unit_stride` before `align` is accepted and printed after it; `align = 0`
// means "no alignment fact" and is not printed.
// CHECK-LABEL: func.func @facts
// CHECK-SAME: !tile.view<?x?xf32, align = 16, unit_stride>
// CHECK-SAME: !tile.view<?x?xf32, align = 16, unit_stride>
// CHECK-SAME: !tile.view<?xbf16, unit_stride>
// CHECK-SAME: !tile.view<?xf32>
func.func @facts(%a: !tile.view<?x?xf32, align = 16, unit_stride>, %b: !tile.view<?x?xf32, unit_stride, align = 16>,
                 %c: !tile.view<?xbf16, unit_stride>, %d: !tile.view<?xf32, align = 0>) {
  return
}

// Alignment bounds: the element size up to 256 bytes.
// CHECK-LABEL: func.func @align_bounds
// CHECK-SAME: !tile.view<?xi8, align = 1>
// CHECK-SAME: !tile.view<?xf64, align = 8>
// CHECK-SAME: !tile.view<?xf16, align = 256>
func.func @align_bounds(%a: !tile.view<?xi8, align = 1>, %b: !tile.view<?xf64, align = 8>, %c: !tile.view<?xf16, align = 256>) {
  return
}

// Views are ordinary SSA types: they flow through calls and scf.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%[[V:.*]]: !tile.view<?x?xf32, align = 16>) -> !tile.view<?x?xf32, align = 16>
// CHECK: return %[[V]] : !tile.view<?x?xf32, align = 16>
func.func @callee(%v: !tile.view<?x?xf32, align = 16>) -> !tile.view<?x?xf32, align = 16> {
  return %v : !tile.view<?x?xf32, align = 16>
}
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%{{.*}}: !tile.view<?x?xf32, align = 16>)
// CHECK: call @callee(%{{.*}}) : (!tile.view<?x?xf32, align = 16>) -> !tile.view<?x?xf32, align = 16>
func.func @caller(%v: !tile.view<?x?xf32, align = 16>) {
  %0 = func.call @callee(%v) : (!tile.view<?x?xf32, align = 16>) -> !tile.view<?x?xf32, align = 16>
  return
}
