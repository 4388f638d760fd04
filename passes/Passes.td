//===- Passes.td - tessel's passes ------------------------------*- tablegen -*-===//

#ifndef TESSEL_PASSES
#define TESSEL_PASSES

include "mlir/Pass/PassBase.td"

def TileRouteMmaOperands : Pass<"tile-route-mma-operands", "mlir::ModuleOp"> {
  let summary = "Move the mma operand computed in registers into the A slot "
                "by the transpose identity";
  let description = [{
    The tensor cores read an mma's B operand only from shared memory, while
    the A slot also takes registers (wgmma) or tensor memory (tcgen05). An
    `tile.mma %a, %b, %acc` whose B is computed by the threads and whose A
    comes from memory (a `tile.load`, or a transposed one) is rewritten by
    (A·B)ᵀ = Bᵀ·Aᵀ into

    ```mlir
    %m = tile.mma T(%b), T(%a), T(%acc)    // T: tile.permute [1, 0]
    %r = T(%m)
    ```

    when every transpose folds away, which is when routing pays:
    - T(%b) is computed without permuting a register tile: %b is a
      transpose (T(T(x)) = x), a splat, an iota (the other axis), a vector
      given a unit dimension (`tile.reshape` 64 -> 64x1: the other unit
      dimension), or, used only by this mma, a broadcast of such, an
      elementwise `arith`/`math` op of such, or an mma of loaded operands
      (routed in turn, its shape checked as below);
    - T(%a) of a load is a permute the mma lowering stages for free (it
      reads the staged source the other way round);
    - the accumulator is a splat whose result's every use is a transpose
      (T(%r) folds), or is carried by a `scf.for` (the iteration argument
      used only by this mma, whose result the loop yields and uses nowhere
      else) with a splat or free initial value: the loop then carries it
      transposed, nothing is permuted inside, and one transpose follows the
      loop (unless the loop sits in another loop and its result's uses are
      not transposes: that would be a register permute per outer iteration).

    It does not fire when A is computed too or B is loaded (nothing to
    gain), for tf32 unless routing makes the operands K-major (A a load
    as it is, B computed and not a transpose: the only tf32 form wgmma and
    tcgen05 read; tf32 A never comes from registers), when the mma's result
    is M x N with M a multiple of 64 and N not (the routed N x M would lose
    the 64-row blocks of wgmma and tcgen05) or M > 256, on tiles that
    already have layouts, or in a kernel whose hint `route_mma_operands` is
    0. Numerics are unchanged (the same products, summed in the same order
    per element).

    Before (Oᵀ accumulated from Pᵀ = (B·Cᵀ)ᵀ computed in registers):
    ```mlir
    %o = scf.for %s = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
      %bc = tile.mma %b, %ct, %zero : ...          // B·Cᵀ, loaded operands
      %pt = arith.truncf %bc : ... to tensor<64x64xbf16>
      %xt = tile.permute %x [1, 0] : ...
      %m = tile.mma %xt, %pt, %acc : ...           // computed tile in B
      scf.yield %m : tensor<64x64xf32>
    }
    ```
    After: the inner mma computes C·Bᵀ, `tile.mma %p, %x, %acc'` takes the
    computed tile in A, the loop carries O, and one permute follows the loop
    (test/passes/route-mma-operands.mlir).

    With `remarks=true` every mma gets a remark saying whether it was routed
    and, if not, why.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Say for every mma whether it was routed, and why not">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

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
    last dimension; one element where every load and store of the group
    runs along a squeezed view dimension, which no vector access can
    serve). Then, repeatedly, the source of a broadcast or of a
    reshape that inserts unit dimensions into an mma-laid-out tile, when its
    group has no layout yet, gets the same layout (`#tilegpu.slice` of it for
    the inserted dimensions), so that per-row values meet the tile in the
    threads that hold its rows. Except a 1-D group that loads its elements
    and computes a transcendental function of them (exp2, exp, log, tanh,
    sqrt, ...) where the slice would replicate it over 8 or more threads
    (chunk_state's per-token weights exp2(Acs_last - Acs) dt: 16 of the 64
    tokens in every one of 128 threads): it keeps the blocked layout, each
    element loaded and computed about once, and the reshape moves the
    result through shared memory.

    With the warpgroup or tensor-memory MMAs, a 16-bit tile computed in
    registers whose transpose is only ever an mma's A operand gets the
    transposed accumulator layout (`#tilegpu.mma<..., transposed = true>`),
    and the transpose the accumulator's: the transpose then renames
    registers and A goes to the mma from registers (tensor memory). Not when
    the kernel's `wgmma_register_a` / `tcgen05_tmem_a` hint is 0, the tile is
    itself an mma operand, a load in its group is one the TMA could not copy
    (it would become one 2-byte load per element), or (tcgen05) A would not
    fit in tensor memory beside the accumulator.

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

def TileGPUInsertTma : Pass<"tilegpu-insert-tma", "mlir::ModuleOp"> {
  let summary = "Mark the loads and stores the TMA copies";
  let description = [{
    On a target with the tensor memory accelerator (module attribute
    `tilegpu.tma_available`), marks `tilegpu.tma` (a unit attribute):
    - each `tile.load` whose tile only feeds mma operands (directly or
      through a transpose the mma folds), either in the load's block with
      nothing writing memory in between (copied where the mma uses it, or
      prefetched by the loop around it) or loop-invariant for mmas in loops
      below it (copied once into its own buffer);
    - each `tile.load` of 16-bit elements in the transposed mma layout
      (read into registers with ldmatrix.trans from the copy);
    - each `tile.store` with `tma = true` that is the only access to its
      view;
    when the tile is one TMA box: a 2-D tile of 2- or 4-byte elements from
    a kernel argument view (rank <= 5, unit stride, 16-byte alignment)
    whose rows lie along the view's last dimension in whole 128-byte panels,
    with a multiple of 8 rows, at most 256. A load with `allow_tma = false`
    is never marked. convert-tilegpu-to-llvm then copies the marked tiles
    with `cp.async.bulk.tensor` (completing on mbarriers) through one
    `CUtensorMap` per (view, box, direction), passed as a grid-constant
    parameter and built by the runtime; it rejects a mark these rules do
    not allow. The rules live in passes/TmaPlan.h, shared with the
    lowering. Numerics are unchanged.

    ```mlir
    %t = tile.load %v[%i, %k] : !tile.view<?x?xbf16, align = 16, unit_stride> -> tensor<64x64xbf16>
    %m = tile.mma %t, %u, %acc ...
    ```
    becomes
    ```mlir
    %t = tile.load %v[%i, %k] {tilegpu.tma} : ...
    ```
    (test/passes/insert-tma.mlir has the cases where it must not fire).

    With the kernel hint `multicast` = 1 and a `cluster` of 2 or more CTAs
    (no producer warpgroup), each marked load whose tile is the same in every
    CTA of the cluster is also marked `tilegpu.multicast = C` (the cluster's
    CTAs): 2-D, its rows a multiple of 8 per CTA, and its indices, the
    bounds of the loops and the conditions of the branches around it built
    from constants, scalar arguments, views' sizes, program ids along
    dimensions the cluster does not span and program_id(d) divided by a
    multiple of the cluster's extent along d (passes/TmaPlan.cpp
    `clusterUniform`). Where a loop's ring or a resident buffer holds it, the
    lowering then copies it once per cluster, each CTA a slice of the rows
    into every CTA (test/passes/insert-tma-multicast.mlir).

    With `remarks=true` every load, and every store that asks for the TMA,
    gets a remark saying whether the TMA copies it and, if not, why (and,
    where the kernel asks for multicast, whether it is multicast).
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Say for every load and TMA store whether the TMA copies it, and "
           "why not">,
  ];
}

def TileGPUPersistentGrid
    : Pass<"tilegpu-persistent-grid", "mlir::ModuleOp"> {
  let summary = "Wrap a kernel with the persistent hint in a loop over its "
                "programs";
  let description = [{
    A kernel whose hint `persistent` is 1 (for the target compiled for, else
    `default`) is launched on as many CTAs as fit on the GPU at once, each
    walking the logical programs in turn. The pass appends three i32
    parameters, the logical grid (`tile.name` "grid_x", "grid_y",
    "grid_z"), and wraps the body in

    ```mlir
    %p = tile.program_id 0
    %n = tile.num_programs 0
    %total = gx * gy * gz
    scf.for %t = %p to %total step %n : i32 {   // tilegpu.program_loop
      // the body; tile.program_id d reads t mod gx, (t / gx) mod gy,
      // t / (gx * gy); tile.num_programs d reads the parameter
    }
    ```

    marking the kernel `tilegpu.persistent` and the loop
    `tilegpu.program_loop`. Programs are visited in launch order (x
    fastest): CTA k takes programs k, k + P, k + 2P, ... of the P CTAs
    launched. Loads directly in the program loop are not pipelined across
    programs (tilegpu-assign-latencies); the loops inside are pipelined as
    before, their rings restarting per program (or, with the hint
    `prologue_ahead`, a loop's first copies for the next program issued as
    it ends: tilegpu-schedule-loads). The
    lowering exports `tessel_grid_<kernel>` ({1, 1}: version, persistent),
    from which the runtime knows to pass the logical grid and to launch
    min(programs, CTAs per SM x SMs) CTAs (the driver's occupancy for the
    kernel). It does not fire without the hint, on a kernel it already
    rewrote, and it rejects a kernel it cannot wrap (no body, a body of
    several blocks or not ending in a plain return, or results). Numerics are unchanged.

    With `remarks=true` each kernel says whether it was made persistent.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Say for every kernel whether it was made persistent">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def TileGPUAssignLatencies
    : Pass<"tilegpu-assign-latencies", "mlir::ModuleOp"> {
  let summary = "The software pipeline, step 1: how long each load's copy "
                "should be in flight";
  let description = [{
    Marks `tilegpu.latency = N : i64` (N >= 1 loop iterations) on each
    `tile.load` the pipeline can issue ahead (passes/PipelinePlan.h): it
    stands directly in an `scf.for` body, its tile only feeds mma operands
    there (so its copy goes to shared memory, never to registers), the
    loop does not write its view, its indices can be evaluated for a later
    iteration, and a TMA copy feeds a single mma operand; or, in a kernel
    with the `prefetch_registers` hint, a load whose tile lands in
    registers under the same conditions (and whose layout is assigned). N
    is the load's `latency` hint, else the kernel's `num_stages` hint minus
    one (`num_stages = 1`: none), else 1 (two buffers: what measured best
    for the Mamba-2 kernels on the H200).

    ```mlir
    scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (...) {
      %a = tile.load %x[%i, %k] {latency = 2 : i64} : ... -> tensor<64x64xbf16, ...>
      %m = tile.mma %a, %b, %acc ...
    ```
    gets `tilegpu.latency = 2 : i64` on the load
    (test/passes/pipeline-latencies.mlir has the cases where it must not).
    With `remarks=true` every load in a loop says its latency and where it
    came from, or why it has none. Numerics are unchanged.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Say for every load in a loop its latency and where it came "
           "from, or why it has none">,
  ];
}

def TileGPUScheduleLoads : Pass<"tilegpu-schedule-loads", "mlir::ModuleOp"> {
  let summary = "The software pipeline, step 2: how far ahead each load is "
                "issued";
  let description = [{
    For each load with `tilegpu.latency = N`, loops outermost first and
    loads in body order, marks `tilegpu.distance = D : i64`: the load of
    iteration i + D is issued by iteration i, into a ring of D + 1 buffers
    of dynamic shared memory (D + 1 mbarriers for a TMA copy). D is N (at
    most 16), cut so that every loop's rings, the rings of the loops around
    it and the loop-invariant TMA operands' buffers fit in 160 KB, laid out
    as the lowering lays them out (each aligned; a branch's buffers die
    with it) (passes/PipelinePlan.h: a buffer's size is bounded by the tile with
    8 more elements per row, or 128-byte swizzled and 1024-byte aligned for
    a TMA copy); a load for which not even two buffers fit is not
    scheduled (the mma copies it where it stands). It checks the rules of
    tilegpu-assign-latencies again (a hand-written latency on a load the
    loop cannot issue ahead is not scheduled).

    convert-tilegpu-to-llvm expands the scheduled loops: a prologue issues
    the copies of the first iterations (each guarded by the trip count),
    every iteration waits at a barrier (all threads done with the buffer
    read the iteration before), issues the copy of iteration i + D into
    it, then computes on its own buffer: an mma waits for its cp.async
    copies with `cp.async.wait_group D` (D the smallest distance among its
    operands: one group is committed per iteration, the prologue's too)
    or for its TMA copy's mbarrier phase.

    A load into registers is issued as many iterations ahead as its latency
    asks, at most 4 (a set of its registers per iteration carried by the
    loop: 32-bit words for 16-bit elements in even vectors), while the
    kernel's `prefetch_registers` budget per loop lasts: first one
    iteration for every such load (in body order), then deeper, in body
    order, with what is left.

    In a kernel with the hint `prologue_ahead = 1`, a loop nested directly
    in another whose loads ahead are all TMA copies is marked
    `tilegpu.prologue_ahead` when nothing before it in the enclosing body
    takes ring memory that is freed before it (another loop's rings, a
    loop-invariant TMA buffer in a nested region), the enclosing loop
    writes none of the views, and the
    bounds and indices can be evaluated for its next iteration
    (passes/PipelinePlan.h, prologueAheadProblem): the lowering then issues
    its prologue for the enclosing loop's next iteration right after it
    ends (after a barrier), and where it starts only in the enclosing
    loop's first iteration. The prologue's buffers stay taken until the
    enclosing body ends: the loads after it there are scheduled in the
    ring memory above them.

    In a kernel with the hint `prologue_early = 1`, a loop whose loads
    ahead are all TMA copies issued as far ahead is marked
    `tilegpu.prologue_early` when the nearest loop before it on its path
    (its anchor: in its block, or in the blocks of the branches around it)
    exists, nothing between them writes memory or takes a loop-invariant
    TMA buffer, the anchor writes none of its views, and its bounds,
    indices and the branches' conditions are computed before the anchor or
    by scalar arithmetic from such values (passes/PipelinePlan.h,
    prologueEarlyProblem): the lowering issues its prologue right after the
    anchor's, under those conditions, and where it starts only a barrier.
    Such a loop is scheduled where its anchor stands, from the ring memory
    there (its rings lie at the bottom); the anchor, and what follows it in
    its block, go above its prologue's stages (the largest over the loops
    anchored there, which lie on different paths).

    With `remarks=true` every load with a latency says how far ahead it is
    issued, or why not, every loop with loads ahead that stands directly in
    another loop's body where its prologue goes, and with prologue_early
    every loop with loads ahead whether its prologue goes out early, or why
    not. Numerics are unchanged.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Say for every load with a latency how far ahead it is issued, "
           "or why not">,
  ];
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
    and, in loops, as far ahead as tilegpu-schedule-loads says (rings in
    dynamic shared memory, `tilegpu.dynamic_shared_bytes`), an A operand in the accumulator layout
    (warps along M) taken from registers; loads into registers that
    tilegpu-schedule-loads marked (with the `prefetch_registers` hint) are
    issued iterations ahead into registers the loop carries (16-bit
    tiles as the loaded words); `scf.for`/`scf.if` carry
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
