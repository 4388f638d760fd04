// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// The tilegpu attributes that passes write and later passes read back are
// checked wherever they are attached: a hand-written one of the wrong kind
// is an error here, not a crash in the pass that reads it (a unit
// tilegpu.distance crashed --tilegpu-schedule-loads and the lowering) nor a
// silently wrong kernel (tilegpu.num_warps = 0 gave .reqntid 0).

func.func @unit_distance(%a: !tile.view<?x?xbf16>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tilegpu.distance' must be a positive integer (loop iterations a copy is issued ahead), got unit}}
  %x = tile.load %a[%c0, %c0] {tilegpu.distance} : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  return
}

// -----

func.func @zero_distance(%a: !tile.view<?x?xbf16>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tilegpu.distance' must be a positive integer (loop iterations a copy is issued ahead), got 0 : i64}}
  %x = tile.load %a[%c0, %c0] {tilegpu.distance = 0 : i64} : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  return
}

// -----

func.func @string_latency(%a: !tile.view<?x?xbf16>) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'tilegpu.latency' must be a positive integer (a load's latency class), got "far"}}
  %x = tile.load %a[%c0, %c0] {tilegpu.latency = "far"} : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  return
}

// -----

// expected-error @below {{'tilegpu.num_warps' must be a power of two from 1 to 32 (warps per CTA), got 0 : i64}}
func.func @no_warps(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 0 : i64} {
  return
}

// -----

// expected-error @below {{'tilegpu.num_warps' must be a power of two from 1 to 32 (warps per CTA), got 3 : i64}}
func.func @three_warps(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 3 : i64} {
  return
}

// -----

// expected-error @below {{'tilegpu.num_warps' must be a power of two from 1 to 32 (warps per CTA), got 4294967296 : i64}}
func.func @wide_warps(%a: !tile.view<?xf32>) attributes {tilegpu.num_warps = 4294967296 : i64} {
  return
}

// -----

// expected-error @below {{'tilegpu.target' must be a string (the target's name, e.g. "sm_90a"), got 90 : i64}}
module attributes {tilegpu.target = 90 : i64} {
}

// -----

// The others the passes set are left to the passes that read them; a valid
// one of each kind verifies.
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available} {
  func.func @valid(%a: !tile.view<?x?xbf16>) attributes {tilegpu.num_warps = 8 : i64} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {tilegpu.distance = 2 : i64, tilegpu.latency = 3 : i64} : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    return
  }
}
