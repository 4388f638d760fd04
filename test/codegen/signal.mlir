// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --convert-tilegpu-to-llvm 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err

// A kernel that signals (pdl = 1): it waits for its predecessors first and
// only then lets its dependents launch (they may start before it ends, and
// find every kernel before it complete). The signal: a CTA barrier after the
// store, then thread 0 releases at GPU scope and adds to the counter.
// CHECK-LABEL: llvm.func @signals
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @signals(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>, %flags: !tile.view<?xi32>) attributes {tile.hints = #tile.hints<{default = {pdl = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x32xf32>
    tile.store %t, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    tile.signal %flags[%c0], %c1 : !tile.view<?xi32>
    return
  }
}

// -----

// Launched plainly (no pdl hint), a signalling kernel has no dependency
// wait and no trigger: a plainly launched kernel's trigger did not let the
// next one start early on the H200 (bench/results/2026-12-02-overlap-
// wired.md). Its signal is lowered as with pdl, and a warning says that
// nothing can overlap it (the kernels above and below, with pdl = 1, get
// none).
// WARN-NOT: warning
// WARN: signal.mlir:[[@LINE+14]]:5: warning: the kernel signals but is not compiled for programmatic dependent launch
// WARN-NOT: warning
// CHECK-LABEL: llvm.func @signals_plain
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @signals_plain(%y: !tile.view<?x?xf32>, %flags: !tile.view<?xi32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    tile.store %z, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    tile.signal %flags[%c0], %c1 : !tile.view<?xi32>
    return
  }
}

// -----

// A kernel that waits on a counter (pdl = 1) lets its dependents launch but
// does not wait at its start: with a count, thread 0 polls with acquire
// loads (nanosleep between), a barrier and a proxy fence follow; without
// one, griddepcontrol.wait. The load of x comes after both.
// CHECK-LABEL: llvm.func @waits
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol wait
// CHECK: llvm.load {{.*}} atomic syncscope("device") acquire
// CHECK: nvvm.nanosleep
// CHECK: nvvm.barrier0
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK: nvvm.griddepcontrol wait
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @waits(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>, %flags: !tile.view<?xi32>, %count: i32) attributes {tile.hints = #tile.hints<{default = {pdl = 1}}>} {
    %c0 = arith.constant 0 : i32
    tile.wait %flags[%c0], %count : !tile.view<?xi32>
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x32xf32>
    tile.store %t, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// early_loads: the load of x placed before the wait stays before the poll
// (its latency overlaps the wait's); the store comes after it.
// CHECK-LABEL: llvm.func @waits_after_load
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector
// CHECK: llvm.load {{.*}} atomic syncscope("device") acquire
// CHECK: nvvm.barrier0
// CHECK: llvm.store
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @waits_after_load(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>, %flags: !tile.view<?xi32>, %count: i32) attributes {tile.hints = #tile.hints<{default = {pdl = 1}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<32x32xf32>
    tile.wait %flags[%c0], %count {early_loads} : !tile.view<?xi32>
    tile.store %t, %y[%c0, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A wait for earlier programs of the kernel (earlier_programs), in a
// branch: not the kernel's dependency point, so the kernel still waits for
// the kernels before it at its start (pdl = 1); its signal, on the counters
// that wait reads, is for the kernel's later programs and moves no trigger
// (the dependents may launch before the wait, as for a kernel without
// signals). Where the count is asked for, thread 0 polls with acquire
// loads, and every thread meets at the barrier after; no
// griddepcontrol.wait in its place. The signal after it releases the
// program's stores.
// CHECK-LABEL: llvm.func @waits_for_earlier
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK: scf.if
// CHECK: llvm.load {{.*}} atomic syncscope("device") acquire
// CHECK: nvvm.nanosleep
// CHECK: nvvm.barrier0
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> vector
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @waits_for_earlier(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>, %flags: !tile.view<?xi32>, %c: i1) attributes {tile.hints = #tile.hints<{default = {pdl = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %p = tile.program_id 0
    %prev = arith.subi %p, %c1 : i32
    scf.if %c {
      tile.wait %flags[%prev], %c1 {earlier_programs} : !tile.view<?xi32>
    }
    %t = tile.load %x[%p, %c0] : !tile.view<?x?xf32> -> tensor<32x32xf32>
    tile.store %t, %y[%p, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    tile.signal %flags[%p], %c1 : !tile.view<?xi32>
    return
  }
}

// -----

// The same with a second signal, on a view no wait of the kernel reads: that
// one is for the next kernel, so the kernel lets its dependents launch only
// after its own dependency wait. Without pdl the warning names that signal,
// not the one for the kernel's later programs (WARN above: one warning in
// the file).
// CHECK-LABEL: llvm.func @signals_both_ways
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @signals_both_ways(%y: !tile.view<?x?xf32>, %flags: !tile.view<?xi32>, %done: !tile.view<?xi32>) attributes {tile.hints = #tile.hints<{default = {pdl = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %p = tile.program_id 0
    %prev = arith.subi %p, %c1 : i32
    tile.wait %flags[%prev], %c1 {earlier_programs} : !tile.view<?xi32>
    %t = arith.constant dense<1.0> : tensor<32x32xf32>
    tile.store %t, %y[%p, %c0] : tensor<32x32xf32>, !tile.view<?x?xf32>
    tile.signal %flags[%p], %c1 : !tile.view<?xi32>
    tile.signal %done[%c0], %c1 : !tile.view<?xi32>
    return
  }
}

// -----

// Without pdl, a kernel whose only signal is for its later programs draws
// no warning: nothing was to overlap.
// CHECK-LABEL: llvm.func @chains_plainly
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @chains_plainly(%flags: !tile.view<?xi32>) {
    %c1 = arith.constant 1 : i32
    %p = tile.program_id 0
    %prev = arith.subi %p, %c1 : i32
    tile.wait %flags[%prev], %c1 {earlier_programs} : !tile.view<?xi32>
    tile.signal %flags[%p], %c1 : !tile.view<?xi32>
    return
  }
}

// -----

// A ticket: thread 0 adds 1 (relaxed, GPU scope: it publishes nothing) where
// the counter is in bounds, else takes 0, and writes the value to shared
// memory; after a barrier every thread reads it (here the index of a
// store).
// CHECK-LABEL: llvm.func @takes_ticket
// CHECK: scf.if
// CHECK: llvm.atomicrmw add {{.*}} syncscope("device") monotonic
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} !llvm.ptr<3> -> i32
module attributes {tilegpu.target = "sm_90a"} {
  func.func @takes_ticket(%order: !tile.view<?xi32>, %y: !tile.view<?xi32>) {
    %c0 = arith.constant 0 : i32
    %t = tile.ticket %order[%c0] : !tile.view<?xi32>
    %v = arith.constant dense<1> : tensor<128xi32>
    tile.store %v, %y[%t] : tensor<128xi32>, !tile.view<?xi32>
    return
  }
}
