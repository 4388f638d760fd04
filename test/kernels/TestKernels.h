//===- TestKernels.h - test kernels shared by several tests -----*- C++ -*-===//

#ifndef TESSEL_TEST_KERNELS_TESTKERNELS_H
#define TESSEL_TEST_KERNELS_TESTKERNELS_H

#include "dsl/Registry.h"

namespace tessel::test {
using namespace tessel::dsl;

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
/// ignored by the interpreter); `num_warps` warps.
template <class T>
inline void matmulTransposedKernel(const Config &cfg, View<T, 2> a,
                                   View<T, 2> b, View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  bool ta = cfg["TRANS_A"], tb = cfg["TRANS_B"];
  hint("default", "num_warps", cfg["num_warps"]);
  if (cfg["WGMMA"])
    hint("sm_90a", "wgmma", 1);
  auto i = program_id(0), j = program_id(1);
  Scalar kTiles = (dim(a, ta ? 0 : 1) + int(BK - 1)) / int(BK);
  Tile acc = for_range({0, kTiles}, zeros({BM, BN}), [&](Scalar k, Tile acc) {
    Tile x = ta ? transpose(load(a, {k, i}, {BK, BM}))
                : load(a, {i, k}, {BM, BK});
    Tile y = tb ? transpose(load(b, {j, k}, {BN, BK}))
                : load(b, {k, j}, {BK, BN});
    return mma(x, y, acc);
  });
  store(c, {i, j}, acc);
}

} // namespace tessel::test

#endif // TESSEL_TEST_KERNELS_TESTKERNELS_H
