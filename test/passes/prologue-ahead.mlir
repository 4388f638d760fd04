// With the kernel hint prologue_ahead = 1, a loop in a loop issues its prologue (the copies of its first iterations)
// for the enclosing loop's next iteration as soon as it ends, so that their
// latency overlaps the rest of the enclosing iteration; its prologue where
// it starts then runs only in the enclosing loop's first iteration.
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-pipeline | FileCheck %s
// With remarks, every nested loop that issues loads ahead says where its
// prologue goes, and why not earlier:
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads=remarks=true -verify-diagnostics -o /dev/null
// The expansion: two copies in the prologue (the first enclosing iteration
// only), two in the loop, two after it (the next enclosing iteration's):
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-pipeline --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @ahead
// CHECK: scf.for
// CHECK: scf.for
// CHECK: } {tilegpu.prologue_ahead}
// LLVM-LABEL: llvm.func @ahead
// LLVM: scf.for %[[J:[^ ]+]] = %[[LB:[^ ]+]] to
// LLVM: arith.cmpi eq, %[[J]], %[[LB]] : i32
// (No proxy fence before the loop's first copies either.)
// LLVM-NOT: nvvm.fence.proxy
// LLVM-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: scf.for
// LLVM-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: nvvm.wgmma.mma_async
// LLVM: scf.yield
// The next column block, j + 1 (B's box starts at its row 64 (j + 1)):
// LLVM: %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : i32
// Only wgmma reads the rings, through the asynchronous proxy the copy engine
// writes them with: a barrier (every reader done), no proxy fence.
// LLVM-NOT: nvvm.fence.proxy
// LLVM: nvvm.barrier0
// LLVM-NEXT: scf.if
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LLVM: %[[ROW:.*]] = arith.muli %[[NEXT]], %{{.*}} : i32
// LLVM: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[%{{.*}}, %[[ROW]]]
// LLVM-NOT: nvvm.cp.async.bulk.tensor
// LLVM: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @ahead(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued during the enclosing loop's previous iteration}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Must not fire: the hint absent (off by default: compute_out on the H200
// was 3-6% slower with it; likely the barrier it adds after the loop).
// CHECK-LABEL: func.func @no_hint
// CHECK-NOT: tilegpu.prologue_ahead
// CHECK: return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @no_hint(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued where the loop starts: the kernel's prologue_ahead hint is 0 or absent}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Must not fire: cp.async copies (no TMA here: their groups are counted per
// loop).
// CHECK-LABEL: func.func @cp_async
// CHECK-NOT: tilegpu.prologue_ahead
// CHECK: return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @cp_async(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued where the loop starts: it issues a cp.async copy ahead (its groups are counted per loop)}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 9216 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 9216 bytes)}}
        %y = tile.load %b[%k, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %d = tile.mma %x, %y, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Two loops with rings in one body: the first fires (the lowering keeps its
// prologue's buffers taken after it; the second's rings go above them), the
// second does not (the first's rings would lie where its early copies
// wait). Must not fire: the enclosing loop writing a view read ahead,
// bounds carried by the enclosing loop.
// CHECK-LABEL: func.func @not_alone
// CHECK: } {tilegpu.prologue_ahead}
// CHECK-NOT: tilegpu.prologue_ahead
// CHECK: return
// The first loop's rings laid out stage by stage (x and y of stage 0, then
// of stage 1: 2 x 16384 bytes), stage 0 kept after it; the second loop's
// rings (2 x 2 x 8192) from byte 16384 on: 49152 bytes (32768 if they
// shared the first's bytes, 65536 with the first's rings kept whole).
// LLVM: tilegpu.dynamic_shared_bytes = 49152
// LLVM-LABEL: llvm.func @not_alone
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @not_alone(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued during the enclosing loop's previous iteration}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      // expected-remark @below {{prologue issued where the loop starts: a loop before it in the enclosing body has rings}}
      %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %s, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued where the loop starts: the enclosing loop writes a view the loop reads ahead}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      %h = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xbf16>
      tile.store %h, %b[%j, %i] : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    }
    %t = scf.for %j = %c0 to %m step %c1 iter_args(%bound = %n) -> (i32) : i32 {
      // expected-remark @below {{prologue issued where the loop starts: its bounds or indices depend on a value the enclosing loop carries or computes from tiles}}
      %r = scf.for %k = %c0 to %bound step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
      %nb = arith.subi %bound, %c1 : i32
      scf.yield %nb : i32
    }
    return
  }
}

// -----

// A loop-invariant TMA buffer directly in the enclosing body before the loop
// lies below the rings: fires. One allocated after the loop goes above the
// prologue's kept buffers: fires. One in a branch before the loop (freed
// where the branch ends, its bytes where the early copies would wait): does
// not.
// CHECK-LABEL: func.func @resident_before
// CHECK: } {tilegpu.prologue_ahead}
// CHECK-LABEL: func.func @resident_after
// CHECK: } {tilegpu.prologue_ahead}
// CHECK-LABEL: func.func @resident_in_branch_before
// CHECK-NOT: tilegpu.prologue_ahead
// CHECK: return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @resident_before(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      %w = tile.load %a[%i, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      // expected-remark @below {{prologue issued during the enclosing loop's previous iteration}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %w, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
  func.func @resident_after(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %e: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued during the enclosing loop's previous iteration}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      // A loop-invariant operand for the loop below (which writes the view
      // it loads, so it has no rings).
      %w = tile.load %a[%i, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
      %q = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32>) : i32 {
        %u = tile.load %e[%k, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %d = tile.mma %w, %u, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xbf16>
        tile.store %h, %e[%j, %k] : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %q, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
  func.func @resident_in_branch_before(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %e: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      %odd = arith.cmpi ne, %n, %c1 : i32
      scf.if %odd {
        // A loop-invariant operand for the loop below (which writes the view
        // it loads, so it has no rings), in the branch.
        %w = tile.load %a[%i, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %q = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
          %u = tile.load %e[%k, %j] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
          %d = tile.mma %w, %u, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
          %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xbf16>
          tile.store %h, %e[%j, %k] : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
          scf.yield %d : tensor<64x64xf32>
        }
        tile.store %q, %c[%j, %i] : tensor<64x64xf32>, !tile.view<?x?xf32>
      }
      // expected-remark @below {{prologue issued where the loop starts: a loop-invariant TMA buffer is allocated in a nested region before it in the enclosing body}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Must not fire: a load into registers carried ahead (with
// prefetch_registers) beside the TMA copies.
// CHECK-LABEL: func.func @registers
// CHECK-NOT: tilegpu.prologue_ahead
// CHECK: return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @registers(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %s: !tile.view<?x?xf32>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1, prefetch_registers = 32}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued where the loop starts: it carries a load into registers ahead}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead into}}
        %v = tile.load %s[%i, %k] : !tile.view<?x?xf32> -> tensor<64x64xf32>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        %e = arith.addf %d, %v : tensor<64x64xf32>
        scf.yield %e : tensor<64x64xf32>
      }
      tile.store %r, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}

// -----

// Loads issued at different distances (x 1 and y 2 ahead): the first loop's
// rings are not laid out stage by stage, so the lowering keeps them whole
// after the loop; the second loop's go above them.
// CHECK-LABEL: func.func @whole_rings_kept
// CHECK: } {tilegpu.prologue_ahead}
// CHECK-NOT: tilegpu.prologue_ahead
// CHECK: return
// The first loop's 2 + 3 buffers of 8192 bytes kept, the second's 2 x 2
// above them: 73728 bytes.
// LLVM: tilegpu.dynamic_shared_bytes = 73728
// LLVM-LABEL: llvm.func @whole_rings_kept
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available, tilegpu.wgmma_available} {
  func.func @whole_rings_kept(%a: !tile.view<?x?xbf16, align = 16, unit_stride>, %b: !tile.view<?x?xbf16, align = 16, unit_stride>, %c: !tile.view<?x?xf32>, %n: i32, %m: i32) attributes {tile.hints = #tile.hints<{default = {prologue_ahead = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.program_id 0
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    scf.for %j = %c0 to %m step %c1 : i32 {
      // expected-remark @below {{prologue issued during the enclosing loop's previous iteration}}
      %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 2 iterations ahead (3 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] {latency = 2 : i64} : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      // expected-remark @below {{prologue issued where the loop starts: a loop before it in the enclosing body has rings}}
      %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32>) : i32 {
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %x = tile.load %a[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        // expected-remark @below {{issued 1 iteration ahead (2 buffers of 8192 bytes)}}
        %y = tile.load %b[%j, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
        %yt = tile.permute %y [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
        %d = tile.mma %x, %yt, %acc {precision = #tile<precision bf16>} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %d : tensor<64x64xf32>
      }
      tile.store %s, %c[%i, %j] : tensor<64x64xf32>, !tile.view<?x?xf32>
    }
    return
  }
}
