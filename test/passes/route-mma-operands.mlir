// RUN: tessel-opt %s -split-input-file --tile-route-mma-operands | FileCheck %s
// With remarks, every mma says whether it was routed and why not:
// RUN: tessel-opt %s -split-input-file --tile-route-mma-operands=remarks=true -verify-diagnostics -o /dev/null

// The motivating case (fwd_pass_state's chunk update written naturally):
// S += xᵀ · (B scaled per token), the computed B-tile in the B slot. Routed,
// the loop carries Sᵀ, the computed tile is the A operand (transposed: its
// computation reaches a load, so the transpose stays a permute the lowering
// stages for free), x is B, nothing is permuted inside the loop, and one
// permute follows it.
// CHECK-LABEL: func.func @state_update
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
// CHECK: %[[S:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<128x64xf32>)
// CHECK:   %[[X:.*]] = tile.load {{.*}} -> tensor<64x64xbf16>
// CHECK:   %[[B:.*]] = tile.load {{.*}} -> tensor<64x128xbf16>
// CHECK:   %[[W:.*]] = arith.mulf %[[B]], %{{.*}} : tensor<64x128xbf16>
// CHECK:   %[[WT:.*]] = tile.permute %[[W]] [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
// CHECK:   %[[M:.*]] = tile.mma %[[WT]], %[[X]], %[[ACC]] {precision = #tile<precision bf16>} : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>
// CHECK:   scf.yield %[[M]] : tensor<128x64xf32>
// CHECK: %[[ST:.*]] = tile.permute %[[S]] [1, 0] : tensor<128x64xf32> -> tensor<64x128xf32>
// CHECK: tile.store %[[ST]]
// CHECK-NOT: tile.permute
func.func @state_update(%xv: !tile.view<?x?xbf16>, %bv: !tile.view<?x?xbf16>, %sv: !tile.view<?x?xf32>, %scale: tensor<64x128xbf16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %s = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %x = tile.load %xv[%t, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %bv[%t, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
    %xt = tile.permute %x [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %w = arith.mulf %b, %scale : tensor<64x128xbf16>
    // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
    %m = tile.mma %xt, %w, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    scf.yield %m : tensor<64x128xf32>
  }
  tile.store %s, %sv[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// compute_out's P·x written transposed: yᵀ = xᵀ · Pᵀ, Pᵀ = (B·Cᵀ masked and
// scaled per column) computed from an mma of loaded tiles. The transpose
// pushes through the whole computation for free: the mask's iotas swap
// axes, the per-token row vector becomes a column vector, and the inner mma
// becomes C·Bᵀ. The routed mma takes P (computed, in the A slot) and x.
// CHECK-LABEL: func.func @output_transposed
// CHECK: %[[Z64:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
// CHECK: %[[C:.*]] = tile.load %arg0{{.*}} -> tensor<64x128xbf16>
// CHECK: %[[B:.*]] = tile.load %arg1{{.*}} -> tensor<64x128xbf16>
// CHECK: %[[BT:.*]] = tile.permute %[[B]] [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
// CHECK: %[[X:.*]] = tile.load %arg2{{.*}} -> tensor<64x32xbf16>
// CHECK: %[[CB:.*]] = tile.mma %[[C]], %[[BT]], %[[Z64]] {{.*}} : tensor<64x128xbf16>, tensor<128x64xbf16>, tensor<64x64xf32>
// CHECK: %[[COL:.*]] = tile.iota {axis = 1 : i64} : tensor<64x64xi32>
// CHECK: %[[ROW:.*]] = tile.iota {axis = 0 : i64} : tensor<64x64xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi sle, %[[COL]], %[[ROW]] : tensor<64x64xi32>
// CHECK: %[[DT:.*]] = tile.reshape %arg3 : tensor<64xf32> -> tensor<1x64xf32>
// CHECK: %[[DTB:.*]] = tile.broadcast %[[DT]] : tensor<1x64xf32> -> tensor<64x64xf32>
// CHECK: %[[SC:.*]] = arith.mulf %[[CB]], %[[DTB]] : tensor<64x64xf32>
// CHECK: %[[SEL:.*]] = arith.select %[[MASK]], %[[SC]], %[[Z64]]
// CHECK: %[[P:.*]] = arith.truncf %[[SEL]] : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK: %[[Y:.*]] = tile.mma %[[P]], %[[X]], %[[Z]] {{.*}} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
// CHECK: %[[YT:.*]] = tile.permute %[[Y]] [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
// CHECK: return %[[YT]]
func.func @output_transposed(%cv: !tile.view<?x?xbf16>, %bv: !tile.view<?x?xbf16>, %xv: !tile.view<?x?xbf16>, %dt: tensor<64xf32>) -> tensor<32x64xf32> {
  %c0 = arith.constant 0 : i32
  %z64 = arith.constant dense<0.0> : tensor<64x64xf32>
  %z = arith.constant dense<0.0> : tensor<32x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c = tile.load %cv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %b = tile.load %bv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %x = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  // Pᵀ[s, t] = (B_s · C_t) for s <= t, times dt_s.
  %ct = tile.permute %c [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
  // expected-remark @below {{not routed: B is loaded (or a constant): it is where it belongs}}
  %bc = tile.mma %b, %ct, %z64 {precision = #tile<precision bf16>} : tensor<64x128xbf16>, tensor<128x64xbf16>, tensor<64x64xf32>
  %s = tile.iota {axis = 0 : i64} : tensor<64x64xi32>
  %t = tile.iota {axis = 1 : i64} : tensor<64x64xi32>
  %causal = arith.cmpi sle, %s, %t : tensor<64x64xi32>
  %dtc = tile.reshape %dt : tensor<64xf32> -> tensor<64x1xf32>
  %dtb = tile.broadcast %dtc : tensor<64x1xf32> -> tensor<64x64xf32>
  %scaled = arith.mulf %bc, %dtb : tensor<64x64xf32>
  %masked = arith.select %causal, %scaled, %zero : tensor<64x64xi1>, tensor<64x64xf32>
  %pt = arith.truncf %masked : tensor<64x64xf32> to tensor<64x64xbf16>
  %xt = tile.permute %x [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
  // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
  %y = tile.mma %xt, %pt, %z {precision = #tile<precision bf16>} : tensor<32x64xbf16>, tensor<64x64xbf16>, tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

// -----

// Must not fire: both operands computed (nothing to gain).
// CHECK-LABEL: func.func @both_computed
// CHECK: %[[M:.*]] = tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK-NOT: tile.permute
// CHECK: return %[[M]]
func.func @both_computed(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %a2 = arith.addf %a, %a : tensor<64x64xbf16>
  %b2 = arith.addf %b, %b : tensor<64x64xbf16>
  // expected-remark @below {{not routed: A is computed in registers too: nothing to gain}}
  %m = tile.mma %a2, %b2, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// Must not fire: B is loaded (already where it belongs), A computed.
// CHECK-LABEL: func.func @already_routed
// CHECK-NOT: tile.permute
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
func.func @already_routed(%v: !tile.view<?x?xbf16>, %a: tensor<64x64xbf16>) -> tensor<64x32xf32> {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %b = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  %a2 = arith.addf %a, %a : tensor<64x64xbf16>
  // expected-remark @below {{not routed: B is loaded (or a constant): it is where it belongs}}
  %m = tile.mma %a2, %b, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
  return %m : tensor<64x32xf32>
}

// -----

// Must not fire: the accumulator is a computed tile that is not carried by a
// loop (its transposes would be register permutes).
// CHECK-LABEL: func.func @computed_accumulator
// CHECK-NOT: tile.permute
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
func.func @computed_accumulator(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b2 = arith.addf %b, %b : tensor<64x64xbf16>
  // expected-remark @below {{not routed: the accumulator is a computed tile (neither a splat nor carried by a loop only through this mma): its transposes would permute registers}}
  %m = tile.mma %a, %b2, %c {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// Must not fire: the loop-carried accumulator has another use in the body.
// CHECK-LABEL: func.func @carried_with_other_use
// CHECK-NOT: tile.permute
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
func.func @carried_with_other_use(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
    %a = tile.load %v[%i, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b2 = arith.addf %b, %b : tensor<64x64xbf16>
    // expected-remark @below {{not routed: the accumulator is a computed tile (neither a splat nor carried by a loop only through this mma): its transposes would permute registers}}
    %m = tile.mma %a, %b2, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %d = arith.addf %m, %acc : tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// Must not fire: the result is 64 x 32, the routed one would be 32 x 64 and
// lose the 64-row blocks of wgmma and tcgen05.
// CHECK-LABEL: func.func @would_lose_rows
// CHECK-NOT: tile.permute
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
func.func @would_lose_rows(%v: !tile.view<?x?xbf16>, %b: tensor<64x32xbf16>) -> tensor<64x32xf32> {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b2 = arith.addf %b, %b : tensor<64x32xbf16>
  // expected-remark @below {{not routed: the routed 32x64 result would lose the 64-row blocks of wgmma and tcgen05}}
  %m = tile.mma %a, %b2, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
  return %m : tensor<64x32xf32>
}

// -----

// Must not fire: the kernel's hint turns the pass off.
// CHECK-LABEL: func.func @hint_off
// CHECK-NOT: tile.permute
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
func.func @hint_off(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> attributes {tile.hints = #tile.hints<{default = {route_mma_operands = 0}}>} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b2 = arith.addf %b, %b : tensor<64x64xbf16>
  // expected-remark @below {{not routed: the kernel's hint 'route_mma_operands' is 0}}
  %m = tile.mma %a, %b2, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// A splat accumulator that is not zero, a computed B used twice (its
// transpose is not pushed into a shared value: it stays a permute).
// CHECK-LABEL: func.func @shared_operand
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32>
// CHECK: %[[B2:.*]] = arith.addf
// CHECK: %[[BT:.*]] = tile.permute %[[B2]] [1, 0]
// CHECK: %[[M:.*]] = tile.mma %[[BT]], %{{.*}}, %[[ONE]]
// CHECK: %[[MT:.*]] = tile.permute %[[M]] [1, 0]
// CHECK: return %[[MT]], %[[B2]]
func.func @shared_operand(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>) -> (tensor<64x64xf32>, tensor<64x64xbf16>) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b2 = arith.addf %b, %b : tensor<64x64xbf16>
  // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
  %m = tile.mma %a, %b2, %one {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %m, %b2 : tensor<64x64xf32>, tensor<64x64xbf16>
}
