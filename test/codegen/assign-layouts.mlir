// RUN: tessel-opt %s -split-input-file --tilegpu-assign-layouts | FileCheck %s

// The default layout: 4 elements per thread along the last dimension, lanes
// from the fastest dimension, warps from the slowest; num_warps from the hints
// of the module's target.
// CHECK-LABEL: func.func @hinted
// CHECK-SAME: tilegpu.num_warps = 8
// CHECK: tile.load {{.*}} -> tensor<256x16xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>>
// CHECK: tile.permute {{.*}} -> tensor<16x256xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>>
module attributes {tilegpu.target = "sm_90a"} {
  func.func @hinted(%x: !tile.view<?x?xf32>) attributes {tile.hints = #tile.hints<{default = {num_warps = 2}, sm_90a = {num_warps = 8}}>} {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0, %c0] : !tile.view<?x?xf32> -> tensor<256x16xf32>
    %p = tile.permute %t [1, 0] : tensor<256x16xf32> -> tensor<16x256xf32>
    return
  }
}

// -----

// Without a hint for the target, the `default` entry; without hints, 4 warps.
// Element types do not change the layout, so compares and selects line up.
// A tile smaller than the CTA's threads wraps around (threads share elements).
// CHECK-LABEL: func.func @default_warps
// CHECK-SAME: tilegpu.num_warps = 4
// CHECK: tile.load {{.*}} -> tensor<64xbf16, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: arith.extf {{.*}} to tensor<64xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// CHECK: arith.cmpf {{.*}} : tensor<64xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
module {
  func.func @default_warps(%x: !tile.view<?xbf16>) {
    %c0 = arith.constant 0 : i32
    %t = tile.load %x[%c0] : !tile.view<?xbf16> -> tensor<64xbf16>
    %f = arith.extf %t : tensor<64xbf16> to tensor<64xf32>
    %z = arith.constant dense<0.0> : tensor<64xf32>
    %c = arith.cmpf ogt, %f, %z : tensor<64xf32>
    return
  }
}

// -----

// Loop-carried tiles get the layout on the loop's results and block arguments.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32, #tilegpu.blocked
// CHECK: arith.addf {{.*}} : tensor<32x32xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
module {
  func.func @loop(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<32x32xf32>) : i32 {
      %a = arith.addf %acc, %acc : tensor<32x32xf32>
      scf.yield %a : tensor<32x32xf32>
    }
    return
  }
}
