//===- TileAttrs.td - tile dialect attributes -------------------*- tablegen -*-===//

#ifndef TESSEL_TILE_ATTRS
#define TESSEL_TILE_ATTRS

include "dialect/tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_PaddingZero   : I32EnumAttrCase<"zero", 0>;
def Tile_PaddingNegInf : I32EnumAttrCase<"neg_inf", 1>;
def Tile_PaddingNan    : I32EnumAttrCase<"nan", 2>;
def Tile_Padding : I32EnumAttr<"Padding", "value of out-of-bounds elements of a load",
    [Tile_PaddingZero, Tile_PaddingNegInf, Tile_PaddingNan]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tessel::tile";
}
def Tile_PaddingAttr : EnumAttr<Tile_Dialect, Tile_Padding, "padding">;

def Tile_PrecisionBF16 : I32EnumAttrCase<"bf16", 0>;
def Tile_PrecisionF16  : I32EnumAttrCase<"f16", 1>;
def Tile_PrecisionTF32 : I32EnumAttrCase<"tf32", 2>;
def Tile_Precision : I32EnumAttr<"Precision", "tensor-core operand precision",
    [Tile_PrecisionBF16, Tile_PrecisionF16, Tile_PrecisionTF32]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tessel::tile";
}
def Tile_PrecisionAttr : EnumAttr<Tile_Dialect, Tile_Precision, "precision">;

def Tile_ReduceSum : I32EnumAttrCase<"sum", 0>;
def Tile_ReduceMax : I32EnumAttrCase<"max", 1>;
def Tile_ReduceMin : I32EnumAttrCase<"min", 2>;
def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner",
    [Tile_ReduceSum, Tile_ReduceMax, Tile_ReduceMin]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tessel::tile";
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind">;

def Tile_HintsAttr : AttrDef<Tile_Dialect, "Hints"> {
  let mnemonic = "hints";
  let summary = "Per-target kernel hints";
  let description = [{
    A dictionary keyed by target (`sm_90a`, `sm_100a`, `sm_103a`, `default`)
    whose values are dictionaries of hints. The entry of the target being
    compiled for wins over `default`. Known hints:
    - `num_warps`: warps per CTA, a power of two in 1..32;
    - `occupancy`: CTAs per SM the compiler should aim for, 1..32;
    - `num_stages`: software-pipeline depth for loads in loops, 1..8: a
      load into mma operands without its own `latency` is issued
      num_stages - 1 iterations ahead (tilegpu-assign-latencies); 1 turns
      the rings off; absent: 2 (loads into registers: `prefetch_registers`);
    - `prefetch_registers`: 32-bit registers per thread that a loop may fill
      with loads issued iterations ahead (loads whose tiles land in
      registers; per iteration ahead, up to 4 as their latency asks), 0..255; default 0 (off): the registers held across an
      iteration can cost more than the latency saves;
    - `cluster`: CTA cluster shape, 1 to 3 positive sizes (x, y, z; missing
      ones are 1) whose product is at most 8 (the portable cluster size). It
      becomes the kernel's required cluster shape (`.reqnctapercluster`,
      `.explicitcluster`): the runtime launches with it and refuses a grid
      that it does not divide.
      Nothing in the kernel uses the cluster yet (no multicast or
      distributed shared memory): it only co-schedules the CTAs. Not with
      `persistent` (diagnosed);
    - `wgmma`: 1 asks for warpgroup MMA (`wgmma.mma_async`) where the tile
      allows; an sm_90a instruction: any other target is diagnosed. 0 or
      absent: `mma.sync`. On the H200 wgmma pays where its operands arrive
      by TMA (compute_out: 10%), not where they are computed in registers
      and staged for it (fwd_pass_state: slower).
    - `wgmma_register_a`: with wgmma, an A operand computed in registers in
      the accumulator's layout (an mma result scaled in registers) goes to
      wgmma from registers (1, the default) or is staged in shared memory
      (0). In compute_out the register form saves the 8 KB that lets 4
      CTAs fit per SM: 7-12% faster on the H200. With 1, a tile computed in
      registers whose transpose is the A operand is laid out for that too
      (the transposed accumulator layout; its loads read by ldmatrix.trans
      from their TMA copies); 0 also keeps that off.
    - `wgmma_interleave`: 1 issues a wgmma whose A comes from registers K
      step by K step, each step's fragments computed right before its own
      `wgmma.fence` and wgmmas (the pure operations that compute nothing
      but A move down to the step that first reads them), so that the
      tensor cores work on one step while the warpgroup computes the next;
      one commit and wait after the last, as without it. 0 or absent: every
      fragment is computed before one fence. Opt-in: on the H200 chunk_state
      (and state_passing after it) 2% faster with it, compute_out 3-6% slower
      (bench/results/2026-12-05-eleventh-gpu.md).
    - `wgmma_defer_wait`: with wgmma, a loop whose only mma accumulates
      into a loop-carried value nothing else in the loop reads leaves each
      group running into the next iteration, which waits for it right
      before issuing its own (before pinning its register A); the last is
      waited for after the loop. Each of the loop's rings gets a spare
      buffer, so that an iteration refills the one read two iterations
      before (only where its operands are in the loop's rings, resident or,
      at 2, A in registers, the rings with their spares fit the ring
      budget, and the loop has no nested loop: elsewhere each group is
      waited for at once). 1: only where A is read from shared memory; 2: also
      where A is computed in registers, which then stay live until the next
      iteration's wait (copied by mov into registers of their own). 0 or
      absent: each group is waited for right after its commit. Opt-in: on
      the H200 a pipelined GEMM 8.4% faster with it, the Mamba-2 kernels
      slower (chunk_state at 2 loses a CTA per SM; bench/results/2026-12-05-
      eleventh-gpu.md).
    - `early_copies`: 1 issues thread 0's first TMA copies at the kernel's
      top level (a loop's first stages) as early as their operands allow:
      right after thread 0 initialised the mbarriers, or after the
      dependency wait (pdl), with the index math they need, instead of
      after the setup's loads, prefetches and CTA barrier (which then comes
      before the other threads' first waits). Not past anything that
      writes memory or orders it, and only where nothing before the copies
      touches shared memory. Not with a producer warpgroup. 0 or absent:
      the copies where their loop begins, after the setup's CTA barrier.
      On the H200 compute_out (its state term's first copies) was 1.5-3%
      faster with it, and has it by default.
    - `multicast`: 1, in a kernel with a `cluster` of 2 or more CTAs and no
      producer warpgroup: tilegpu-insert-tma marks `tilegpu.multicast` the
      TMA loads whose tile is the same in every CTA of the cluster (indices,
      loop bounds and branch conditions built from program ids divided by
      multiples of the cluster's extent, views' sizes, scalar arguments), and
      where a loop's ring or a resident buffer holds one, each CTA copies a
      slice of its rows into every CTA's shared memory
      (`.multicast::cluster`); the cluster's CTAs then free those buffers
      together (a cluster barrier after the CTA barrier that freed them).
      Not used by the Mamba-2 kernels: pairs of compute_out's heads sharing
      C and C·Bᵀ were slower (bench/results/2026-12-05-multicast.md). 0 or
      absent: every CTA copies its own tiles.
    - `tcgen05`: 0 keeps a kernel's mmas on `mma.sync` on sm_100a/sm_103a;
      1 (the default there) lets every eligible 16-bit mma use tcgen05.mma;
      diagnosed on sm_90a.
    - `tcgen05_tmem_a`: with tcgen05, an A operand computed in registers in
      the accumulator's layout, or the transpose of one in the transposed
      accumulator layout, goes through tensor memory (1, the default) or is
      staged in shared memory (0; the Mamba-2 state kernels' choice).
    - `tcgen05_tmem_acc`: with tcgen05, an accumulator carried by a loop
      whose body has that one tcgen05 mma (and uses the accumulator nowhere
      else) stays in tensor memory across the loop (1, the default): stored
      once before the loop (zeros too), loaded once after it, instead of
      around every mma. 0 moves it around every mma. 2 keeps it resident
      also when the body has other tcgen05 mmas (nested loops included):
      they put their accumulators in the columns after it, which may grow
      the kernel's tensor memory (where they would not fit in its 512
      columns, it moves around every mma as with 1).
    - `pdl`: 1 compiles the kernel for programmatic dependent launch: after
      its setup it lets the next kernel in the stream launch
      (`griddepcontrol.launch_dependents`) and waits for the kernels before
      it (`griddepcontrol.wait`) before touching global memory; the runtime
      then launches it with the programmatic stream serialization attribute,
      so that its launch and setup overlap the previous kernel's tail.
    - `route_mma_operands`: 0 keeps `tile-route-mma-operands` away from the
      kernel's mmas (1, the default: an mma whose B is computed in registers
      and whose A is loaded is rewritten by the transpose identity).
    - `persistent`: 1 launches the kernel on as many CTAs as fit on the GPU
      at once, each walking the logical programs in turn
      (`tilegpu-persistent-grid` wraps the body; the runtime passes the
      logical grid and sizes the launch from the driver's occupancy); 0 or
      absent: one CTA per program.
    - `prologue_ahead`: 1 lets a loop nested in another, whose loads ahead
      are all TMA copies, issue its prologue for the enclosing loop's next
      iteration as soon as it ends (tilegpu-schedule-loads marks it), so
      that the copies' latency overlaps the rest of the enclosing iteration:
      a persistent kernel's next program, a GEMM's next column block. The
      buffers of that prologue stay taken until the enclosing iteration
      ends (the loop's rings laid out stage by stage where its loads are
      all issued as far ahead: the prologue's stages alone), and later
      loops of the enclosing body take the shared memory above them; a
      loop with rings before it in that body keeps it off. It costs a CTA
      barrier after the loop; 0 or absent: off (compute_out on the H200 was
      3-6% slower with it).
    - `prologue_early`: 1 lets a loop whose loads ahead are all TMA copies
      issued as far ahead issue its prologue where the loop before it on its
      path starts (its anchor: the nearest earlier loop in its block, or in
      the blocks of the branches around it), right after that loop's own
      prologue and under the branches' conditions, so that the two loops'
      first copies are in flight together (tilegpu-schedule-loads marks it
      `tilegpu.prologue_early`). Nothing between the two may write memory,
      and the loop's bounds, indices and those conditions must be computed
      before the anchor. The prologue's buffers lie below the anchor's rings
      (its rings laid out stage by stage) and stay taken until the loop
      starts. Not with `prologue_ahead`, `warp_specialize` or
      `wgmma_defer_wait`. 0 or absent: off.
    - `refresh_in_loops`: 1 makes every loop iteration read the thread index
      and the kernel's parameters afresh (opaque moves LLVM cannot hoist),
      so that addresses and sizes derived from them are recomputed per
      iteration instead of held in registers across the loop: fewer
      registers live, a few more instructions. 0 or absent: off (a
      persistent kernel's program loop always does it).
    - `warp_specialize`: 1 adds a producer warpgroup after the kernel's
      warps (which must be whole warpgroups): one of its threads issues
      every TMA copy the loops issue ahead (tilegpu.distance) for an mma
      or an mma fragment load (not those of `tma_register_loads`), into
      rings with `full` and `empty` mbarriers, walking the loops and branches
      around them on its own; the kernel's warps wait where the loads stand
      and free each buffer when the iteration that read it ends. The
      producer gives registers back (`setmaxnreg.dec` to
      `producer_registers`, 24-256 in steps of 8, default 40, at most what
      the launch gives each thread), the kernel's warps take them
      (`setmaxnreg.inc`); the launch starts every thread with the occupancy
      hint's share of the register file. Diagnosed where
      the kernel has no such copy; where a copy's box origin, or the
      bounds or condition of a loop or branch around it, depend on values
      other than scalar arguments, program ids, view sizes, enclosing
      induction variables and scalar branches on them; where the kernel
      stores to a view it loads ahead, or such a loop has `prologue_ahead`;
      where its warps are not whole warpgroups (or more than 28); where the
      rings exceed the ring budget, or the occupancy leaves fewer than 24
      registers per thread.
      0 or absent: off.
    - `row_fragments`: 1 lets the TMA copy a 16-bit tile loaded into the
      mma layout itself (an mma's A computed in registers as it stands, not
      through a transpose) like the transposed fragment loads: into a
      128-byte-swizzled buffer (a ring in a loop), read with `ldmatrix`
      (without `.trans`), each 16 x 16 block one .x4 straight into the A
      fragments. Without it such a tile is loaded from global memory, or,
      with `tma_register_loads`, copied unswizzled and read with one
      `ld.shared` per register, which puts a warp's 32 lanes on 4 banks
      (bench/results/2026-12-05-compute-out-trials.md). Opt-in: its test
      kernels are correct on the H200; in the Mamba-2 kernels not yet
      measured. It also copies tiles a branch may skip (compute_out's z):
      their views must be valid even when never read. 0 or absent: off.
    - `tma_register_loads`: 1 lets the TMA copy a loop's loads into
      registers ahead (on targets with the TMA: a 1-D or 2-D tile of 2- or
      4-byte elements along a unit-stride, 16-byte aligned view's last
      dimension, rows of whole 16-byte chunks, at most 256 elements per
      dimension, in the body of a loop that can issue it for a later
      iteration), unswizzled, into rings of shared memory like an mma
      operand's; the threads read their registers from the copy where the
      load stands (ld.shared) instead of waiting for global memory there,
      and hold no registers across iterations (as `prefetch_registers`
      does). With `warp_specialize` the consumers fill these rings
      themselves (the producer fills those of mma operands and of loads
      read as mma fragments; on the H200 test kernels
      test_ws{,_ring}_scaled_t_bf16). 0 or absent: off.
    - `operand_in_place`: 1 (with `wgmma`, without `warp_specialize`)
      lets the TMA copy a 16-bit tile that a loop loads only to compute an
      mma's B operand from it in registers (elementwise ops ending in a
      tile of its type and shape, e.g. a state plus a scaled correction)
      into a ring as it would copy that operand (128-byte swizzle); the
      threads read their registers from the copy where the load stands
      and write the computed operand back into the same buffer where the
      mma stands, which reads it there: no scratch buffer, one barrier
      fewer. Without it such an operand is staged from registers into the
      scratch buffer (core matrices). Opt-in: its test kernels pass on an
      H100 (racecheck clean); compute_out's state term as E + D R through
      it (the ranged chunk states) was correct there and 33-41% slower,
      not kept (bench/results/2026-12-06-operand-in-place.md). 0 or
      absent: off.
    - `ring_barrier_per_load`: 1 gives each TMA copy a loop issues ahead its
      own mbarrier per ring buffer, waited for where its tile is first used.
      0 or absent: copies whose waits follow one another in the loop body
      (nothing between them but loads, folded transposes and index
      arithmetic) share one: one arrival expecting their bytes, one wait.
    - `stmatrix`: 1 stores 16-bit tiles that lie in the mma accumulator's
      register pattern (each lane holding element pairs (l / 4, 2 (l % 4))
      of 8 x 8 blocks on multiples of 8; blocked layouts alike) into shared
      memory with `stmatrix.x4` (four register pairs per instruction,
      conflict-free in the TMA's 128-byte swizzle and in core matrices)
      instead of one 32-bit store per pair: the staging of a TMA store (an
      mma result narrowed to bf16/f16), of an mma operand, and layout
      changes through shared memory. 0 or absent: 32-bit stores. (The
      Mamba-2 kernels keep it off: level on the H200, bench/results/
      2026-12-05-pending-gpu-checks.md.)
    - `ring_slots` (0-16): with `warp_specialize`, 0 or absent gives each load
      the producer fills a ring of its own (distance + 1 buffers); N > 0
      makes them all share one ring of N buffers (each the size of the
      largest load's), filled and drained in program order with one copy
      counter: shared memory then follows the number of copies in flight,
      not the number of loads. Diagnosed where a loop body holds a load
      the producer fills before a nested loop or branch that holds one too
      (its buffer would stay taken while the nested loop cycles the ring),
      where N is not larger than the loads one loop iteration holds, and
      where the kernel has no `warp_specialize` for the target.

    ```mlir
    func.func @k(...) attributes {tile.hints = #tile.hints<{
        default = {num_warps = 4}, sm_90a = {num_warps = 8, occupancy = 1}}>}
    ```
  }];
  let parameters = (ins "::mlir::DictionaryAttr":$entries);
  let assemblyFormat = "`<` $entries `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The hint `name` for `target`, falling back to the `default` entry.
    ::mlir::Attribute lookup(::llvm::StringRef target, ::llvm::StringRef name) const;
    /// Known target keys.
    static ::llvm::ArrayRef<::llvm::StringRef> getKnownTargets();
  }];
}

#endif // TESSEL_TILE_ATTRS
