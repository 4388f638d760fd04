// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'tile.name' of argument #0 must be a string}}
func.func @integer_name(%x: !tile.view<?xf32> {tile.name = 3}) {
  return
}

// -----

// expected-error @below {{'tile.name' of argument #2 must be a string}}
func.func @third_argument(%a: i32, %b: i32 {tile.name = "b"}, %c: i32 {tile.name = @c}) {
  return
}

// -----

// expected-error @below {{'tile.name' of argument #0 must be a string}}
func.func @unit_name(%x: i32 {tile.name}) {
  return
}

// -----

// expected-error @below {{unknown tile dialect argument attribute 'tile.nmae'}}
func.func @misspelled(%x: i32 {tile.nmae = "x"}) {
  return
}

// -----

// Kernel-level attributes do not belong on arguments.
// expected-error @below {{unknown tile dialect argument attribute 'tile.hints'}}
func.func @hints_on_argument(%x: i32 {tile.hints = #tile.hints<{}>}) {
  return
}

// -----

// Nothing tile.* is defined on results.
// expected-error @below {{unknown tile dialect result attribute 'tile.name' on result #0}}
func.func @name_on_result() -> (i32 {tile.name = "r"}) {
  %c = arith.constant 0 : i32
  return %c : i32
}

// -----

// expected-error @below {{unknown tile dialect result attribute 'tile.foo' on result #1}}
func.func @second_result() -> (i32, i32 {tile.foo}) {
  %c = arith.constant 0 : i32
  return %c, %c : i32, i32
}

// -----

// A name belongs on the argument, not on the function.
// expected-error @below {{unknown tile dialect attribute 'tile.name'}}
func.func @name_on_function(%x: i32) attributes {tile.name = "x"} {
  return
}
