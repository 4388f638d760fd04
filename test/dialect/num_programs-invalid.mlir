// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @dim_too_large() {
  // expected-error @below {{'tile.num_programs' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = tile.num_programs 3
  return
}

// -----

func.func @dim_negative() {
  // expected-error @below {{'tile.num_programs' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = tile.num_programs -1
  return
}

// -----

func.func @dim_not_i64() {
  // expected-error @below {{'tile.num_programs' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = "tile.num_programs"() <{dim = 0 : i32}> : () -> i32
  return
}

// -----

func.func @missing_dim() {
  // expected-error @below {{'tile.num_programs' op requires attribute 'dim'}}
  %p = "tile.num_programs"() : () -> i32
  return
}

// -----

func.func @result_not_i32() {
  // expected-error @below {{'tile.num_programs' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %p = "tile.num_programs"() <{dim = 0 : i64}> : () -> i64
  return
}

// -----

func.func @result_index() {
  // expected-error @below {{'tile.num_programs' op result #0 must be 32-bit signless integer, but got 'index'}}
  %p = "tile.num_programs"() <{dim = 1 : i64}> : () -> index
  return
}

// -----

func.func @has_operand(%x: i32) {
  // expected-error @below {{'tile.num_programs' op requires zero operands}}
  %p = "tile.num_programs"(%x) <{dim = 1 : i64}> : (i32) -> i32
  return
}

// -----

func.func @missing_dim_custom() {
  // expected-error @below {{expected attribute value}}
  %p = tile.num_programs
  return
}
