// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// `tile.name` records a kernel parameter's name (for the generated launcher).

// CHECK-LABEL: func.func @named
// CHECK-SAME: (%{{.*}}: !tile.view<?x?xbf16> {tile.name = "x"}, %{{.*}}: !tile.view<?x?xf32> {tile.name = "out"}, %{{.*}}: i32 {tile.name = "n"})
func.func @named(%x: !tile.view<?x?xbf16> {tile.name = "x"}, %out: !tile.view<?x?xf32> {tile.name = "out"},
                 %n: i32 {tile.name = "n"}) {
  return
}

// Some parameters named, some not; other argument attributes are kept.
// CHECK-LABEL: func.func @partly_named
// CHECK-SAME: (%{{.*}}: !tile.view<?xf32> {llvm.noalias, tile.name = "a"}, %{{.*}}: f32)
func.func @partly_named(%a: !tile.view<?xf32> {tile.name = "a", llvm.noalias}, %s: f32) {
  return
}

// Any string is accepted, even an empty one (the launcher validates names).
// CHECK-LABEL: func.func @odd_names
// CHECK-SAME: {tile.name = ""}
// CHECK-SAME: {tile.name = "x y"}
func.func @odd_names(%a: i32 {tile.name = ""}, %b: i32 {tile.name = "x y"}) {
  return
}

// Together with kernel hints.
// CHECK-LABEL: func.func @with_hints
// CHECK-SAME: (%{{.*}}: !tile.view<?xf16> {tile.name = "q"}) attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : i64}}>}
func.func @with_hints(%q: !tile.view<?xf16> {tile.name = "q"}) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}}>} {
  return
}
