// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s
// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=COUNT

// A kernel becomes an llvm.func marked nvvm.kernel with the view ABI
// (pointer, sizes, strides) and the CTA size from num_warps; a program id is
// ctaid; each thread holds its registers of the tile.
// CHECK: llvm.mlir.global internal @tessel_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x i8>
// CHECK-LABEL: llvm.func @copy_transpose
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[Y:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.reqntid = array<i32: 64, 1, 1>
// CHECK-NOT: tile.
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// The load: bounds-checked, 16-byte vectors when stride and alignment allow.
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// The transpose through shared memory: the threads write it (no barrier
// before: nothing has touched the scratch buffer yet), a barrier, and read
// it back in 16-byte vectors.
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @copy_transpose(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {num_warps = 2}}>} {
    %i = tile.program_id 0
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%i, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
    %p = tile.permute %t [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
    tile.store %p, %y[%c0, %i] : tensor<16x16xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// Must keep it: a second transpose writes the scratch buffer the first one's
// reads used, so a barrier comes before its writes; in a branch too, and
// after a branch one of whose paths read it.
// 7 barriers: after the first transpose's writes, before and after each
// other's.
// COUNT-LABEL: llvm.func @two_transposes
// COUNT-COUNT-7: nvvm.barrier0
// COUNT-NOT: nvvm.barrier0
// COUNT: llvm.return
// CHECK-LABEL: llvm.func @two_transposes
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: scf.if
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @two_transposes(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xf32>, %c: i1) attributes {tile.hints = #tile.hints<{default = {num_warps = 2}}>} {
    %i = tile.program_id 0
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%i, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
    %p = tile.permute %t [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
    %q = tile.permute %p [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
    %r = scf.if %c -> (tensor<16x16xf32>) {
      %u = tile.permute %q [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
      scf.yield %u : tensor<16x16xf32>
    } else {
      scf.yield %q : tensor<16x16xf32>
    }
    %v = tile.permute %r [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
    tile.store %v, %y[%c0, %i] : tensor<16x16xf32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// A scan along the fastest lane dimension uses warp shuffles, not shared
// memory. The result is stored over its input: other threads' loads of that
// view must be done first (the one barrier).
// CHECK-LABEL: llvm.func @row_scan
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync up
// CHECK: nvvm.shfl.sync idx
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @row_scan(%x: !tile.view<?x?xf32, align = 16, unit_stride>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32, align = 16, unit_stride> -> tensor<8x128xf32>
    %s = tile.cumsum %t {axis = 1 : i64} : tensor<8x128xf32>
    tile.store %s, %x[%c0, %c0] : tensor<8x128xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    return
  }
}

// -----

// tile.mma becomes mma.sync with bf16 fragments packed into i32.
// CHECK-LABEL: llvm.func @mma
// CHECK: nvvm.mma.sync
// CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @mma(%a: !tile.view<?x?xbf16>, %c: !tile.view<?x?xf32>) {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x16xbf16>
    %z = arith.constant dense<0.0> : tensor<16x8xf32>
    %y = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x8xbf16>
    %d = tile.mma %x, %y, %z {precision = #tile<precision bf16>} : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xf32>
    tile.store %d, %c[%c0, %c0] : tensor<16x8xf32>, !tile.view<?x?xf32>
    return
  }
}


// -----

// A rank-0 tile (every view dimension squeezed) is one value every thread
// holds: no layout, one scalar access, no vector.
// CHECK-LABEL: llvm.func @scalar_tile
// CHECK-NOT: vector<
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @scalar_tile(%x: !tile.view<?xf32, align = 16, unit_stride>, %y: !tile.view<?x?xf32>) {
    %i = tile.program_id 0
    %t = tile.load %x[%i] {squeeze = array<i64: 0>} : !tile.view<?xf32, align = 16, unit_stride> -> tensor<f32>
    %u = arith.addf %t, %t : tensor<f32>
    tile.store %u, %y[%i, %i] {squeeze = array<i64: 0, 1>} : tensor<f32>, !tile.view<?x?xf32>
    return
  }
}

// -----

// f32 -> bf16 / f16 of a select converts two registers at a time
// (cvt.rn.bf16x2.f32, the high half from the second operand), so that the
// select stays in f32 and is not sunk into 16-bit selects; other
// conversions stay fptruncs (NVPTX pairs those next to their use).
// CHECK-LABEL: llvm.func @truncate_pairs
// CHECK-NOT: arith.truncf
// CHECK: %[[S0:.*]] = arith.select %{{.*}} : f32
// CHECK-NEXT: %[[S1:.*]] = arith.select %{{.*}} : f32
// The first register is element 0, the low half: the second operand.
// CHECK: %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"(%[[S1]], %[[S0]]) : (f32, f32) -> vector<2xbf16>
// CHECK: llvm.extractelement %[[P]]
// CHECK-NOT: arith.truncf
// CHECK: "llvm.nvvm.ff2f16x2.rn"({{.*}}) : (f32, f32) -> vector<2xf16>
// CHECK-NOT: ff2bf16x2
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.ff2
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @truncate_pairs(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xbf16>, %z: !tile.view<?x?xf16>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
    %zero = arith.constant dense<0.0> : tensor<16x16xf32>
    %m = arith.cmpf ogt, %t, %zero : tensor<16x16xf32>
    %s = arith.select %m, %t, %zero : tensor<16x16xi1>, tensor<16x16xf32>
    %b = arith.truncf %s : tensor<16x16xf32> to tensor<16x16xbf16>
    tile.store %b, %y[%c0, %c0] : tensor<16x16xbf16>, !tile.view<?x?xbf16>
    %h = arith.truncf %s : tensor<16x16xf32> to tensor<16x16xf16>
    tile.store %h, %z[%c0, %c0] : tensor<16x16xf16>, !tile.view<?x?xf16>
    %p = arith.truncf %t : tensor<16x16xf32> to tensor<16x16xbf16>
    tile.store %p, %y[%c1, %c0] : tensor<16x16xbf16>, !tile.view<?x?xbf16>
    return
  }
}

// -----

// A load of 16-bit elements travels as its loaded words (two per i32) until
// the op that first uses it: the words are unpacked (a bitcast to
// vector<2xbf16>, then extracts) after the loop in between, not where the
// load stands, where every thread would wait for the load (compute_out's
// D x_t, loaded before the state term). A load used by the next op is
// unpacked where it stands, in the interior path and the border path.
// CHECK-LABEL: llvm.func @unpack_at_first_use
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-NOT: vector<2xbf16>
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xbf16>
// CHECK: arith.extf
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @unpack_where_loaded
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-NOT: llvm.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK: scf.yield
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a"} {
  func.func @unpack_at_first_use(%x: !tile.view<?x?xbf16, unit_stride>, %a: !tile.view<?xf32, unit_stride>, %y: !tile.view<?x?xf32>, %n: i32) attributes {tile.hints = #tile.hints<{default = {num_warps = 1}}>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, unit_stride> -> tensor<16x16xbf16>
    %zero = arith.constant dense<0.0> : tensor<16x16xf32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
      %l = tile.load %a[%k] : !tile.view<?xf32, unit_stride> -> tensor<16xf32>
      %row = tile.reshape %l : tensor<16xf32> -> tensor<1x16xf32>
      %b = tile.broadcast %row : tensor<1x16xf32> -> tensor<16x16xf32>
      %s = arith.addf %acc, %b : tensor<16x16xf32>
      scf.yield %s : tensor<16x16xf32>
    }
    %f = arith.extf %t : tensor<16x16xbf16> to tensor<16x16xf32>
    %o = arith.addf %r, %f : tensor<16x16xf32>
    tile.store %o, %y[%c0, %c0] : tensor<16x16xf32>, !tile.view<?x?xf32>
    return
  }
  func.func @unpack_where_loaded(%x: !tile.view<?x?xbf16, unit_stride>, %y: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {num_warps = 1}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xbf16, unit_stride> -> tensor<16x16xbf16>
    %f = arith.extf %t : tensor<16x16xbf16> to tensor<16x16xf32>
    tile.store %f, %y[%c0, %c0] : tensor<16x16xf32>, !tile.view<?x?xf32>
    return
  }
}
