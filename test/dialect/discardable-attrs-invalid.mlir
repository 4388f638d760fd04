// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// Discardable attributes in the tile namespace are checked on every op.

func.func @unknown_on_op() {
  // expected-error @below {{unknown tile dialect attribute 'tile.foo'}}
  %pid = tile.program_id 0 {tile.foo = 1}
  return
}

// -----

func.func @unknown_on_foreign_op(%a: i32) {
  // expected-error @below {{unknown tile dialect attribute 'tile.latency'}}
  %0 = arith.addi %a, %a {tile.latency = 2} : i32
  return
}

// -----

// expected-error @below {{unknown tile dialect attribute 'tile.num_warps'}}
func.func @unknown_on_function() attributes {tile.num_warps = 4} {
  return
}

// -----

// expected-error @below {{unknown tile dialect attribute 'tile.hint'}}
func.func @misspelled_hints() attributes {tile.hint = #tile.hints<{}>} {
  return
}

// -----

// expected-error @below {{unknown tile dialect attribute 'tile.foo'}}
module attributes {tile.foo} {
}

// -----

// Inherent attributes of tile ops are properties, not `tile.*` names; a
// `tile.`-prefixed spelling of one is an unknown discardable attribute.
func.func @prefixed_inherent(%x: !tile.view<?xf32>, %i: i32) {
  // expected-error @below {{unknown tile dialect attribute 'tile.latency'}}
  %t = tile.load %x[%i] {tile.latency = 2} : !tile.view<?xf32> -> tensor<16xf32>
  return
}

// -----

// tile.config: the compile-time constants a kernel was traced with.
// expected-error @below {{'tile.config' must be a dictionary of integers}}
func.func @config_not_dictionary() attributes {tile.config = 3} {
  return
}

// -----

// expected-error @below {{'tile.config' must be a dictionary of integers}}
func.func @config_float_entry() attributes {tile.config = {BLOCK_M = 64, scale = 1.0}} {
  return
}
