// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s

// CHECK-LABEL: func.func @all_dims
func.func @all_dims() -> (i32, i32, i32) {
  // CHECK: %[[X:.*]] = tile.num_programs 0{{$}}
  // CHECK: %[[Y:.*]] = tile.num_programs 1{{$}}
  // CHECK: %[[Z:.*]] = tile.num_programs 2{{$}}
  // CHECK: return %[[X]], %[[Y]], %[[Z]] : i32, i32, i32
  %x = tile.num_programs 0
  %y = tile.num_programs 1
  %z = tile.num_programs 2
  return %x, %y, %z : i32, i32, i32
}

// A grid-stride loop: program_id and num_programs together.
// CHECK-LABEL: func.func @grid_stride
func.func @grid_stride(%n: i32) {
  // CHECK-DAG: %[[PID:.*]] = tile.program_id 0
  // CHECK-DAG: %[[NP:.*]] = tile.num_programs 0
  // CHECK: scf.for %{{.*}} = %[[PID]] to %{{.*}} step %[[NP]] : i32
  %pid = tile.program_id 0
  %np = tile.num_programs 0
  scf.for %i = %pid to %n step %np : i32 {
  }
  return
}
