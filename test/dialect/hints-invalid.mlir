// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// The #tile.hints verifier (target keys and hint values) and where it may go.

// expected-error @below {{unknown target 'sm_80' in hints (known: sm_90a, sm_100a, sm_103a, default)}}
func.func @unknown_target() attributes {tile.hints = #tile.hints<{sm_80 = {num_warps = 4}}>} {
  return
}

// -----

// Target keys are exact: no `sm_90` without the `a`.
// expected-error @below {{unknown target 'sm_90' in hints (known: sm_90a, sm_100a, sm_103a, default)}}
func.func @target_without_suffix() attributes {tile.hints = #tile.hints<{sm_90 = {}}>} {
  return
}

// -----

// expected-error @below {{hints of target 'default' must be a dictionary}}
func.func @target_not_dictionary() attributes {tile.hints = #tile.hints<{default = 4}>} {
  return
}

// -----

// expected-error @below {{unknown hint 'warps' for target 'sm_90a' (known: num_warps, occupancy, num_stages, cluster, wgmma, wgmma_register_a, tcgen05, tcgen05_tmem_a, tcgen05_tmem_acc, pdl, route_mma_operands, prefetch_registers, persistent, prologue_ahead, prologue_early, refresh_in_loops, warp_specialize, producer_registers, ring_slots, tma_register_loads, ring_barrier_per_load, stmatrix, row_fragments, wgmma_interleave, wgmma_defer_wait, early_copies, multicast, operand_in_place)}}
func.func @unknown_hint() attributes {tile.hints = #tile.hints<{sm_90a = {warps = 4}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_warps' of target 'default' must be a power of two in [1, 32], got 3}}
func.func @num_warps_not_power_of_two() attributes {tile.hints = #tile.hints<{default = {num_warps = 3}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_warps' of target 'default' must be a power of two in [1, 32], got 64}}
func.func @num_warps_too_large() attributes {tile.hints = #tile.hints<{default = {num_warps = 64}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_warps' of target 'sm_100a' must be a power of two in [1, 32], got 0}}
func.func @num_warps_zero() attributes {tile.hints = #tile.hints<{sm_100a = {num_warps = 0}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_warps' of target 'sm_103a' must be a power of two in [1, 32], got -4}}
func.func @num_warps_negative() attributes {tile.hints = #tile.hints<{sm_103a = {num_warps = -4}}>} {
  return
}

// -----

// A 128-bit value is compared as it is, not truncated to 64 bits (2^64 + 4).
// expected-error @below {{hint 'num_warps' of target 'default' must be a power of two in [1, 32], got 18446744073709551620}}
func.func @num_warps_wide_integer() attributes {tile.hints = #tile.hints<{default = {num_warps = 18446744073709551620 : i128}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_warps' of target 'default' must be an integer}}
func.func @num_warps_string() attributes {tile.hints = #tile.hints<{default = {num_warps = "4"}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_warps' of target 'default' must be an integer}}
func.func @num_warps_float() attributes {tile.hints = #tile.hints<{default = {num_warps = 4.0}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_warps' of target 'default' must be an integer}}
func.func @num_warps_index() attributes {tile.hints = #tile.hints<{default = {num_warps = 4 : index}}>} {
  return
}

// -----

// expected-error @below {{hint 'occupancy' of target 'sm_90a' must be in [1, 32], got 33}}
func.func @occupancy_too_large() attributes {tile.hints = #tile.hints<{sm_90a = {occupancy = 33}}>} {
  return
}

// -----

// expected-error @below {{hint 'occupancy' of target 'sm_90a' must be in [1, 32], got 0}}
func.func @occupancy_zero() attributes {tile.hints = #tile.hints<{sm_90a = {occupancy = 0}}>} {
  return
}

// -----

// expected-error @below {{hint 'num_stages' of target 'default' must be in [1, 8], got 9}}
func.func @num_stages_too_large() attributes {tile.hints = #tile.hints<{default = {num_stages = 9}}>} {
  return
}

// -----

// `true` is an i1 integer attribute in MLIR; it is not a stage count.
// expected-error @below {{hint 'num_stages' of target 'default' must be an integer}}
func.func @num_stages_bool() attributes {tile.hints = #tile.hints<{default = {num_stages = true}}>} {
  return
}

// -----

// The first bad entry is reported, in key order.
// expected-error @below {{hint 'num_warps' of target 'default' must be a power of two in [1, 32], got 5}}
func.func @first_error_wins() attributes {tile.hints = #tile.hints<{sm_90a = {num_warps = 7}, default = {num_warps = 5}}>} {
  return
}

// -----

// expected-error @below {{'tile.hints' must be a #tile.hints attribute}}
func.func @plain_dictionary() attributes {tile.hints = {default = {num_warps = 4}}} {
  return
}

// -----

// expected-error @below {{'tile.hints' must be a #tile.hints attribute}}
func.func @integer() attributes {tile.hints = 4} {
  return
}

// -----

// expected-error @below {{'tile.hints' may only be attached to a kernel function}}
module attributes {tile.hints = #tile.hints<{default = {num_warps = 4}}>} {
}

// -----

func.func @on_an_op() {
  // expected-error @below {{'tile.hints' may only be attached to a kernel function}}
  %pid = tile.program_id 0 {tile.hints = #tile.hints<{}>}
  return
}

// -----

// expected-error @below {{expected '<'}}
func.func @no_parameters() attributes {tile.hints = #tile.hints} {
  return
}

// -----

// expected-error @below {{invalid kind of attribute specified}}
// expected-error @below {{failed to parse Tile_HintsAttr parameter 'entries' which is to be a `::mlir::DictionaryAttr`}}
func.func @not_a_dictionary() attributes {tile.hints = #tile.hints<[1, 2]>} {
  return
}

// -----

// expected-error @below {{hint 'prefetch_registers' of target 'default' must be in [0, 255], got 256}}
func.func @prefetch_registers_too_large() attributes {tile.hints = #tile.hints<{default = {prefetch_registers = 256}}>} {
  return
}

// -----

// expected-error @below {{hint 'producer_registers' of target 'sm_90a' must be a multiple of 8 (setmaxnreg)}}
func.func @producer_registers_odd() attributes {tile.hints = #tile.hints<{sm_90a = {producer_registers = 36}}>} {
  return
}

// -----

// expected-error @below {{hint 'producer_registers' of target 'default' must be in [24, 256], got 16}}
func.func @producer_registers_too_few() attributes {tile.hints = #tile.hints<{default = {producer_registers = 16}}>} {
  return
}

// -----

// expected-error @below {{hint 'ring_slots' of target 'sm_90a' must be in [0, 16], got 17}}
func.func @ring_slots_too_many() attributes {tile.hints = #tile.hints<{sm_90a = {ring_slots = 17}}>} {
  return
}

// -----

// expected-error @below {{hint 'warp_specialize' of target 'sm_90a' must be in [0, 1], got 2}}
func.func @warp_specialize_two() attributes {tile.hints = #tile.hints<{sm_90a = {warp_specialize = 2}}>} {
  return
}

// -----

// tcgen05_tmem_acc: 0, 1 or 2 (resident also beside other tcgen05 mmas).
// expected-error @below {{hint 'tcgen05_tmem_acc' of target 'sm_100a' must be in [0, 2], got 3}}
func.func @tmem_acc_range() attributes {tile.hints = #tile.hints<{sm_100a = {tcgen05_tmem_acc = 3}}>} {
  return
}
