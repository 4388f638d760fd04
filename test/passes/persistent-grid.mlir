// RUN: tessel-opt %s -split-input-file --tilegpu-persistent-grid | FileCheck %s
// Applied twice it changes nothing more (the kernel is marked persistent):
// RUN: tessel-opt %s -split-input-file --tilegpu-persistent-grid --tilegpu-persistent-grid | FileCheck %s
// With remarks, every kernel says whether it was made persistent:
// RUN: tessel-opt %s -split-input-file --tilegpu-persistent-grid=remarks=true -verify-diagnostics -o /dev/null

// The hint (here from `default`) wraps the body in a loop over the logical
// programs, x fastest; program ids and grid sizes read the logical ones, the
// logical grid comes in three appended i32 parameters.
// CHECK-LABEL: func.func @copy
// CHECK-SAME: %[[X:[a-z0-9]+]]: !tile.view<?x?x?xf32>, %[[Y:[a-z0-9]+]]: !tile.view<?x?x?xf32>, %[[GX:[a-z0-9]+]]: i32 {tile.name = "grid_x"}, %[[GY:[a-z0-9]+]]: i32 {tile.name = "grid_y"}, %[[GZ:[a-z0-9]+]]: i32 {tile.name = "grid_z"})
// CHECK-SAME: tilegpu.persistent
// CHECK: %[[P:.*]] = tile.program_id 0
// CHECK: %[[N:.*]] = tile.num_programs 0
// CHECK: %[[XY:.*]] = arith.muli %[[GX]], %[[GY]] : i32
// CHECK: %[[T:.*]] = arith.muli %[[XY]], %[[GZ]] : i32
// CHECK: scf.for %[[I:.*]] = %[[P]] to %[[T]] step %[[N]] : i32 {
// CHECK-NEXT: %[[R:.*]] = arith.divui %[[I]], %[[GX]] : i32
// CHECK-NEXT: %[[PX:.*]] = arith.remui %[[I]], %[[GX]] : i32
// CHECK-NEXT: %[[PY:.*]] = arith.remui %[[R]], %[[GY]] : i32
// CHECK-NEXT: %[[PZ:.*]] = arith.divui %[[R]], %[[GY]] : i32
// CHECK-NOT: tile.program_id
// CHECK-NOT: tile.num_programs
// CHECK: %[[S:.*]] = arith.addi %[[PX]], %[[GZ]] : i32
// CHECK: tile.load %[[X]][%[[PZ]], %[[PY]], %[[S]]]
// CHECK: tile.store
// CHECK-NEXT: } {tilegpu.program_loop}
// CHECK-NEXT: return
module attributes {tilegpu.target = "sm_90a"} {
  // expected-remark @below {{persistent: the body walks the logical grid}}
  func.func @copy(%x: !tile.view<?x?x?xf32>, %y: !tile.view<?x?x?xf32>) attributes {tile.hints = #tile.hints<{default = {persistent = 1}}>} {
    %j = tile.program_id 0
    %i = tile.program_id 1
    %b = tile.program_id 2
    %nz = tile.num_programs 2
    %s = arith.addi %j, %nz : i32
    %t = tile.load %x[%b, %i, %s] : !tile.view<?x?x?xf32> -> tensor<1x16x32xf32>
    tile.store %t, %y[%b, %i, %j] : tensor<1x16x32xf32>, !tile.view<?x?x?xf32>
    return
  }
}

// -----

// Program ids inside loops and branches are rewritten too.
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: tile.program_id
// CHECK: } {tilegpu.program_loop}
module attributes {tilegpu.target = "sm_90a"} {
  // expected-remark @below {{persistent: the body walks the logical grid}}
  func.func @nested(%x: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{sm_90a = {persistent = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %i = tile.program_id 0
      %t = tile.load %x[%i, %k] : !tile.view<?x?xf32> -> tensor<16x32xf32>
      tile.store %t, %x[%k, %i] : tensor<16x32xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Must not fire: no hint, the hint 0, or the hint of another target.
// CHECK-LABEL: func.func @no_hint
// CHECK-SAME: (%{{.*}}: !tile.view<?x?xf32>)
// CHECK-NOT: tilegpu.persistent
// CHECK: tile.program_id 0
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @zero
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @other_target
// CHECK-NOT: scf.for
// CHECK: return
module attributes {tilegpu.target = "sm_90a"} {
  // expected-remark @below {{not persistent: the kernel's persistent hint is 0 or absent}}
  func.func @no_hint(%x: !tile.view<?x?xf32>) {
    %i = tile.program_id 0
    %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<16x32xf32>
    tile.store %t, %x[%i, %i] : tensor<16x32xf32>, !tile.view<?x?xf32>
    return
  }
  // expected-remark @below {{not persistent: the kernel's persistent hint is 0 or absent}}
  func.func @zero(%x: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {persistent = 1}, sm_90a = {persistent = 0}}>} {
    %i = tile.program_id 0
    %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<16x32xf32>
    tile.store %t, %x[%i, %i] : tensor<16x32xf32>, !tile.view<?x?xf32>
    return
  }
  // expected-remark @below {{not persistent: the kernel's persistent hint is 0 or absent}}
  func.func @other_target(%x: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{sm_100a = {persistent = 1}}>} {
    %i = tile.program_id 0
    %t = tile.load %x[%i, %i] : !tile.view<?x?xf32> -> tensor<16x32xf32>
    tile.store %t, %x[%i, %i] : tensor<16x32xf32>, !tile.view<?x?xf32>
    return
  }
}
