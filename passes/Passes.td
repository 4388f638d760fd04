//===- Passes.td - tessel's passes ------------------------------*- tablegen -*-===//

#ifndef TESSEL_PASSES
#define TESSEL_PASSES

include "mlir/Pass/PassBase.td"

def TileGPUAssignLayouts : Pass<"tilegpu-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tile a distributed layout";
  let description = [{
    Chooses how each tile value is spread over the threads of a CTA and records
    it as the encoding of the tile's tensor type. The number of warps comes
    from the kernel's `tile.hints` for the module's target (`tilegpu.target`,
    default `sm_90a`), else 4; it is recorded on the kernel as
    `tilegpu.num_warps`.

    Tiles that must share a layout are grouped (union-find): the operands and
    result of an elementwise op, the init / iteration argument / yield /
    result of a loop, the yields and results of an if, a cumsum's source and
    result, an mma's accumulator and result. A group holding an mma accumulator that is whole 16x8 blocks
    per warp gets `#tilegpu.mma` (mma.sync's accumulator registers: the mma
    then moves no data); other groups get the default `#tilegpu.blocked`,
    made for the group's narrowest element (16 bytes per thread along the
    last dimension). Then, repeatedly, the source of a broadcast or of a
    reshape that inserts unit dimensions into an mma-laid-out tile, when its
    group has no layout yet, gets the same layout (`#tilegpu.slice` of it for
    the inserted dimensions), so that per-row values meet the tile in the
    threads that hold its rows.

    Before:
    ```mlir
    %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<256xf32>
    ```
    After (4 warps):
    ```mlir
    %t = tile.load %x[%i] : !tile.view<?xf32> -> tensor<256xf32,
        #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32],
                         warpsPerCTA = [2], order = [0]>>
    ```
    (test/codegen/assign-layouts.mlir has the mma and slice cases.)
    Numerics are unchanged.
  }];
  let dependentDialects = ["::tessel::tilegpu::TileGPUDialect"];
}

def ConvertTileGPUToLLVM : Pass<"convert-tilegpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower distributed tile kernels to the LLVM and NVVM dialects";
  let description = [{
    Rewrites each kernel (`func.func` whose tiles carry layouts) into an
    `llvm.func` marked `nvvm.kernel`: a view argument becomes a global pointer,
    its sizes and its strides (i64); each tile becomes the scalars the running
    thread holds. Loads and stores are bounds-checked per element (vectorised
    up to 16 bytes when the view's alignment and unit stride allow); scans,
    reductions and shape changes go through one shared-memory buffer with
    barriers, or stay in registers where the layouts allow; `tile.mma`
    becomes mma.sync with ldmatrix fragments, its operands loaded by cp.async
    and, in loops, one iteration ahead (dynamic shared memory,
    `tilegpu.dynamic_shared_bytes`), an A operand in the accumulator layout
    (warps along M) taken from registers; with the `prefetch_registers` hint
    other loads in loops are issued one iteration ahead into registers the
    loop carries (16-bit tiles as the loaded words); `scf.for`/`scf.if` carry
    the per-thread scalars. Transcendentals use the PTX approximate instructions with range
    reduction (see the source). Ops the lowering does not handle yet are
    reported as errors. codegen/README.md has the whole table.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_PASSES
