// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --convert-tilegpu-to-llvm | FileCheck %s

// Hint pdl = 1: after the setup (the thread indices here; mbarrier
// initialisation and tensor-memory allocation where a kernel has them), the
// kernel lets its dependents launch, then waits for its predecessors,
// before the body's first global access; the module says the launch must
// allow the overlap.
// CHECK: module attributes {{{.*}}tilegpu.programmatic_launch
// CHECK-LABEL: llvm.func @pdl_on
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK-NOT: llvm.load
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: llvm.load {{.*}} : !llvm.ptr<1>
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @pdl_on(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {pdl = 1}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x32xf32>
    tile.store %t, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Without the hint (or with pdl = 0): neither instruction, no attribute.
// CHECK-NOT: tilegpu.programmatic_launch
// CHECK-LABEL: llvm.func @pdl_off
// CHECK-NOT: nvvm.griddepcontrol
// CHECK-LABEL: llvm.func @pdl_zero
// CHECK-NOT: nvvm.griddepcontrol
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @pdl_off(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x32xf32>
    tile.store %t, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @pdl_zero(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {pdl = 0}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x32xf32>
    tile.store %t, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    return
  }
}
