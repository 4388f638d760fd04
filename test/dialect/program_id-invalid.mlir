// RUN: tessel-opt %s -split-input-file -verify-diagnostics

func.func @dim_too_large() {
  // expected-error @below {{'tile.program_id' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = tile.program_id 3
  return
}

// -----

func.func @dim_negative() {
  // expected-error @below {{'tile.program_id' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = tile.program_id -1
  return
}

// -----

func.func @dim_not_i64() {
  // expected-error @below {{'tile.program_id' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = "tile.program_id"() <{dim = 0 : i32}> : () -> i32
  return
}

// -----

func.func @missing_dim() {
  // expected-error @below {{'tile.program_id' op requires attribute 'dim'}}
  %p = "tile.program_id"() : () -> i32
  return
}

// -----

func.func @result_not_i32() {
  // expected-error @below {{'tile.program_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %p = "tile.program_id"() <{dim = 0 : i64}> : () -> i64
  return
}

// -----

func.func @result_index() {
  // expected-error @below {{'tile.program_id' op result #0 must be 32-bit signless integer, but got 'index'}}
  %p = "tile.program_id"() <{dim = 1 : i64}> : () -> index
  return
}

// -----

func.func @has_operand(%x: i32) {
  // expected-error @below {{'tile.program_id' op requires zero operands}}
  %p = "tile.program_id"(%x) <{dim = 1 : i64}> : (i32) -> i32
  return
}

// -----

func.func @missing_dim_custom() {
  // expected-error @below {{expected attribute value}}
  %p = tile.program_id
  return
}
