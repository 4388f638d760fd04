// RUN: tessel-opt %s -split-input-file -verify-diagnostics --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm

// IR the lowering cannot compile gets a diagnostic at the op, not invalid IR,
// a hang or a crash.

// A loop whose load is issued ahead counts its rings' stages in i32, the
// DSL's counters' type: an index counter (MLIR's usual one) is refused.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @index_counter(%a: !tile.view<?x?xf32>, %c: !tile.view<?x?xf32>, %nn: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 64}}>} {
    %m = tile.program_id 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.index_cast %nn : i32 to index
    %zero = arith.constant dense<0.0> : tensor<64x32xf32>
    // expected-error @below {{a loop whose loads are issued ahead needs an i32 counter (the DSL's for_range); this one counts in 'index'}}
    %acc = scf.for %kk = %c0 to %n step %c1 iter_args(%it = %zero) -> (tensor<64x32xf32>) {
      %k32 = arith.index_cast %kk : index to i32
      %ta = tile.load %a[%m, %k32] {latency = 2} : !tile.view<?x?xf32> -> tensor<64x32xf32>
      %d = arith.addf %ta, %it : tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %acc, %c[%m, %m] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The same loop with an i32 counter lowers.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @i32_counter(%a: !tile.view<?x?xf32>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 64}}>} {
    %m = tile.program_id 0
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x32xf32>
    %acc = scf.for %kk = %c0 to %n step %c1 iter_args(%it = %zero) -> (tensor<64x32xf32>) : i32 {
      %ta = tile.load %a[%m, %kk] {latency = 2} : !tile.view<?x?xf32> -> tensor<64x32xf32>
      %d = arith.addf %ta, %it : tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %acc, %c[%m, %m] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A tile larger than the registers of the CTA's threads can hold (here 2^32
// elements on 128 threads; the lowering wrote it out element by element and
// did not finish).
module attributes {tilegpu.target = "sm_90a"} {
  func.func @huge(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>) {
    %i = tile.program_id 0
    // expected-error @below {{'tile.load' op has a tile of 4294967296 elements: over 2048 per thread on 4 warps, more than registers can hold}}
    %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<65536x65536xf32>
    tile.store %t, %y[%i, %i] : tensor<65536x65536xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A target the lowering does not know (the passes before it read the name
// and went on).
// expected-error @below {{unknown target "sm_42z" in 'tilegpu.target' (sm_<number>, e.g. sm_90a, sm_100a, sm_103a)}}
module attributes {tilegpu.target = "sm_42z"} {
  func.func @k(%x: !tile.view<?xf32>) {
    %i = tile.program_id 0
    %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<64xf32>
    tile.store %t, %x[%i] : tensor<64xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// A kernel's parameters are views and scalars: a tile in its signature is
// refused by the first pass that gives tiles layouts (it left the signature
// behind, and the verifier then failed).
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{kernel 'returns' takes or returns a tile ('tensor<64xf32>'): a kernel's parameters are views and scalars, and it returns nothing (store the tile instead)}}
  func.func @returns(%x: !tile.view<?xf32>) -> tensor<64xf32> {
    %i = tile.program_id 0
    %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<64xf32>
    return %t : tensor<64xf32>
  }
}

// -----

// A kernel's scalar result was dropped (the lowering made it void).
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{kernel 'returns_scalar' returns a value ('i32'): a kernel returns nothing (store the value instead)}}
  func.func @returns_scalar(%x: !tile.view<?xf32>) -> i32 {
    %c7 = arith.constant 7 : i32
    return %c7 : i32
  }
}

// -----

// Tiles carried by scf.while: its layouts were not joined, and the pass left
// invalid IR behind.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @while_loop(%a: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{an scf.while that carries a tile ('tensor<64x64xf32>') is not supported: write the loop as scf.for (the DSL's for_range)}}
    %r:2 = scf.while (%k = %c0, %acc = %z) : (i32, tensor<64x64xf32>) -> (i32, tensor<64x64xf32>) {
      %go = arith.cmpi slt, %k, %n : i32
      scf.condition(%go) %k, %acc : i32, tensor<64x64xf32>
    } do {
    ^bb0(%k2: i32, %acc2: tensor<64x64xf32>):
      %x = tile.load %a[%c0, %k2] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %x, %acc2 {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      %k3 = arith.addi %k2, %c1 : i32
      scf.yield %k3, %d : i32, tensor<64x64xf32>
    }
    tile.store %r#1, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Kernels in a nested module were skipped (the passes walk the top
// module's functions), leaving the tile ops untouched.
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{a nested module is not compiled: put the kernels in the top-level module}}
  module {
    func.func @inner(%x: !tile.view<?xf32>) {
      return
    }
  }
}

// -----

// Element types without a lowering: 8-bit floats (tf32 and the 4-bit ones
// alike) failed the verifier of the IR the lowering made.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @f8_tile(%c: !tile.view<?xf32>) {
    %c0 = arith.constant 0 : i32
    // expected-error @below {{has a tile of 'f8E4M3FN', which tessel cannot compile (tiles hold i1, i8, i16, i32, i64, f16, bf16, f32 or f64)}}
    %x = arith.constant dense<1.0> : tensor<64xf8E4M3FN>
    %y = arith.extf %x : tensor<64xf8E4M3FN> to tensor<64xf32>
    tile.store %y, %c[%c0] : tensor<64xf32>, !tile.view<?xf32>
    return
  }
}

// -----

module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{kernel 'tf32_scalar' takes a scalar of 'tf32', which tessel cannot pass (scalars are i1, i8, i16, i32, i64, f16, bf16, f32 or f64)}}
  func.func @tf32_scalar(%c: !tile.view<?xf32>, %s: tf32) {
    return
  }
}

// -----

// A prefetch box of 2^63 - 1 elements per row: its line count overflowed
// and the prefetch was dropped without a word.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @huge_prefetch(%a: !tile.view<?x?xf32, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    // expected-error @below {{box covers more than 8192 cache lines}}
    tile.prefetch %a[%c0, %c0] {box = array<i64: 1, 9223372036854775807>} : !tile.view<?x?xf32, align = 16, unit_stride>
    return
  }
}
