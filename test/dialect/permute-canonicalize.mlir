// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s

// permute(permute(x, p), q) is one permute of x by p[q[k]].
// CHECK-LABEL: func.func @compose
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>)
func.func @compose(%a: tensor<2x4x8xf32>) -> tensor<8x2x4xf32> {
  // CHECK: %[[P:.*]] = tile.permute %[[A]] [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  // CHECK-NOT: tile.permute
  // CHECK: return %[[P]]
  %0 = tile.permute %a [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %1 = tile.permute %0 [1, 2, 0] : tensor<4x8x2xf32> -> tensor<8x2x4xf32>
  return %1 : tensor<8x2x4xf32>
}

// -----

// The composition is not commutative: [0, 2, 1] then [1, 0, 2] is [2, 0, 1]...
// CHECK-LABEL: func.func @compose_order
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>)
func.func @compose_order(%a: tensor<2x4x8xf32>) -> tensor<8x2x4xf32> {
  // CHECK: %[[P:.*]] = tile.permute %[[A]] [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  // CHECK-NEXT: return %[[P]]
  %0 = tile.permute %a [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  %1 = tile.permute %0 [1, 0, 2] : tensor<2x8x4xf32> -> tensor<8x2x4xf32>
  return %1 : tensor<8x2x4xf32>
}

// -----

// ...while [1, 0, 2] then [0, 2, 1] is [1, 2, 0].
// CHECK-LABEL: func.func @compose_order_swapped
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>)
func.func @compose_order_swapped(%a: tensor<2x4x8xf32>) -> tensor<4x8x2xf32> {
  // CHECK: %[[P:.*]] = tile.permute %[[A]] [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  // CHECK-NEXT: return %[[P]]
  %0 = tile.permute %a [1, 0, 2] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %1 = tile.permute %0 [0, 2, 1] : tensor<4x2x8xf32> -> tensor<4x8x2xf32>
  return %1 : tensor<4x8x2xf32>
}

// -----

// A transpose of a transpose is the source itself.
// CHECK-LABEL: func.func @transpose_twice
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xbf16>)
func.func @transpose_twice(%a: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  // CHECK-NOT: tile.permute
  // CHECK: return %[[A]]
  %0 = tile.permute %a [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %1 = tile.permute %0 [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
  return %1 : tensor<64x32xbf16>
}

// -----

// Three permutes whose composition is the identity.
// CHECK-LABEL: func.func @three_to_identity
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>)
func.func @three_to_identity(%a: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // CHECK-NOT: tile.permute
  // CHECK: return %[[A]]
  %0 = tile.permute %a [1, 2, 0] : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %1 = tile.permute %0 [1, 2, 0] : tensor<4x8x2xf32> -> tensor<8x2x4xf32>
  %2 = tile.permute %1 [1, 2, 0] : tensor<8x2x4xf32> -> tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// The inner permute has another user: it stays, the outer one bypasses it.
// CHECK-LABEL: func.func @inner_has_other_use
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>)
func.func @inner_has_other_use(%a: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x4xf32>) {
  // CHECK: %[[T:.*]] = tile.permute %[[A]] [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK-NEXT: return %[[A]], %[[T]]
  %0 = tile.permute %a [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tile.permute %0 [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  return %1, %0 : tensor<4x8xf32>, tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<f32>)
func.func @identity(%a: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  // CHECK-NOT: tile.permute
  // CHECK: return %[[A]], %[[S]]
  %0 = tile.permute %a [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = tile.permute %s [] : tensor<f32> -> tensor<f32>
  return %0, %1 : tensor<4x8xf32>, tensor<f32>
}

// -----

// A permuted splat constant is a splat constant of the new shape.
// CHECK-LABEL: func.func @splat_constant
func.func @splat_constant() -> tensor<8x4xf32> {
  // CHECK: %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<8x4xf32>
  // CHECK-NOT: tile.permute
  // CHECK: return %[[C]]
  %c = arith.constant dense<1.5> : tensor<4x8xf32>
  %0 = tile.permute %c [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Must not fire: a non-splat constant is not transposed at compile time.
// CHECK-LABEL: func.func @non_splat_constant
func.func @non_splat_constant() -> tensor<2x2xf32> {
  // CHECK: %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  // CHECK: %[[T:.*]] = tile.permute %[[C]] [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  // CHECK: return %[[T]]
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = tile.permute %c [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Must not fire: a single non-identity permute of a block argument.
// CHECK-LABEL: func.func @single_transpose
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf32>)
func.func @single_transpose(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // CHECK: %[[T:.*]] = tile.permute %[[A]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  // CHECK: return %[[T]]
  %0 = tile.permute %a [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

// Must not fire: a permute of some other op's result (here a cumsum).
// CHECK-LABEL: func.func @permute_of_cumsum
func.func @permute_of_cumsum(%a: tensor<16x8xf32>) -> tensor<8x16xf32> {
  // CHECK: %[[S:.*]] = tile.cumsum %{{.*}} {axis = 0 : i64} : tensor<16x8xf32>
  // CHECK: %[[T:.*]] = tile.permute %[[S]] [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  // CHECK: return %[[T]]
  %s = tile.cumsum %a {axis = 0 : i64} : tensor<16x8xf32>
  %0 = tile.permute %s [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Unused permutes are pure and disappear.
// CHECK-LABEL: func.func @dead
func.func @dead(%a: tensor<16x8xf32>) {
  // CHECK-NEXT: return
  %0 = tile.permute %a [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  return
}

// -----

// With layouts (tilegpu encodings) a permute may also change the layout: an
// identity permute then stays, and so does a pair whose composition is the
// identity but whose result's layout is not the source's (folding either to
// its source changed the value's type: invalid IR after -canonicalize).
#A = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#B = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: func.func @identity_changing_layout
// CHECK-SAME: (%[[A:.*]]: tensor<64x64xf32, #{{.*}}>)
func.func @identity_changing_layout(%a: tensor<64x64xf32, #A>) -> tensor<64x64xf32, #B> {
  // CHECK: %[[P:.*]] = tile.permute %[[A]] [0, 1] : tensor<64x64xf32, #[[$A:.*]]> -> tensor<64x64xf32, #[[$B:.*]]>
  // CHECK-NEXT: return %[[P]]
  %0 = tile.permute %a [0, 1] : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
  return %0 : tensor<64x64xf32, #B>
}

// -----

#A = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#B = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: func.func @round_trip_changing_layout
// CHECK-SAME: (%[[A:.*]]: tensor<64x64xf32, #{{.*}}>)
func.func @round_trip_changing_layout(%a: tensor<64x64xf32, #A>) -> tensor<64x64xf32, #B> {
  // CHECK: %[[P:.*]] = tile.permute %[[A]] [0, 1] : tensor<64x64xf32, #{{.*}}> -> tensor<64x64xf32, #{{.*}}>
  // CHECK-NEXT: return %[[P]]
  %0 = tile.permute %a [1, 0] : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
  %1 = tile.permute %0 [1, 0] : tensor<64x64xf32, #B> -> tensor<64x64xf32, #B>
  return %1 : tensor<64x64xf32, #B>
}

// -----

// The same layout both ways still folds to the source.
#A = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#B = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: func.func @round_trip_same_layout
// CHECK-SAME: (%[[A:.*]]: tensor<64x64xf32, #{{.*}}>)
func.func @round_trip_same_layout(%a: tensor<64x64xf32, #A>) -> tensor<64x64xf32, #A> {
  // CHECK-NOT: tile.permute
  // CHECK: return %[[A]]
  %0 = tile.permute %a [1, 0] : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
  %1 = tile.permute %0 [1, 0] : tensor<64x64xf32, #B> -> tensor<64x64xf32, #A>
  return %1 : tensor<64x64xf32, #A>
}
