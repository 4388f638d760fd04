//===- Validate.h - argument checks of libtessel_mamba2 ---------*- C++ -*-===//

#ifndef TESSEL_KERNELS_MAMBA2_VALIDATE_H
#define TESSEL_KERNELS_MAMBA2_VALIDATE_H

#include "kernels/mamba2/tessel_mamba2.h"
#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>

namespace tessel::mamba2::detail {

/// The sizes of the problem, from x and B.
struct Dims {
  int64_t b, L, h, p, n, g, Q, nc, Lp, np;
};

/// Workspace: dt and dA_cumsum (b, h, L) f32 with rows padded to 4 floats,
/// then the chunk states (b, nc, h, p, n) in x's 16-bit type (what
/// compute_out's mma reads; final_states stay f32) with n padded to 8 (16-byte
/// rows); when the forward takes the split path each chunk's state is
/// followed by what chunk_state wrote for the chunk (its output,
/// state_passing's input: accumulated in f32, stored in x's type, which
/// halves their traffic), (b, nc, 2, h, p, n), so that compute_out reads
/// both through one view of 2 nc chunks, and then come the factors of the
/// segmented scan (b, h, nc) f32 with rows padded to 4 floats; then the C·Bᵀ
/// blocks chunk_cb stores for
/// compute_out (b, nc, g, Q, Q) in x's type, only when it stores them; each
/// 256-aligned.
/// On the split path the chained scan's (chunk_state CHAIN) follow the
/// factors: the states entering the segments (b, segments(d), h, p, n) f32
/// with n padded to 8, and their counters (b, segments(d), h,
/// chainBlocksP(d), chainBlocksN(d)) int32 followed by the programs' ticket
/// counter, each 256-aligned, before the C·Bᵀ blocks.
struct Workspace {
  size_t dtOffset, acsOffset, statesOffset, localOffset, decayOffset,
      carryOffset, countersOffset, cbOffset, bytes;
};
/// Validates every argument but the workspace; fills `dims`. Messages name
/// the argument.
rt::Status validate(const tessel_mamba2_forward_args *args, Dims *dims);

/// Where the intermediates live in the workspace (with room for the
/// per-chunk states when `perChunkStates`, for the C·Bᵀ blocks when
/// `storedCb`).
Workspace layout(const Dims &dims, bool perChunkStates, bool storedCb = false);

/// No output (y, final_states) shares a byte with another tensor, and the
/// workspace's first `workspaceBytes` bytes none with any (after validate).
rt::Status checkAliasing(const tessel_mamba2_forward_args *args,
                         size_t workspaceBytes);

/// Checks the workspace pointer, size and alignment against
/// `layout(dims, perChunkStates, storedCb)`.
rt::Status checkWorkspace(const tessel_mamba2_forward_args *args,
                          const Dims &dims, bool perChunkStates,
                          bool storedCb = false);

/// Whether chunk_cb stores the C·Bᵀ blocks of every chunk and group once for
/// compute_out to read (CB_STORED), instead of compute_out forming them for
/// every head. `force` ("stored" or "fused", from TESSEL_MAMBA2_CB; null or
/// anything else: the rule) overrides the rule.
bool storedCb(const Dims &dims, const char *force);

/// How the chunk states are computed: by fwd_pass_state, which walks the
/// chunks in order in (p, n, b h) blocks, or by chunk_state (every chunk in
/// parallel, 16-bit per-chunk states in the workspace) then state_passing (the
/// scan over chunks, elementwise).
enum class StatePath { serial, split };

/// chunk_state's state columns per program for `n`: the narrowest block
/// that covers it (each block reads x once).
inline int64_t chunkStateBlockN(int64_t n) {
  return n <= 64 ? 64 : n <= 128 ? 128 : 256;
}

/// The padded row of the segmented scan's factors (b, h, nc): nc rounded
/// up to 4 floats (16-byte rows).
inline int64_t decayRow(const Dims &d) { return (d.nc + 3) / 4 * 4; }

/// The split path's chunks per segment of the state scan (the kernels'
/// SEGMENT; Kernels.h, segmentVariant) for `dims`; `force` (a number, from
/// TESSEL_MAMBA2_SEGMENT; null: the rule) overrides the rule. The values
/// the library compiles: 1 and 8; the rule takes 8 where it measured
/// faster (Validate.cpp) on a GPU of `memoryGBs` peak memory bandwidth
/// (GB/s; 0: unknown, taken as the H200's).
int64_t scanSegment(const Dims &dims, const char *force, double memoryGBs);

/// The one SEGMENT > 1 the library compiles (Kernels.h, segmentVariant):
/// what scanSegment returns for segments, and what the chained scan's
/// carried states and counters are laid out for.
inline constexpr int64_t kSegment = 8;
/// The segments of kSegment chunks of the chained scan.
inline int64_t segments(const Dims &d) {
  return (d.nc + kSegment - 1) / kSegment;
}
/// Blocks of p and n that chunk_state's programs may take (its smallest
/// BLOCK_P, 32, and BLOCK_N, 64): the extents of the chained scan's
/// counters, whatever configuration runs.
inline int64_t chainBlocksP(const Dims &d) { return (d.p + 31) / 32; }
inline int64_t chainBlocksN(const Dims &d) { return (d.np + 63) / 64; }
/// Whether the segmented scan (scanSegment > 1) runs chained, its scan over
/// segments in chunk_state (CHAIN) instead of state_passing; `force`
/// ("chain" or "passing", from TESSEL_MAMBA2_SCAN; null or anything else:
/// the rule) overrides the rule. The rule: never (slower where measured).
bool chainScan(const Dims &dims, const char *force);
/// fwd_pass_state's CTAs with 64 p-rows and 64 state columns each.
int64_t serialCtas(const Dims &dims);

/// The path for `dims`; `force` ("serial" or "split", from
/// TESSEL_MAMBA2_STATE_PATH; null or anything else: the rule) overrides the
/// rule but not the grid limits.
StatePath statePath(const Dims &dims, const char *force);

/// `path`, or the walk in order when the workspace fits only that (sized by
/// workspace_size on another device, or without a current context).
StatePath fitWorkspace(const Dims &dims, StatePath path, size_t workspaceBytes);
/// `stored` (storedCb's answer) when the workspace has room for the C·Bᵀ
/// blocks beside what `perChunkStates` needs; else false (compute_out then
/// forms them itself).
bool fitStoredCb(const Dims &dims, bool perChunkStates, bool stored,
                 size_t workspaceBytes);

inline int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

} // namespace tessel::mamba2::detail

#endif // TESSEL_KERNELS_MAMBA2_VALIDATE_H
