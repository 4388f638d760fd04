//===- Passes.td - tessel's passes ------------------------------*- tablegen -*-===//

#ifndef TESSEL_PASSES
#define TESSEL_PASSES

include "mlir/Pass/PassBase.td"

def TileGPUAssignLayouts : Pass<"tilegpu-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tile a distributed layout";
  let description = [{
    Chooses how each tile value is spread over the threads of a CTA and records
    it as the encoding of the tile's tensor type (`#tilegpu.blocked`). The
    number of warps comes from the kernel's `tile.hints` for the module's
    target (`tilegpu.target`, default `sm_90a`), else 4; it is recorded on the
    kernel as `tilegpu.num_warps`. Today every tile gets the default blocked
    layout of its shape; ops that need another arrangement (scans, shape
    changes) move data through shared memory when lowered.

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
    barriers; `scf.for`/`scf.if` carry the per-thread scalars. Transcendentals
    use the PTX approximate instructions with range reduction (see the source).
    Ops the lowering does not handle yet are reported as errors.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TESSEL_PASSES
