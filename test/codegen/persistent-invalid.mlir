// RUN: tessel-opt %s --tilegpu-assign-layouts --convert-tilegpu-to-llvm -verify-diagnostics

// A hand-written tilegpu.persistent on a kernel without the logical grid
// parameters (the runtime would pass three arguments it does not take).
module attributes {tilegpu.target = "sm_90a"} {
  // expected-error @below {{'tilegpu.persistent' on a kernel whose last three parameters are not the logical grid (i32 grid_x, grid_y, grid_z: run --tilegpu-persistent-grid)}}
  func.func @persistent(%x: !tile.view<?xf32>, %a: i32, %b: i32, %c: i32) attributes {tilegpu.persistent, tile.hints = #tile.hints<{default = {num_warps = 4}}>} {
    return
  }
}
