// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// CHECK-LABEL: func.func @all_dims
func.func @all_dims() -> (i32, i32, i32) {
  // CHECK: %[[X:.*]] = tile.program_id 0{{$}}
  // CHECK: %[[Y:.*]] = tile.program_id 1{{$}}
  // CHECK: %[[Z:.*]] = tile.program_id 2{{$}}
  // CHECK: return %[[X]], %[[Y]], %[[Z]] : i32, i32, i32
  %x = tile.program_id 0
  %y = tile.program_id 1
  %z = tile.program_id 2
  return %x, %y, %z : i32, i32, i32
}

// The result is an i32 usable by arith (tile indices are i32).
// CHECK-LABEL: func.func @index_math
func.func @index_math(%n: i32) -> i32 {
  // CHECK: %[[PID:.*]] = tile.program_id 0
  // CHECK: %[[MUL:.*]] = arith.muli %[[PID]], %{{.*}} : i32
  // CHECK: return %[[MUL]] : i32
  %pid = tile.program_id 0
  %r = arith.muli %pid, %n : i32
  return %r : i32
}

// Discardable attributes outside the tile namespace survive the round trip.
// CHECK-LABEL: func.func @extra_attr
func.func @extra_attr() -> i32 {
  // CHECK: tile.program_id 1 {note = "y"}
  %y = tile.program_id 1 {note = "y"}
  return %y : i32
}
