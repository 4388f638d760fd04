// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm -verify-diagnostics -o /dev/null

// warp_specialize where the producer cannot run the kernel's copies.

// Warps that are not whole warpgroups (setmaxnreg takes warpgroups).
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: its 2 warps are not whole warpgroups (setmaxnreg)}}
  func.func @two_warps(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 2, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<32x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<32x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<32x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<32x64xbf16>, tensor<64x64xbf16>, tensor<32x64xf32>
      scf.yield %d : tensor<32x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<32x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// No copy the TMA issues ahead: views without the alignment promise (the
// loads go through cp.async).
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: no loop issues a TMA copy ahead}}
  func.func @no_tma(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The K loop's bound is a value the outer loop carries: only the consumers
// know it.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: the bounds of a loop around a load issued ahead depend on values the producer cannot compute}}
  func.func @carried_bound(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %last = scf.for %j = %c0 to %m step %c1 iter_args(%end = %n) -> (i32) : i32 {
      %r = scf.for %k = %c0 to %end step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%c0, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
      %next = arith.subi %end, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}

// -----

// A box origin read from a tile (a loaded index).
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: a box origin of a load issued ahead depends on values the producer cannot compute (tiles, loop-carried values)}}
  func.func @loaded_origin(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %rows: !tile.view<?xi32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = tile.load %rows[%c0] : !tile.view<?xi32> -> tensor<1xi32>
    %s = tile.reshape %t : tensor<1xi32> -> tensor<i32>
    %row = tensor.extract %s[] : tensor<i32>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%row, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// The kernel stores to a view it loads ahead (the producer cannot order its
// copies after the consumers' stores).
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: it stores to a view it loads through the TMA ahead}}
  func.func @stored(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    %h = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %h, %b[%n, %c0] : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    return
  }
}

// -----

// A branch around the loop on a loaded flag.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: a branch around a load issued ahead depends on values the producer cannot compute}}
  func.func @loaded_condition(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %flags: !tile.view<?xi32>) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %t = tile.load %flags[%c0] : !tile.view<?xi32> -> tensor<1xi32>
    %s = tile.reshape %t : tensor<1xi32> -> tensor<i32>
    %f = tensor.extract %s[] : tensor<i32>
    %on = arith.cmpi ne, %f, %c0 : i32
    scf.if %on {
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// prologue_ahead on the K loop (nested in a loop over column blocks).
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: a loop issues its prologue ahead (prologue_ahead)}}
  func.func @ahead(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1, prologue_ahead = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %n step %c1 : i32 {
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// 12 CTAs of 256 threads per SM leave 21 registers per thread, 16 in
// steps of 8: below setmaxnreg's 24.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize': 12 CTAs of 256 threads per SM leave 16 registers per thread (setmaxnreg needs at least 24)}}
  func.func @few_registers(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1, occupancy = 12}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// 32 warps leave no room for the producer's 4.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: its 32 warps and the producer's 4 exceed a CTA's 32}}
  func.func @too_many_warps(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 32, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// One shared ring (ring_slots) of 2 buffers for a loop whose iterations
// hold two copies each: the producer could never run ahead.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: 'ring_slots' is 2, but a loop iteration holds 2 of the ring's buffers at once (ask for more)}}
  func.func @ring_too_small(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1, ring_slots = 2}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A shared ring where an outer loop's copy comes before the inner loop
// that cycles the ring: its buffer would stay taken while the inner loop
// needs every buffer in turn (a deadlock for inner loops longer than the
// ring).
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: 'ring_slots' shares one ring, but a load the producer fills comes before a nested 'scf.for' that holds one too in the same loop body}}
  func.func @ring_held_across_loop(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %x: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1, ring_slots = 4}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %out = scf.for %j = %c0 to %m step %c1 iter_args(%o = %z) -> (tensor<64x64xf32>) : i32 {
      %w = tile.load %x[%j, %c0] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        %u = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %v = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %vt = tile.permute %v [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %u, %vt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      %p = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xbf16>
      %o2 = tile.mma %p, %w, %o {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %o2 : tensor<64x64xf32>
    }
    tile.store %out, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// ring_slots without warp_specialize (for this target): no producer, no
// ring to share.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'ring_slots' shares the producer's ring: it needs 'warp_specialize' (for this target)}}
  func.func @ring_without_producer(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, ring_slots = 4}, sm_100a = {warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A loop bound chosen by a branch that reads a tile: only the consumers can
// evaluate it.
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  // expected-error @below {{'warp_specialize' on a kernel that cannot be warp-specialised: the bounds of a loop around a load issued ahead depend on values the producer cannot compute}}
  func.func @loaded_branch_bound(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %flag: i32, %counts: !tile.view<?xi32>) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, warp_specialize = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %set = arith.cmpi ne, %flag, %c0 : i32
    %bound = scf.if %set -> (i32) {
      scf.yield %n : i32
    } else {
      %t = tile.load %counts[%c0] : !tile.view<?xi32> -> tensor<1xi32>
      %s = tile.reshape %t : tensor<1xi32> -> tensor<i32>
      %m = tensor.extract %s[] : tensor<i32>
      scf.yield %m : i32
    }
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %r = scf.for %k = %c0 to %bound step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
      %x = tile.load %a[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %y = tile.load %b[%c0, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
      %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %r, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
    return
  }
}
