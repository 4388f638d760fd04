// RUN: tessel-opt %s -split-input-file --tile-route-mma-operands | FileCheck %s
// With remarks, every mma says whether it was routed and why not:
// RUN: tessel-opt %s -split-input-file --tile-route-mma-operands=remarks=true -verify-diagnostics -o /dev/null

// compute_out's P·x written transposed: yᵀ = xᵀ · Pᵀ, Pᵀ = (B·Cᵀ masked and
// scaled per column) computed from an mma of loaded tiles, and y stored as
// the transpose of the result. The transpose pushes through the whole
// computation for free: the mask's iotas swap axes, the per-token row vector
// becomes a column vector, and the inner mma becomes C·Bᵀ. The routed mma
// takes P (computed, in the A slot, where wgmma reads registers and tcgen05
// tensor memory) and x, and its result needs no permute.
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
// CHECK-NOT: tile.permute
// CHECK: return %[[Y]]
func.func @output_transposed(%cv: !tile.view<?x?xbf16>, %bv: !tile.view<?x?xbf16>, %xv: !tile.view<?x?xbf16>, %dt: tensor<64xf32>) -> tensor<64x32xf32> {
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
  %yt = tile.permute %y [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  return %yt : tensor<64x32xf32>
}

// -----

// The same in a loop over source blocks, Oᵀ carried: the loop carries O
// instead (nothing permuted inside it), the computed P is the A operand, and
// one permute follows the loop.
// CHECK-LABEL: func.func @output_loop
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK: %[[O:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<64x64xf32>)
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x64xf32>
// CHECK:   %[[P:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK:   %[[M:.*]] = tile.mma %[[P]], %{{.*}}, %[[ACC]] {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK:   scf.yield %[[M]] : tensor<64x64xf32>
// CHECK: %[[OT:.*]] = tile.permute %[[O]] [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK: return %[[OT]]
func.func @output_loop(%cv: !tile.view<?x?xbf16>, %bv: !tile.view<?x?xbf16>, %xv: !tile.view<?x?xbf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %c = tile.load %cv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %ct = tile.permute %c [1, 0] : tensor<64x128xbf16> -> tensor<128x64xbf16>
  %o = scf.for %s = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
    %b = tile.load %bv[%s, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
    %x = tile.load %xv[%s, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    // expected-remark @below {{not routed: B is loaded (or a constant): it is where it belongs}}
    %bc = tile.mma %b, %ct, %z {precision = #tile<precision bf16>} : tensor<64x128xbf16>, tensor<128x64xbf16>, tensor<64x64xf32>
    %pt = arith.truncf %bc : tensor<64x64xf32> to tensor<64x64xbf16>
    %xt = tile.permute %x [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
    %m = tile.mma %xt, %pt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    scf.yield %m : tensor<64x64xf32>
  }
  return %o : tensor<64x64xf32>
}

// -----

// Must not fire: fwd_pass_state's chunk update written naturally, S += xᵀ ·
// (B scaled per token). B's transpose would reach a load (a register permute
// or a transposed staging, as the B slot stages it now): nothing to gain.
// CHECK-LABEL: func.func @state_update
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x128xbf16>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
func.func @state_update(%xv: !tile.view<?x?xbf16>, %bv: !tile.view<?x?xbf16>, %sv: !tile.view<?x?xf32>, %scale: tensor<64x128xbf16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %s = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x128xf32>) : i32 {
    %x = tile.load %xv[%t, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %bv[%t, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
    %xt = tile.permute %x [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %w = arith.mulf %b, %scale : tensor<64x128xbf16>
    // expected-remark @below {{not routed: B's transpose is not computed for free (its computation reaches a load, a shared value or an op that is not elementwise): the A slot would stage it as B's does}}
    %m = tile.mma %xt, %w, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    scf.yield %m : tensor<64x128xf32>
  }
  tile.store %s, %sv[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
  return
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
// CHECK: %[[A:.*]] = tile.load
// CHECK-NOT: tile.permute %[[A]]
// CHECK: tile.mma %[[A]], %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
func.func @computed_accumulator(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{not routed: the accumulator is a computed tile (neither a splat nor carried by a loop only through this mma): its transposes would permute registers}}
  %m = tile.mma %a, %bt, %c {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// Must not fire: the loop-carried accumulator has another use in the body.
// CHECK-LABEL: func.func @carried_with_other_use
// CHECK: %[[A:.*]] = tile.load
// CHECK: tile.mma %[[A]], %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK-NOT: tile.permute
func.func @carried_with_other_use(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
    %a = tile.load %v[%i, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    // expected-remark @below {{not routed: the accumulator is a computed tile (neither a splat nor carried by a loop only through this mma): its transposes would permute registers}}
    %m = tile.mma %a, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    %d = arith.addf %m, %acc : tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// Must not fire: a nested loop whose accumulator enters as the outer loop's
// (a register permute into and out of the inner loop in every outer
// iteration).
// CHECK-LABEL: func.func @nested_loop
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x64xf32>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
func.func @nested_loop(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%outer = %z) -> (tensor<64x64xf32>) : i32 {
    %in = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %outer) -> (tensor<64x64xf32>) : i32 {
      %a = tile.load %v[%i, %j] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      // expected-remark @below {{not routed: the loop's initial accumulator would need a register permute}}
      %m = tile.mma %a, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %m : tensor<64x64xf32>
    }
    scf.yield %in : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// Must not fire: the result is 64 x 32, the routed one would be 32 x 64 and
// lose the 64-row blocks of wgmma and tcgen05.
// CHECK-LABEL: func.func @would_lose_rows
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
func.func @would_lose_rows(%v: !tile.view<?x?xbf16>, %b: tensor<32x64xbf16>) -> tensor<32x64xf32> {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %bt = tile.permute %b [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
  // expected-remark @below {{not routed: the routed 32x64 result would lose the 64-row blocks of wgmma and tcgen05}}
  %m = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x32xbf16>, tensor<64x32xf32>
  %mt = tile.permute %m [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  return %mt : tensor<32x64xf32>
}

// -----

// Must not fire: the result is used as it is (routed, it would need a
// register permute).
// CHECK-LABEL: func.func @result_not_transposed
// CHECK: %[[M:.*]] = tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK-NEXT: return %[[M]]
func.func @result_not_transposed(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{not routed: the routed result would need a register permute (its uses are not transposes)}}
  %m = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// Must not fire: B is a vector reshaped to a whole tile (4096 -> 64x64: its
// transpose is not a reshape), a non-splat constant, shared with another
// use; a tf32 mma whose B is a transpose already (K-major as it is).
// CHECK-LABEL: func.func @not_free
// CHECK: %[[A1:.*]] = tile.load
// CHECK: tile.mma %[[A1]], %{{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>
// CHECK: %[[A4:.*]] = tile.load
// CHECK: tile.mma %[[A4]], %{{.*}} : tensor<2x2xbf16>, tensor<2x2xbf16>
// CHECK: %[[A2:.*]] = tile.load
// CHECK: tile.mma %[[A2]], %{{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>
// CHECK: %[[A3:.*]] = tile.load
// CHECK: tile.mma %[[A3]], %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>
func.func @not_free(%v: !tile.view<?x?xbf16>, %d: tensor<4096xbf16>, %e: tensor<64x64xbf16>, %f: tensor<64x64xf32>, %fv: !tile.view<?x?xf32>) -> (tensor<64x64xf32>, tensor<2x2xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xbf16>) {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %z2 = arith.constant dense<0.0> : tensor<2x2xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %r = tile.reshape %d : tensor<4096xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{not routed: B's transpose is not computed for free (its computation reaches a load, a shared value or an op that is not elementwise): the A slot would stage it as B's does}}
  %m1 = tile.mma %a, %r, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %m1t = tile.permute %m1 [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %a4 = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<2x2xbf16>
  // expected-remark @below {{not routed: B's transpose is not computed for free (its computation reaches a load, a shared value or an op that is not elementwise): the A slot would stage it as B's does}}
  %m4 = tile.mma %a4, %k, %z2 {precision = #tile<precision bf16>} : tensor<2x2xbf16>, tensor<2x2xbf16>, tensor<2x2xf32>
  %m4t = tile.permute %m4 [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  %a2 = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %e2 = arith.addf %e, %e : tensor<64x64xbf16>
  %et = tile.permute %e2 [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %shared = arith.negf %et : tensor<64x64xbf16>
  // expected-remark @below {{not routed: B's transpose is not computed for free (its computation reaches a load, a shared value or an op that is not elementwise): the A slot would stage it as B's does}}
  %m2 = tile.mma %a2, %shared, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %m2t = tile.permute %m2 [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %a3 = tile.load %fv[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  %ft = tile.permute %f [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  // expected-remark @below {{not routed: tf32 with B a transpose: already K-major}}
  %m3 = tile.mma %a3, %ft, %z {precision = #tile<precision tf32>} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
  %m3t = tile.permute %m3 [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  return %m1t, %m4t, %m2t, %m3t, %shared : tensor<64x64xf32>, tensor<2x2xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xbf16>
}

// -----

// Must not fire: the kernel's hint turns the pass off.
// CHECK-LABEL: func.func @hint_off
// CHECK: %[[A:.*]] = tile.load
// CHECK: tile.mma %[[A]], %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK-NEXT: tile.permute
func.func @hint_off(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> attributes {tile.hints = #tile.hints<{default = {route_mma_operands = 0}}>} {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{not routed: the kernel's hint 'route_mma_operands' is 0}}
  %m = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %mt = tile.permute %m [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  return %mt : tensor<64x64xf32>
}

// -----

// Fires with a non-zero splat accumulator (transposed: the same splat) and a
// B that is the transpose of a computed tile (T(T(x)) = x).
// CHECK-LABEL: func.func @splat_accumulator
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32>
// CHECK: %[[A:.*]] = tile.load
// CHECK: %[[AT:.*]] = tile.permute %[[A]] [1, 0]
// CHECK: %[[E:.*]] = arith.addf
// CHECK: %[[M:.*]] = tile.mma %[[E]], %[[AT]], %[[ONE]]
// CHECK-NEXT: return %[[M]]
func.func @splat_accumulator(%v: !tile.view<?x?xbf16>, %e: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %e2 = arith.addf %e, %e : tensor<64x64xbf16>
  %et = tile.permute %e2 [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
  %m = tile.mma %a, %et, %one {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %mt = tile.permute %m [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  return %mt : tensor<64x64xf32>
}

// -----

// tf32: routing turns A·(computed)ᵀ-like forms into the K-major form the
// warpgroup and tensor-memory MMAs read (A computed as it is, B a
// transpose of the load); the result's transpose is absorbed.
// CHECK-LABEL: func.func @tf32_to_k_major
// CHECK: %[[A:.*]] = tile.load %arg0{{.*}} -> tensor<64x32xf32>
// CHECK: %[[AT:.*]] = tile.permute %[[A]] [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
// CHECK: %[[N:.*]] = arith.negf %{{.*}} : tensor<64x32xf32>
// CHECK: %[[M:.*]] = tile.mma %[[N]], %[[AT]], %{{.*}} {precision = #tile<precision tf32>}
// CHECK-NEXT: return %[[M]]
func.func @tf32_to_k_major(%a: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %ta = tile.load %a[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
  %ty = tile.load %y[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
  %e = arith.mulf %ty, %ty : tensor<64x32xf32>
  %b = tile.permute %e [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  %bb = arith.negf %b : tensor<32x64xf32>
  // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
  %m = tile.mma %ta, %bb, %z {precision = #tile<precision tf32>} : tensor<64x32xf32>, tensor<32x64xf32>, tensor<64x64xf32>
  %mt = tile.permute %m [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  return %mt : tensor<64x64xf32>
}

// -----

// Nested loops. The inner loop's result transposed where it is used: the
// inner loop carries the accumulator transposed and no permute is left.
// CHECK-LABEL: func.func @nested_absorbed
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x64xf32>
// CHECK: tile.mma %arg1, %{{.*}}, %{{.*}} {{.*}} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x64xf32>
// CHECK: tile.store
func.func @nested_absorbed(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>, %n: i32, %o: !tile.view<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %in = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %a = tile.load %v[%i, %j] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
      %m = tile.mma %a, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %m : tensor<64x64xf32>
    }
    %t = tile.permute %in [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
    tile.store %t, %o[%i, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  }
  return
}

// -----

// Must not fire: the same, the inner loop's result used as it is (a
// register permute in every outer iteration).
// CHECK-LABEL: func.func @nested_not_absorbed
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x64xf32>
// CHECK: return
func.func @nested_not_absorbed(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%outer = %z) -> (tensor<64x64xf32>) : i32 {
    %in = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %a = tile.load %v[%i, %j] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      // expected-remark @below {{not routed: the loop's result would need a register permute in every iteration of the loop around it}}
      %m = tile.mma %a, %bt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %m : tensor<64x64xf32>
    }
    %s = arith.addf %outer, %in : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// A chain: the first mma is routed and its transposed use folds right away,
// so the second one sees B = truncf of a plain mma result (not free: its
// transpose would be a register permute) and is left alone. No f32 tile is
// permuted.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK: %[[R1:.*]] = tile.mma
// CHECK-NOT: tile.permute %{{.*}} : tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK: %[[P:.*]] = arith.truncf %[[R1]]
// CHECK: %[[R2:.*]] = tile.mma %{{.*}}, %[[P]], %{{.*}}
// CHECK: tile.permute %[[R2]]
func.func @chain(%v: !tile.view<?x?xbf16>, %e: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %a1 = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %e2 = arith.addf %e, %e : tensor<64x64xbf16>
  %et = tile.permute %e2 [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{routed: the operand computed in registers moves to the A slot}}
  %r1 = tile.mma %a1, %et, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %r1t = tile.permute %r1 [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %p = arith.truncf %r1t : tensor<64x64xf32> to tensor<64x64xbf16>
  %a2 = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{not routed: B's transpose is not computed for free (its computation reaches a load, a shared value or an op that is not elementwise): the A slot would stage it as B's does}}
  %r2 = tile.mma %a2, %p, %z {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  %r2t = tile.permute %r2 [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  return %r2t : tensor<64x64xf32>
}

// -----

// Must not fire: 512 rows would be 512 columns routed.
// CHECK-LABEL: func.func @too_many_rows
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : tensor<512x64xbf16>, tensor<64x64xbf16>, tensor<512x64xf32>
func.func @too_many_rows(%v: !tile.view<?x?xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x512xf32> {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0.0> : tensor<512x64xf32>
  %a = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<512x64xbf16>
  %bt = tile.permute %b [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{not routed: the routed result would have 512 columns, more than one mma takes (256)}}
  %m = tile.mma %a, %bt, %z {precision = #tile<precision bf16>} : tensor<512x64xbf16>, tensor<64x64xbf16>, tensor<512x64xf32>
  %mt = tile.permute %m [1, 0] : tensor<512x64xf32> -> tensor<64x512xf32>
  return %mt : tensor<64x512xf32>
}

