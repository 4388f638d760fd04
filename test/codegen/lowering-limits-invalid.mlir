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
