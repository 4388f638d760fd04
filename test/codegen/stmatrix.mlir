// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-insert-tma --tilegpu-assign-latencies --tilegpu-schedule-loads --convert-tilegpu-to-llvm | FileCheck %s

// With the hint stmatrix = 1, a 16-bit mma result stored by the TMA goes to
// its staging buffer with stmatrix: a 64 x 64 bf16 tile on 4 warps is 16
// register pairs per thread, four stmatrix.x4 (four 32-bit words each) and
// no 32-bit shared stores (the GPU tests check where the elements land:
// test_mma_store_tma_*).
// CHECK-LABEL: llvm.func @mma_result_tma_store
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK-COUNT-4: nvvm.stmatrix %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @mma_result_tma_store(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %y: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, stmatrix = 1}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %w = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %w, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
    %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %h, %y[%c0, %c0] {tma = true} : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    return
  }
}

// -----

// Must not fire: without the hint (32-bit shared stores); with it, an f32
// tile (two words per pair), and a 16-bit tile in a blocked layout (as
// loaded: its lanes do not hold stmatrix's fragments).
// CHECK-LABEL: llvm.func @no_hint
// CHECK-NOT: nvvm.stmatrix
// CHECK: nvvm.wgmma.mma_async
// CHECK-COUNT-16: llvm.store {{.*}} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.wgmma_available, tilegpu.tma_available} {
  func.func @no_hint(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %y: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{default = {num_warps = 4}, sm_90a = {wgmma = 1}}>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %w = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %w, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x64xbf16>, tensor<64x64xf32>
    %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %h, %y[%c0, %c0] {tma = true} : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @f32_tile
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @f32_tile(%a: !tile.view<?x?xbf16>, %b: !tile.view<?x?xbf16>, %y: !tile.view<?x?xf32, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, stmatrix = 1}}>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x16xbf16>
    %w = tile.load %b[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    %d = tile.mma %x, %w, %z {precision = #tile<precision bf16>} : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
    tile.store %d, %y[%c0, %c0] {tma = true} : tensor<64x32xf32>, !tile.view<?x?xf32, align = 16, unit_stride>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @blocked_tile
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.return
module attributes {tilegpu.target = "sm_90a", tilegpu.tma_available} {
  func.func @blocked_tile(%x: !tile.view<?x?xf32>, %y: !tile.view<?x?xbf16, align = 16, unit_stride>) attributes {tile.hints = #tile.hints<{default = {num_warps = 4, stmatrix = 1}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
    %h = arith.truncf %t : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %h, %y[%c0, %c0] {tma = true} : tensor<64x64xbf16>, !tile.view<?x?xbf16, align = 16, unit_stride>
    return
  }
}
