//===- TileOps.td - tile dialect operations ---------------------*- tablegen -*-===//
//
// The descriptions double as the specification of each op: the interpreter
// (interpreter/) and the GPU lowering implement exactly what is written here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TILE_OPS
#define TESSEL_TILE_OPS

include "dialect/tile/TileDialect.td"
include "dialect/tile/TileTypes.td"
include "dialect/tile/TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Tiles are builtin ranked tensors; the static-shape and power-of-two rules are
// checked by the verifiers so that the message can name the offending shape.
defvar Tile_Tile = AnyRankedTensor;
defvar Tile_Index = I32;

def Tile_AxisAttr : ConfinedAttr<I64Attr, [IntNonNegative]>;
def Tile_DimAttr : ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>;
def Tile_LatencyAttr : ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<10>]>;

//===----------------------------------------------------------------------===//
// Grid and view queries
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program in the launch grid";
  let description = [{
    The index (from 0) of the running program along grid dimension `dim`
    (0, 1 or 2).

    ```mlir
    %pid = tile.program_id 0
    ```
  }];
  let arguments = (ins Tile_DimAttr:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "size of the launch grid";
  let description = [{
    The number of programs of the launch grid along dimension `dim`.

    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins Tile_DimAttr:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "size of a view along one dimension";
  let description = [{
    The size (in elements) of `view` along dimension `dim`, as passed at launch.

    ```mlir
    %len = tile.dim %x, 1 : !tile.view<?x?xf32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Tile_AxisAttr:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$view `,` $dim attr-dict `:` qualified(type($view))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a tile from a view";
  let description = [{
    Reads the tile at tile index `indices` of `view`: along view dimension `d`
    the tile covers elements `[indices[d] * T[d], (indices[d] + 1) * T[d])`,
    where `T` is the tile shape with the `squeeze`d dimensions (extent 1, not
    present in the result) put back. Elements outside the view's sizes take the
    `padding` value (`zero`, `neg_inf` or `nan`; the last two need a float
    element type).

    `latency` (1..10) is a scheduling hint: how many loop iterations ahead the
    pipeliner should issue this load (tilegpu-assign-latencies;
    tilegpu-schedule-loads cuts it to fit the rings in shared memory, and
    to at most 4 and the prefetch_registers budget for a load into
    registers, whose sets the loop carries one per iteration ahead). `allow_tma = false` keeps the load off
    the TMA engine.

    ```mlir
    // x: (batch, L, heads); read a 64-token x 16-head tile of batch %b.
    %t = tile.load %x[%b, %c, %h] {squeeze = array<i64: 0>, padding = #tile<padding zero>}
        : !tile.view<?x?x?xbf16> -> tensor<64x16xbf16>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<Tile_Index>:$indices,
                   DefaultValuedAttr<Tile_PaddingAttr, "::tessel::tile::Padding::zero">:$padding,
                   OptionalAttr<Tile_LatencyAttr>:$latency,
                   OptionalAttr<BoolAttr>:$allow_tma,
                   OptionalAttr<DenseI64ArrayAttr>:$squeeze);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $view `[` $indices `]` attr-dict `:` qualified(type($view)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a tile to a view";
  let description = [{
    Writes `value` to the tile at tile index `indices` of `view` (the same
    addressing as `tile.load`, including `squeeze`). Elements that fall outside
    the view's sizes are dropped: nothing is written there. A view written
    to must not have two elements at one address (strides that overlap): the
    code generated for a store relies on it (two stores of tiles of one type
    write disjoint elements, or the same ones from the same threads).

    `tma = true` asks for the store to go through shared memory and the TMA
    engine (`cp.async.bulk.tensor`, 128-byte swizzled panels) where the target
    has it and the view and tile allow: a kernel-argument view promising
    16-byte alignment and unit stride, of rank at most 5, the tile's rows along
    the view's last dimension in whole 128-byte panels, 8 to 256 rows (a
    multiple of 8), a 2- or 4-byte element, and no other load or store of the
    view in the kernel (`tile.dim` may read its sizes). A launch must then
    give the view a 16-byte aligned base, unit last stride, other strides and
    a last extent in whole 16 bytes (the runtime checks). Elsewhere the store
    is the usual one.

    ```mlir
    tile.store %t, %y[%b, %c] {squeeze = array<i64: 0>}
        : tensor<64x16xf32>, !tile.view<?x?x?xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_ViewType:$view,
                   Variadic<Tile_Index>:$indices,
                   OptionalAttr<Tile_LatencyAttr>:$latency,
                   OptionalAttr<DenseI64ArrayAttr>:$squeeze,
                   OptionalAttr<BoolAttr>:$tma);
  let assemblyFormat = [{
    $value `,` $view `[` $indices `]` attr-dict `:` type($value) `,` qualified(type($view))
  }];
  let hasVerifier = 1;
}

// The L2 cache, as a resource of its own: a prefetch changes nothing a load
// or store can observe, but it must not be erased as dead.
def Tile_L2Cache : Resource<"::tessel::tile::L2CacheResource">;

def Tile_PrefetchOp : Tile_Op<"prefetch", [MemoryEffects<[MemWrite<Tile_L2Cache>]>]> {
  let summary = "bring a tile of a view into the L2 cache";
  let description = [{
    A hint with no observable effect: brings the cache lines holding the tile
    at tile index `indices` of `view` into the L2 cache, so that later loads
    of it (by this program or others) find it there. `box` is the tile's
    extent along every view dimension (the same addressing as `tile.load`
    with nothing squeezed): along dimension `d` it covers elements
    `[indices[d] * box[d], (indices[d] + 1) * box[d])`. Elements outside the
    view's sizes are skipped. The program's threads share the lines (on
    NVIDIA GPUs one `prefetch.global.L2` per 128-byte line of each row along
    a unit-stride last dimension, else per element).

    ```mlir
    // The 256 x 64 block of x (b, L, h, p) that later iterations read.
    tile.prefetch %x[%b, %c, %h, %p] {box = array<i64: 1, 256, 1, 64>}
        : !tile.view<?x?x?x?xbf16, align = 16, unit_stride>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<Tile_Index>:$indices,
                   DenseI64ArrayAttr:$box);
  let assemblyFormat = [{
    $view `[` $indices `]` attr-dict `:` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def Tile_SignalOp : Tile_Op<"signal", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "release the program's writes: add to a counter in memory";
  let description = [{
    Once every global-memory write the program made before it is visible at
    GPU scope, adds `value` to the 32-bit integer at element index `indices`
    of `view` (one index per dimension; out of bounds: nothing is added). A
    kernel launched after this one in the stream that waits for the counter
    with `tile.wait` may then read those writes while this kernel still runs.

    Launched programmatically (`pdl` = 1), a kernel with a `tile.signal`
    lets the next kernel in the stream launch (programmatic dependent
    launch) as soon as all its programs have passed its own wait for the
    kernels before it: a kernel that starts early on its signals finds every
    kernel before the signalling one complete. Launched plainly it does not:
    on the H200 a plainly launched kernel's trigger did not let the next one
    start before it ended (bench/results/2026-12-02-overlap-wired.md), so
    convert-tilegpu-to-llvm warns at the first `tile.signal` of a kernel
    without `pdl` = 1.

    ```mlir
    tile.signal %flags[%b, %h], %one : !tile.view<?x?xi32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<Tile_Index>:$indices,
                   Tile_Index:$value);
  let assemblyFormat = [{
    $view `[` $indices `]` `,` $value attr-dict `:` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def Tile_TicketOp : Tile_Op<"ticket", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the program's rank by arrival: add 1 to a counter, get the value before";
  let description = [{
    One thread of the program adds 1 to the 32-bit integer at element index
    `indices` of `view` and the whole program gets the value it had (the
    same in every thread); out of bounds: 0, nothing added. With the counter
    at 0 when the kernel starts and one ticket per program, the tickets
    number the programs 0, 1, ... in the order they took them, which every
    program that took a smaller one has started: a program that waits
    (`tile.wait {earlier_programs}`) only for programs of smaller tickets
    waits for started ones, whatever order the GPU starts them in. (Not in a
    warp-specialised kernel.)

    ```mlir
    %t = tile.ticket %order[%c0] : !tile.view<?xi32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<Tile_Index>:$indices);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    $view `[` $indices `]` attr-dict `:` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def Tile_WaitOp : Tile_Op<"wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until a counter earlier kernels or programs signal reaches a value";
  let description = [{
    Without `earlier_programs`, the kernel's dependency point. With
    `expected` > 0, waits until the 32-bit integer at element index
    `indices` of `view` is at least `expected`; the writes the `tile.signal`s
    that brought it there released are then visible to the whole program.
    With `expected` <= 0, or the index out of bounds, it waits instead for
    the kernels before this one in the stream to complete, as a
    programmatically launched kernel does at its start.

    A kernel with a `tile.wait` does not wait at its start: the op must come
    first in the kernel's body, before any load, store or signal (scalar
    arithmetic, program ids and view sizes may precede it), and at most once.
    It is meant for a kernel that a signalling kernel lets launch early
    (`tile.signal`), whose programs each need only part of that kernel's
    output.

    With `early_loads`, loads may come before it (still no store, signal or
    other wait): their latency then overlaps the wait's. They must read only
    what the kernels before the signalling kernel wrote, which are complete
    when it lets this one launch; that is the author's promise, not checked.

    With `earlier_programs` it is not the kernel's dependency point (the
    kernel waits for the kernels before it at its start, as without any
    `tile.wait`): it waits for a count that earlier programs of this same
    kernel raise with `tile.signal`, and may come anywhere in the program's
    uniform control flow (in loops and branches whose conditions are the
    same for the whole program), any number of times; with `expected` <= 0
    or the index out of bounds it does not wait. The programs it waits for
    must have started: those of smaller tickets (`tile.ticket`), or those
    before this one in launch order (the linear program index, x fastest),
    which the GPU starts first in practice but does not promise to. (Not in
    a warp-specialised kernel.)

    ```mlir
    tile.wait %flags[%b, %h], %expected : !tile.view<?x?xi32>
    tile.wait %flags[%b, %h], %expected {early_loads} : !tile.view<?x?xi32>
    tile.wait %flags[%s, %h], %one {earlier_programs} : !tile.view<?x?xi32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<Tile_Index>:$indices,
                   Tile_Index:$expected, UnitAttr:$early_loads,
                   UnitAttr:$earlier_programs);
  let assemblyFormat = [{
    $view `[` $indices `]` `,` $expected attr-dict `:` qualified(type($view))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor cores
//===----------------------------------------------------------------------===//

def Tile_MmaOp : Tile_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix multiply-accumulate on tensor cores";
  let description = [{
    `result = acc + a · b` with `a` MxK, `b` KxN and `acc`, `result` MxN f32.
    Products are exact and accumulate in f32. `precision` names the operand
    format and must match the operands: `bf16` and `f16` take operands of that
    type, `tf32` takes f32 operands and rounds them to tf32 (10-bit mantissa):
    to nearest on `mma.sync`, toward zero on the warpgroup and tensor-memory
    MMAs (which read the f32 bits and drop the low 13), within 2^-10
    relative per operand either way.

    ```mlir
    %d = tile.mma %a, %b, %c {precision = #tile<precision bf16>}
        : tensor<64x16xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$a, Tile_Tile:$b, Tile_Tile:$acc,
                   Tile_PrecisionAttr:$precision);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scans and reductions
//===----------------------------------------------------------------------===//

def Tile_CumsumOp : Tile_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sum along an axis";
  let description = [{
    `result[..., i, ...] = sum of source[..., j, ...] for j <= i` along `axis`
    (for `j >= i` when `reverse` is true). The summation order is not
    specified: floating-point results may differ in rounding from a sequential
    sum.

    ```mlir
    %s = tile.cumsum %a {axis = 0 : i64, reverse = true} : tensor<64x8xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$source, Tile_AxisAttr:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "sum, max or min along an axis";
  let description = [{
    Combines the elements of `source` along `axis` with `kind` (`sum`, `max`
    or `min`); the result has that dimension removed (a rank-1 source gives a
    rank-0 tensor). Float `max`/`min` propagate NaN.

    ```mlir
    %m = tile.reduce max %a {axis = 1 : i64} : tensor<64x8xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$source, Tile_ReduceKindAttr:$kind,
                   Tile_AxisAttr:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "custom<ReduceKind>($kind) $source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape changes
//===----------------------------------------------------------------------===//

def Tile_PermuteOp : Tile_Op<"permute", [Pure]> {
  let summary = "permute the dimensions of a tile";
  let description = [{
    `result[j]` = `source[i]` where `j[k] = i[perm[k]]`, i.e.
    result dimension `k` is source dimension `perm[k]`. A transpose is
    `[1, 0]`.

    ```mlir
    %t = tile.permute %a [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$source, DenseI64ArrayAttr:$perm);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source $perm attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "broadcast a tile to a larger shape";
  let description = [{
    NumPy broadcasting: the source shape is aligned with the result shape from
    the right; each source dimension equals the result dimension or is 1 (and
    is then repeated); missing leading dimensions are repeated.

    ```mlir
    %b = tile.broadcast %a : tensor<1x64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tile with another shape";
  let description = [{
    Same elements in row-major order, another static shape with the same number
    of elements and the same element type.

    ```mlir
    %r = tile.reshape %a : tensor<64xf32> -> tensor<8x8xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "0, 1, ..., N-1 along an axis";
  let description = [{
    An integer tile whose element at index `i` is `i[axis]`.

    ```mlir
    %i = tile.iota {axis = 0 : i64} : tensor<64x16xi32>
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // TESSEL_TILE_OPS
