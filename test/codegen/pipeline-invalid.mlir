// RUN: tessel-opt %s -split-input-file -verify-diagnostics --tilegpu-assign-layouts --convert-tilegpu-to-llvm

// A tilegpu.distance mark the rules do not allow (hand-written: the loop
// writes the view) is rejected, not lowered to a copy that reads too early.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @written(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-error @below {{'tilegpu.distance' on a load the loop cannot issue ahead: the loop writes the view}}
      %x = tile.load %a[%c0, %k] {tilegpu.distance = 1 : i64} : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      %t = arith.truncf %d : tensor<64x32xf32> to tensor<64x32xbf16>
      tile.store %t, %a[%c0, %k] : tensor<64x32xbf16>, !tile.view<?x?xbf16>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A distance out of range (0 or below: the dialect's verifier,
// test/dialect/tilegpu-attrs-invalid.mlir).
module attributes {tilegpu.target = "sm_90a"} {
  func.func @too_far(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-error @below {{'tilegpu.distance' must be in [1, 16], got 17}}
      %x = tile.load %a[%c0, %k] {tilegpu.distance = 17 : i64} : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Rings that do not fit (hand-written: 16 iterations ahead of a 64x128 bf16
// tile, 17 buffers of 17408 bytes).
module attributes {tilegpu.target = "sm_90a"} {
  func.func @too_deep(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
      // expected-error @below {{the ring of 17 buffers of 17408 bytes does not fit in the 163840 bytes of shared memory left for rings}}
      %x = tile.load %a[%c0, %k] {tilegpu.distance = 16 : i64} : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
      %y = tile.load %b[%k, %c0] : !tile.view<?x?xbf16> -> tensor<128x32xbf16>
      %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x128xbf16>, tensor<128x32xbf16>, tensor<64x32xf32>
      scf.yield %d : tensor<64x32xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A load into registers is carried at most 4 iterations ahead.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers_deep(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128xf32>) : i32 {
      // expected-error @below {{'tilegpu.distance' on a load into registers must be in [1, 4] (the loop carries a set of its registers per iteration), got 5}}
      %x = tile.load %a[%k] {tilegpu.distance = 5 : i64} : !tile.view<?xf32> -> tensor<128xf32>
      %t = arith.addf %acc, %x : tensor<128xf32>
      scf.yield %t : tensor<128xf32>
    }
    tile.store %r, %c[%c0] : tensor<128xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// The registers a load carries count once per iteration ahead: 2 x 1
// register (a 128-element f32 tile on 4 warps) against a budget of 1.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers_budget(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128xf32>) : i32 {
      // expected-error @below {{the loads carried ahead take more registers per thread than the kernel's prefetch_registers (1)}}
      %x = tile.load %a[%k] {tilegpu.distance = 2 : i64} : !tile.view<?xf32> -> tensor<128xf32>
      %t = arith.addf %acc, %x : tensor<128xf32>
      scf.yield %t : tensor<128xf32>
    }
    tile.store %r, %c[%c0] : tensor<128xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// Nor when the loop writes its view.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers_written(%a: !tile.view<?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      // expected-error @below {{'tilegpu.distance' on a load the loop cannot carry ahead: the loop writes the view}}
      %x = tile.load %a[%k] {tilegpu.distance = 1 : i64} : !tile.view<?xf32> -> tensor<128xf32>
      %t = arith.addf %x, %x : tensor<128xf32>
      tile.store %t, %a[%k] : tensor<128xf32>, !tile.view<?xf32>
    }
    return
  }
}

// -----

// Nor beyond the kernel's prefetch_registers (none here).
module attributes {tilegpu.target = "sm_90a"} {
  func.func @registers_budget(%a: !tile.view<?xf32>, %c: !tile.view<?xf32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<128xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<128xf32>) : i32 {
      // expected-error @below {{the loads carried ahead take more registers per thread than the kernel's prefetch_registers (0)}}
      %x = tile.load %a[%k] {tilegpu.distance = 1 : i64} : !tile.view<?xf32> -> tensor<128xf32>
      %t = arith.addf %acc, %x : tensor<128xf32>
      scf.yield %t : tensor<128xf32>
    }
    tile.store %r, %c[%c0] : tensor<128xf32>, !tile.view<?xf32>
    return
  }
}

// -----

// A hand-written tilegpu.prologue_ahead on a loop whose copies are cp.async
// ones (their groups are counted per loop) is rejected, not lowered.
module attributes {tilegpu.target = "sm_90a"} {
  func.func @prologue_ahead(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-error @below {{'tilegpu.prologue_ahead' on a loop whose prologue cannot be issued ahead: it issues a cp.async copy ahead (its groups are counted per loop)}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x32xf32>) : i32 {
        %x = tile.load %a[%j, %k] {tilegpu.distance = 1 : i64} : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
        %y = tile.load %b[%k, %c0] {tilegpu.distance = 1 : i64} : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
        %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
        scf.yield %d : tensor<64x32xf32>
      } {tilegpu.prologue_ahead}
      tile.store %r, %c[%j, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
    }
    return
  }
}
