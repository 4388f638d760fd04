//===- TestKernels.h - test kernels shared by several tests -----*- C++ -*-===//

#ifndef TESSEL_TEST_KERNELS_TESTKERNELS_H
#define TESSEL_TEST_KERNELS_TESTKERNELS_H

#include "dsl/Registry.h"

#include <limits>
#include <tuple>

namespace tessel::test {
using namespace tessel::dsl;

/// The GEMM test kernels' hints: num_warps, WGMMA (sm_90a), and where the
/// configuration has them PERSISTENT, PROLOGUE_AHEAD, PROLOGUE_EARLY,
/// WS (warp_specialize),
/// RING (ring_slots), OCC (occupancy), DEFER (wgmma_defer_wait) and EARLY
/// (early_copies).
inline void gemmHints(const Config &cfg) {
  hint("default", "num_warps", cfg["num_warps"]);
  if (cfg["WGMMA"])
    hint("sm_90a", "wgmma", 1);
  for (auto [key, name] : {std::pair<const char *, const char *>{
                               "PERSISTENT", "persistent"},
                           {"PROLOGUE_AHEAD", "prologue_ahead"},
                           {"PROLOGUE_EARLY", "prologue_early"},
                           {"WS", "warp_specialize"},
                           {"RING", "ring_slots"},
                           {"OCC", "occupancy"},
                           {"DEFER", "wgmma_defer_wait"},
                           {"EARLY", "early_copies"}})
    if (cfg.has(key))
      hint("default", name, cfg[key]);
  // MULTICAST: clusters of that many CTAs along grid x, whose loads of the
  // same tile (B's, shared by the row blocks of a column block) are copied
  // once per cluster.
  if (cfg.has("MULTICAST")) {
    hint("default", "cluster", std::vector<int64_t>{cfg["MULTICAST"]});
    hint("default", "multicast", 1);
  }
}

/// C = A B with a loop over K tiles carrying the accumulator.
template <class T>
inline void matmulKernel(const Config &cfg, View<T, 2> a, View<T, 2> b,
                         View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  auto i = program_id(0), j = program_id(1);
  Scalar kTiles = (dim(a, 1) + int(BK - 1)) / int(BK);
  Tile acc = for_range({0, kTiles}, zeros({BM, BN}), [&](Scalar k, Tile acc) {
    return mma(load(a, {i, k}, {BM, BK}), load(b, {k, j}, {BK, BN}), acc);
  });
  store(c, {i, j}, acc);
}

/// C = op(A) op(B) where op transposes when TRANS_A / TRANS_B (A stored K x
/// M, B stored N x K); `WGMMA` asks for warpgroup MMA on sm_90a (and is
/// ignored by the interpreter); `num_warps` warps. With F = kDense (views
/// promised 16-byte aligned with unit stride), operand tiles whose rows are
/// whole 128-byte panels are copied by the TMA (read by mma.sync, or by
/// wgmma through 128-byte-swizzle descriptors). LOOP = 0 (default 1) takes
/// one K block (K <= BK) without a loop, so the copies go to the mma's
/// scratch buffer instead of the loop's prefetch buffers; SPLIT_K = 1 walks
/// K in two loops, SPLIT_K = 2 the second half in one of two loops by row
/// block (even: its loads as LAT_A/LAT_B ask, odd: one iteration ahead).
template <class T, unsigned F = kNoAssumptions>
inline void matmulTransposedKernel(const Config &cfg, View<T, 2, F> a,
                                   View<T, 2, F> b, View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  bool ta = cfg["TRANS_A"], tb = cfg["TRANS_B"];
  gemmHints(cfg);
  auto i = program_id(0), j = program_id(1);
  // LAT_A / LAT_B: the loads' latency hints (iterations ahead: rings of
  // that many buffers plus one).
  LoadOptions la{.latency = cfg.has("LAT_A") ? int(cfg["LAT_A"]) : 0};
  LoadOptions lb{.latency = cfg.has("LAT_B") ? int(cfg["LAT_B"]) : 0};
  auto productWith = [&](ScalarArg k, Tile acc, LoadOptions oa,
                         LoadOptions ob) {
    Tile x = ta ? transpose(load(a, {k, i}, {BK, BM}, oa))
                : load(a, {i, k}, {BM, BK}, oa);
    Tile y = tb ? transpose(load(b, {j, k}, {BN, BK}, ob))
                : load(b, {k, j}, {BK, BN}, ob);
    return mma(x, y, acc);
  };
  auto product = [&](ScalarArg k, Tile acc) {
    return productWith(k, acc, la, lb);
  };
  Tile acc = zeros({BM, BN});
  if (!cfg.has("LOOP") || cfg["LOOP"]) {
    Scalar kTiles = (dim(a, ta ? 0 : 1) + int(BK - 1)) / int(BK);
    auto step = [&](Scalar k, Tile carried) { return product(k, carried); };
    // SPLIT_K = 1: the K blocks in two loops one after the other (the
    // first half, possibly none, then the rest), each with rings of its
    // own.
    if (cfg.has("SPLIT_K") && cfg["SPLIT_K"] == 2) {
      // (Two loops on different paths after the first: with the hint
      // prologue_early both prologues go out where the first loop starts,
      // each under the branch's condition.)
      Scalar half = kTiles / 2;
      acc = for_range({0, half}, acc, step);
      LoadOptions one{.latency = 1};
      auto near = [&](Scalar k, Tile carried) {
        return productWith(k, carried, one, one);
      };
      acc = if_(
          i % 2 == 0, [&] { return for_range({half, kTiles}, acc, step); },
          [&] { return for_range({half, kTiles}, acc, near); });
    } else if (cfg.has("SPLIT_K") && cfg["SPLIT_K"]) {
      Scalar half = kTiles / 2;
      acc = for_range({0, half}, acc, step);
      acc = for_range({half, kTiles}, acc, step);
    } else {
      acc = for_range({0, kTiles}, acc, step);
    }
  } else {
    acc = product(0, acc);
  }
  store(c, {i, j}, acc);
}

/// C = A Bᵀ (B stored N x K, K <= BK) with A's rows loaded once, before a
/// loop over column blocks that stores each block: A is a loop-invariant mma
/// operand, copied once into its own buffer that every iteration reads.
template <class T>
inline void residentOperandKernel(const Config &cfg, View<T, 2, kDense> a,
                                  View<T, 2, kDense> b, View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  auto i = program_id(0);
  Tile x = load(a, {i, 0}, {BM, BK});
  Scalar nTiles = (dim(b, 0) + int(BN - 1)) / int(BN);
  for_range({0, nTiles}, [&](Scalar j) {
    Tile y = load(b, {j, 0}, {BN, BK});
    store(c, {i, j}, mma(x, transpose(y), zeros({BM, BN})));
  });
}

/// C = A Bᵀ (B stored N x K, K <= BK) by clusters of two programs per BM
/// rows: both load the rows' A (the same tile: multicast, into a resident
/// buffer), and program 2 i + h walks the column blocks h, h + 2, ... (a
/// loop whose bounds differ between the two, so its B is not multicast).
template <class T>
inline void residentSharedKernel(const Config &cfg, View<T, 2, kDense> a,
                                 View<T, 2, kDense> b, View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  hint("default", "cluster", std::vector<int64_t>{2});
  hint("default", "multicast", 1);
  auto pid = program_id(0);
  auto i = pid / 2, h = pid % 2;
  Tile x = load(a, {i, 0}, {BM, BK});
  Scalar nTiles = (dim(b, 0) + int(BN - 1)) / int(BN);
  for_range({h, nTiles, 2}, [&](Scalar j) {
    Tile y = load(b, {j, 0}, {BN, BK});
    store(c, {i, j}, mma(x, transpose(y), zeros({BM, BN})));
  });
}

/// C = A Bᵀ (B stored N x K) by one program per BM rows walking every block
/// of BN columns (an outer loop), each a K loop issuing A LAT_A and B
/// LAT_B iterations ahead: the rings start over with every column block,
/// their mbarriers' phases carrying on.
template <class T>
inline void nestedPipeKernel(const Config &cfg, View<T, 2, kDense> a,
                             View<T, 2, kDense> b, View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  gemmHints(cfg);
  LoadOptions la{.latency = int(cfg["LAT_A"])};
  LoadOptions lb{.latency = int(cfg["LAT_B"])};
  auto i = program_id(0);
  Scalar nTiles = (dim(b, 0) + int(BN - 1)) / int(BN);
  Scalar kTiles = (dim(a, 1) + int(BK - 1)) / int(BK);
  bool triangular = cfg.has("TRIANGULAR") && cfg["TRIANGULAR"];
  for_range({0, nTiles}, [&](Scalar j) {
    // TRIANGULAR: column block j sums the first min(kTiles, j) K tiles only
    // (none for j = 0): the K loop's bounds change with j.
    Scalar kEnd = triangular ? minimum(kTiles, j) : kTiles;
    Tile acc = for_range({0, kEnd}, zeros({BM, BN}),
                         [&](Scalar k, Tile carried) {
                           Tile x = load(a, {i, k}, {BM, BK}, la);
                           Tile y = transpose(load(b, {j, k}, {BN, BK}, lb));
                           return mma(x, y, carried);
                         });
    store(c, {i, j}, acc);
  });
}

/// O = sum over column blocks j of round_T(P_j / 2) V_j with P_j = A B_j
/// (A: M x K, B: K x N1, V: N1 x N2): the product of one mma, scaled and
/// rounded in registers, is the A operand of the next (as in attention).
/// With 64-row blocks and 32-column products on 4 warps both mmas put their
/// warps along M, so the second reads A from registers.
/// With TRANSPOSED = 1 the same is written transposed: Oᵀ accumulates Vᵀ ·
/// (round_T(P_j / 2))ᵀ, the computed operand in the B slot (which the tensor
/// cores read only from shared memory), and O is stored as the transpose of
/// the result. tile-route-mma-operands turns it into the direct form's IR by
/// the transpose identity (the accumulator carried untransposed, P in the A
/// slot, every permute folded): the same PTX (test/codegen/route-mma-ptx.test).
template <class T>
inline void mmaChainKernel(const Config &cfg, View<T, 2> a, View<T, 2> b,
                           View<T, 2> v, View<float, 2> o) {
  int64_t BM = cfg["BM"], BK = cfg["BK"], BN1 = cfg["BN1"], BN2 = cfg["BN2"];
  bool transposed = cfg.has("TRANSPOSED") && cfg["TRANSPOSED"];
  if (cfg["WGMMA"]) {
    hint("default", "num_warps", cfg["num_warps"]);
    hint("sm_90a", "wgmma", 1);
  }
  if (cfg.has("INTERLEAVE"))
    hint("default", "wgmma_interleave", cfg["INTERLEAVE"]);
  if (cfg.has("DEFER"))
    hint("default", "wgmma_defer_wait", cfg["DEFER"]);
  auto i = program_id(0), n = program_id(1);
  Scalar kTiles = (dim(a, 1) + int(BK - 1)) / int(BK);
  Scalar jTiles = (dim(b, 1) + int(BN1 - 1)) / int(BN1);
  Tile acc0 = transposed ? zeros({BN2, BM}) : zeros({BM, BN2});
  Tile out = for_range({0, jTiles}, acc0, [&](Scalar j, Tile acc) {
    Tile p = for_range({0, kTiles}, zeros({BM, BN1}), [&](Scalar k, Tile pacc) {
      return mma(load(a, {i, k}, {BM, BK}), load(b, {k, j}, {BK, BN1}), pacc);
    });
    if (transposed)
      return mma(transpose(load(v, {j, n}, {BN1, BN2})),
                 transpose(cast<T>(p * 0.5f)), acc);
    return mma(cast<T>(p * 0.5f), load(v, {j, n}, {BN1, BN2}), acc);
  });
  store(o, {i, n}, transposed ? transpose(out) : out);
}

/// Attention forward (FlashAttention's one pass with an online softmax):
///   O = softmax(s Q Kᵀ + mask) V
/// per (batch x head) bh and block of BM queries, the keys and values in
/// blocks of BN, carrying the output, each row's running maximum m and its
/// running sum l. q, k, v, o are (batch x heads, L, D) with D = the head
/// dimension (one K step); `scaleLog2` is s log2(e), so the kernel takes
/// exp2. Keys past L (the loads' zero padding) are masked, and with CAUSAL
/// those after the query, whose blocks the loop does not reach at all. Every
/// row's first block holds key 0, so its maximum is finite from the first
/// iteration on (exp2(-inf - m) = 0 drops the masked keys and the empty
/// start). P = exp2(S - m) is rounded to T and is the second mma's A,
/// straight from the first's accumulator registers.
template <class T>
inline void attentionKernel(const Config &cfg, View<T, 3, kDense> q,
                            View<T, 3, kDense> k, View<T, 3, kDense> v,
                            View<T, 3, kDense> o, F32 scaleLog2) {
  const int64_t BM = cfg["BM"], BN = cfg["BN"], D = cfg["D"];
  const bool causal = cfg["CAUSAL"] != 0;
  gemmHints(cfg);
  auto i = program_id(0), bh = program_id(1);
  Scalar L = dim(q, 1);
  Tile qt = load(q, {bh, i, 0}, {drop, BM, D});
  Scalar blocks = (L + int(BN - 1)) / int(BN);
  if (causal)
    blocks = minimum(blocks, ((i + 1) * int(BM) + int(BN - 1)) / int(BN));
  const float negInf = -std::numeric_limits<float>::infinity();
  Tile rows = iota({BM, BN}, 0) + i * int(BM);
  using Carried = std::tuple<Tile, Tile, Tile>;
  auto [acc, m, l] = for_range(
      {0, blocks},
      Carried{zeros({BM, D}), full({BM, 1}, negInf, DType::f32),
              zeros({BM, 1})},
      [&](Scalar j, Tile acc, Tile m, Tile l) {
        Tile kt = load(k, {bh, j, 0}, {drop, BN, D});
        Tile s = mma(qt, transpose(kt), zeros({BM, BN})) * scaleLog2;
        Tile cols = iota({BM, BN}, 1) + j * int(BN);
        Tile keep = causal ? (cols < L) && (cols <= rows) : cols < L;
        s = where(keep, s, negInf);
        Tile mNew = maximum(m, reshape(reduce_max(s, 1), {BM, 1}));
        Tile p = exp2(s - mNew);
        Tile alpha = exp2(m - mNew);
        Tile lNew = fma(l, alpha, reshape(sum(p, 1), {BM, 1}));
        Tile vt = load(v, {bh, j, 0}, {drop, BN, D});
        return Carried{mma(cast<T>(p), vt, acc * alpha), mNew, lNew};
      });
  store(o, {bh, i, 0}, cast<T>(acc / l), {.squeeze = {0}});
}

/// S = sum over token blocks k of (x_k * w_k)ᵀ B_k, the Mamba-2 state
/// update: x (T x P) scaled per token in registers, its transpose the mma's
/// A (with WGMMA on sm_90a, and tcgen05 on sm_100a/sm_103a at 4 warps: x
/// read into the transposed accumulator layout from its TMA copy with
/// ldmatrix.trans, A from registers or, with TMEM_A, tensor memory; at 8
/// warps sm_100a/sm_103a keep mma.sync and the staged A). With WF = kDense
/// and TMA_REG = 1 (hint tma_register_loads) w's blocks are copied by the
/// TMA into a ring a step ahead and read from shared memory; with WS = 1
/// (hint warp_specialize) a producer warpgroup copies B and x (read as
/// fragments), and the consumers fill w's ring themselves; RING = N
/// (hint ring_slots) puts x's and B's copies in one ring of N buffers.
template <class T, unsigned WF = kNoAssumptions>
inline void scaledUpdateKernel(const Config &cfg, View<T, 2, kDense> x,
                               View<float, 1, WF> w, View<T, 2, kDense> b,
                               View<float, 2> s) {
  int64_t BP = cfg["BP"], BN = cfg["BN"], BT = cfg["BT"];
  hint("default", "num_warps", cfg["num_warps"]);
  if (cfg["WGMMA"])
    hint("sm_90a", "wgmma", 1);
  hint("default", "tcgen05_tmem_a", cfg["TMEM_A"]);
  if (cfg.has("WS"))
    hint("default", "warp_specialize", cfg["WS"]);
  if (cfg.has("TMA_REG"))
    hint("default", "tma_register_loads", cfg["TMA_REG"]);
  if (cfg.has("RING"))
    hint("default", "ring_slots", cfg["RING"]);
  if (cfg.has("INTERLEAVE"))
    hint("default", "wgmma_interleave", cfg["INTERLEAVE"]);
  if (cfg.has("DEFER"))
    hint("default", "wgmma_defer_wait", cfg["DEFER"]);
  auto i = program_id(0), j = program_id(1);
  Scalar kTiles = (dim(x, 0) + int(BT - 1)) / int(BT);
  Tile out = for_range({0, kTiles}, zeros({BP, BN}), [&](Scalar k, Tile acc) {
    Tile xt = load(x, {k, i}, {BT, BP});
    Tile wt = load(w, {k}, {BT});
    Tile xs = cast<T>(cast<float>(xt) * reshape(wt, {BT, 1}));
    return mma(transpose(xs), load(b, {k, j}, {BT, BN}), acc);
  });
  store(s, {i, j}, out);
}

/// C = A (E + s R)ᵀ over K tiles of BK, the operand E + s R formed in f32
/// and rounded to T in registers (compute_out's chunk state plus a scaled
/// correction): A (M x K), E and R (N x K), s (1). E's tile is loaded LAT
/// iterations ahead and R's from global memory (allow_tma false); operand
/// routing is off (it would move the computed operand into A's slot).
/// INPLACE (hint operand_in_place): E's copy lands in its ring as the mma's
/// B would and the computed operand is written back there (else it is
/// staged in the scratch buffer).
template <class T>
inline void correctedOperandKernel(const Config &cfg, View<T, 2, kDense> a,
                                   View<T, 2, kDense> e, View<T, 2, kDense> r,
                                   View<float, 1> s, View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  gemmHints(cfg);
  hint("default", "route_mma_operands", 0);
  if (cfg["INPLACE"])
    hint("sm_90a", "operand_in_place", 1);
  auto i = program_id(0), j = program_id(1);
  Scalar kTiles = (dim(a, 1) + int(BK - 1)) / int(BK);
  Tile scale = reshape(load(s, {0}, {1}), {1, 1});
  const int lat = int(cfg["LAT"]);
  Tile out = for_range({0, kTiles}, zeros({BM, BN}), [&](Scalar k, Tile acc) {
    Tile et = load(e, {j, k}, {BN, BK}, {.latency = lat});
    Tile rt = load(r, {j, k}, {BN, BK}, {.allow_tma = false});
    Tile bt = cast<T>(fma(cast<float>(rt), scale, cast<float>(et)));
    return mma(load(a, {i, k}, {BM, BK}, {.latency = lat}), transpose(bt),
               acc);
  });
  store(c, {i, j}, out);
}

/// Row reductions of a 16-bit tile in an mma accumulator's layout: h = A B
/// rounded to T (BM x 64, K whole), then y = (h - rowmax(h)) rowsum(h) in
/// f32, the maximum and the sum taken in T. Both results meet h's layout
/// again, so they lower to each thread's own combines and warp shuffles of
/// 16-bit values (and, with warps along the rows, a 16-bit exchange through
/// shared memory).
template <class T>
inline void rowReduce16Kernel(const Config &cfg, View<T, 2> a, View<T, 2> b,
                              View<float, 2> y) {
  const int64_t BM = 64, N = 64, K = cfg["K"];
  hint("default", "num_warps", 4);
  if (cfg["WGMMA"])
    hint("sm_90a", "wgmma", 1);
  auto i = program_id(0);
  Tile h = cast<T>(
      mma(load(a, {i, 0}, {BM, K}), load(b, {0, 0}, {K, N}), zeros({BM, N})));
  Tile top = cast<float>(reshape(reduce_max(h, 1), {BM, 1}));
  Tile total = cast<float>(reshape(sum(h, 1), {BM, 1}));
  store(y, {i, 0}, (cast<float>(h) - top) * total);
}

/// S = sum_k round(x_k * w rows) B_k: x's BM x BK tiles scaled per row and
/// used as the mma's A as they stand (the mma layout, not transposed: the
/// shape of compute_out's C·Sᵀ with C's rows scaled), over a K loop. With
/// ROW_FRAG (the hint row_fragments) the TMA copies x and ldmatrix reads its
/// A fragments from the swizzled copy; with TMA_REG instead, an unswizzled
/// copy read by ld.shared; with neither, global loads. INTERLEAVE and DEFER
/// (here and in the two kernels above): the hints wgmma_interleave and
/// wgmma_defer_wait.
template <class T>
inline void rowScaledKernel(const Config &cfg, View<T, 2, kDense> x,
                            View<float, 1> w, View<T, 2, kDense> b,
                            View<float, 2> s) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  hint("default", "num_warps", cfg["num_warps"]);
  hint("sm_90a", "wgmma", 1);
  if (cfg.has("ROW_FRAG"))
    hint("default", "row_fragments", cfg["ROW_FRAG"]);
  if (cfg.has("TMA_REG"))
    hint("default", "tma_register_loads", cfg["TMA_REG"]);
  if (cfg.has("INTERLEAVE"))
    hint("default", "wgmma_interleave", cfg["INTERLEAVE"]);
  if (cfg.has("DEFER"))
    hint("default", "wgmma_defer_wait", cfg["DEFER"]);
  auto i = program_id(0), j = program_id(1);
  Tile rows = reshape(load(w, {i}, {BM}), {BM, 1});
  Scalar kTiles = (dim(x, 1) + int(BK - 1)) / int(BK);
  Tile out = for_range({0, kTiles}, zeros({BM, BN}), [&](Scalar k, Tile acc) {
    Tile xs = cast<T>(cast<float>(load(x, {i, k}, {BM, BK})) * rows);
    return mma(xs, load(b, {k, j}, {BK, BN}), acc);
  });
  store(s, {i, j}, out);
}

/// y = 2 x, stored by the TMA (`tma = true`): BM x BN tiles of a 3-D view
/// whose first dimension the tile drops; y promises 16-byte alignment and
/// unit stride (x promises nothing: its load stays an ordinary one).
template <class T>
inline void tmaStoreKernel(const Config &cfg, View<float, 3> x,
                           View<T, 3, kDense> y) {
  int64_t BM = cfg["BM"], BN = cfg["BN"];
  auto i = program_id(0), j = program_id(1), b = program_id(2);
  Tile t = load(x, {b, i, j}, {drop, BM, BN});
  store(y, {b, i, j}, cast<T>(t * 2.0f), {.squeeze = {0}, .tma = true});
}

/// y = A B narrowed to T, stored by the TMA (TMA = 1) or by the threads: the
/// mma result goes to shared memory (the TMA store's staging, or a layout
/// change) with stmatrix where STMATRIX = 1 (the hint), else 32-bit stores.
template <class T>
inline void mmaStoreKernel(const Config &cfg, View<T, 2, kDense> a,
                           View<T, 2, kDense> b, View<T, 2, kDense> y) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  gemmHints(cfg);
  hint("default", "stmatrix", cfg["STMATRIX"]);
  auto i = program_id(0), j = program_id(1);
  Scalar kTiles = (dim(a, 1) + int(BK - 1)) / int(BK);
  Tile acc = for_range({0, kTiles}, zeros({BM, BN}), [&](Scalar k, Tile acc) {
    return mma(load(a, {i, k}, {BM, BK}), load(b, {k, j}, {BK, BN}), acc);
  });
  store(y, {i, j}, cast<T>(acc), {.tma = cfg["TMA"] != 0});
}

} // namespace tessel::test

#endif // TESSEL_TEST_KERNELS_TESTKERNELS_H
