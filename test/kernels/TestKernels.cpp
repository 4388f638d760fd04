//===- TestKernels.cpp - DSL kernels that exercise each op ----------------===//
//
// Registered with fixed constants (one registry entry per variant) so that
// `tesselc-test` compiles each to its own cubin. The same kernels run on the
// interpreter in CI (test/unit/OpCasesTest.cpp) and on the GPU
// (test/gpu/GpuTests.cpp), against the plain C++ references of TestCases.cpp.
//
//===----------------------------------------------------------------------===//

#include "test/kernels/TestKernels.h"

using namespace tessel;
using namespace tessel::dsl;

namespace {

void copyKernel(const Config &cfg, View<float, 2> x, View<float, 2> y) {
  auto i = program_id(0), j = program_id(1);
  Tile t =
      load(x, {i, j}, {16, 32}, {.padding = static_cast<Padding>(cfg["PAD"])});
  store(y, {i, j}, t);
}

/// copyKernel compiled for clusters of two CTAs along x (hint `cluster`):
/// the runtime launches it with that shape and rejects a grid it does not
/// divide.
void clusterCopyKernel(const Config &cfg, View<float, 2> x, View<float, 2> y) {
  hint("default", "cluster", std::vector<int64_t>{2, 1});
  copyKernel(cfg, x, y);
}

/// y[b, i, j] = x[b, i, j] + gx * 10000 + gy * 100 + gz (the grid's
/// sizes), one 16 x 32 block per program of a 3-D grid (x: column blocks,
/// y: row blocks, z: batches), compiled persistent: the programs, their ids
/// and the grid's sizes are the logical ones.
void persistentCopyKernel(const Config &, View<float, 3> x, View<float, 3> y) {
  hint("default", "persistent", 1);
  auto j = program_id(0), i = program_id(1), b = program_id(2);
  auto sizes = num_programs(0) * 10000 + num_programs(1) * 100 +
               num_programs(2);
  Tile t = load(x, {b, i, j}, {drop, 16, 32});
  store(y, {b, i, j}, t + cast<float>(sizes), {.squeeze = {0}});
}

/// y[i, c] = 2 x[i, c] + 1 for column c of 64-row blocks: the load and the
/// store run along a squeezed view dimension (the row stride), so no access
/// can be a vector and tilegpu-assign-layouts gives the tile one element per
/// thread (assign-layouts.mlir, column-ptx.test).
void columnKernel(const Config &, View<float, 2> x, View<float, 2> y) {
  auto c = program_id(0), i = program_id(1);
  Tile t = load(x, {i, c}, {64, drop});
  store(y, {i, c}, t * 2.0f + 1.0f, {.squeeze = {1}});
}

void squeezeKernel(const Config &, View<float, 3> x, View<bf16, 3, kDense> y) {
  auto b = program_id(0), i = program_id(1);
  Tile t = load(x, {b, i, 0}, {drop, 8, 32});
  store(y, {b, 0, i}, cast<bf16>(transpose(t)), {.squeeze = {0}});
}

void mathKernel(const Config &, View<float, 1> x, View<float, 1> y, F32 s) {
  auto i = program_id(0);
  Tile v = load(x, {i}, {128});
  Tile r = exp2(v) * 0.5f + silu(v) - softplus(v * s) / (1.0f + abs(v)) +
           sigmoid(-v) + maximum(v, 0.25f) - minimum(v, s) + sqrt(abs(v)) +
           log1p(abs(v)) + exp(v) - log(abs(v) + 1);
  store(y, {i}, where(v > 0.0f, r, r * 2.0f));
}

// A select converted to 16 bits (the codegen pairs the conversions,
// cvt.rn.{bf16,f16}x2.f32, after the f32 select).
template <class T>
void maskedCastKernel(const Config &, View<float, 2> x, View<T, 2> y) {
  auto i = program_id(0), j = program_id(1);
  Tile t = load(x, {i, j}, {16, 64});
  store(y, {i, j}, cast<T>(where(t > 0.0f, t * 3.0f, 0.0f)));
}

// The tiles of test_packed_arith_*, test_packed_exp2_* and test_fma_*: the
// program's 64 x 64 block of x, and its rows' and columns' factors (f32)
// converted to T, shaped to broadcast.
struct RowColumnTiles {
  Scalar i, j;
  Tile t, rows, cols;
};
template <class T>
RowColumnTiles rowColumnTiles(View<T, 2> x, View<float, 1> r,
                              View<float, 1> c) {
  auto i = program_id(0), j = program_id(1);
  Tile t = load(x, {i, j}, {64, 64});
  Tile rows = reshape(cast<T>(load(r, {i}, {64})), {64, 1});
  Tile cols = reshape(cast<T>(load(c, {j}, {64})), {1, 64});
  return {i, j, t, rows, cols};
}

// 16-bit arithmetic in 16 bits: y = x * r_i * c_j - x (rows scaled by
// r, columns by c, both converted from f32 first), each operation rounded
// to T as it goes; the codegen pairs them (mul.rn.{bf16,f16}x2).
template <class T>
void packedArithKernel(const Config &, View<T, 2> x, View<float, 1> r,
                       View<float, 1> c, View<T, 2> y) {
  auto [i, j, t, rows, cols] = rowColumnTiles<T>(x, r, c);
  store(y, {i, j}, t * rows * cols - t);
}

// y = exp2(min(x, r_i)) * c_j in 16 bits (r and c converted to T first):
// minimum, exp2 and mul on pairs (min.NaN, ex2.approx, mul.rn .{bf16,f16}x2).
template <class T>
void packedExp2Kernel(const Config &, View<T, 2> x, View<float, 1> r,
                      View<float, 1> c, View<T, 2> y) {
  auto [i, j, t, rows, cols] = rowColumnTiles<T>(x, r, c);
  store(y, {i, j}, exp2(minimum(t, rows)) * cols);
}

// y = a b + fast_log2(c_j) on a 64 x N block: a per-column vector that
// loads and takes a transcendental function, in T (cast before the
// reshape), added to an mma accumulator. tilegpu-assign-layouts gives it
// one or two elements per lane in every warp (wordsPerLane: 64 f32 are two
// 32-bit words per lane; 64 16-bit elements one word, 32 half a word) and
// the reshape into the accumulator's columns is one warp shuffle per word
// and column pair (remapWordsInWarp: packed by packWords, unpacked by
// unpackWords), no shared memory.
template <class T, int64_t N>
void columnWordsKernel(const Config &, View<bf16, 2> a, View<bf16, 2> b,
                       View<float, 1> c, View<float, 2> y) {
  auto i = program_id(0), j = program_id(1);
  Tile acc = mma(load(a, {i, 0}, {64, 32}), load(b, {0, j}, {32, N}),
                 zeros({64, N}));
  Tile cols = reshape(cast<T>(fast_log2(load(c, {j}, {N}))), {1, N});
  store(y, {i, j}, acc + cast<float>(cols));
}

// A branch around an mma on a loaded value (compute_out's split_diagonal):
// s_i of the program's row block, one element read by every thread and
// made a scalar by item(); y = (a b) s_i where s_i < 1, else a b - 1 (and
// there where s_i is NaN: a row block past s's end, read as NaN; a zero
// padding would take the other branch).
void itemBranchKernel(const Config &, View<bf16, 2> a, View<bf16, 2> b,
                      View<float, 1> s, View<float, 2> y) {
  auto i = program_id(0), j = program_id(1);
  Scalar si = item(load(s, {i}, {1}, {.padding = Padding::nan}));
  Tile ta = load(a, {i, 0}, {64, 32}), tb = load(b, {0, j}, {32, 64});
  Tile r = if_(
      si < 1.0f, [&] { return mma(ta, tb, zeros({64, 64})) * si; },
      [&] { return mma(ta, tb, zeros({64, 64})) - 1.0f; });
  store(y, {i, j}, r);
}

// y = saturating_cast<T>(exp2(x * r_i + fast_log2(c_j))) from f32 x, r and
// c: compute_out's decay times dt as exp2 of a sum with a per-column
// log2 (lg2.approx.ftz), narrowed with saturation (cvt.rn.satfinite
// .{bf16,f16}x2.f32 on pairs): exponents past the type's range give its
// largest finite value, not inf; c_j = 0 gives 0.
template <class T>
void logScaleKernel(const Config &, View<float, 2> x, View<float, 1> r,
                    View<float, 1> c, View<T, 2> y) {
  auto i = program_id(0), j = program_id(1);
  Tile t = load(x, {i, j}, {64, 64});
  Tile rows = reshape(load(r, {i}, {64}), {64, 1});
  Tile cols = reshape(fast_log2(load(c, {j}, {64})), {1, 64});
  store(y, {i, j}, saturating_cast<T>(exp2(t * rows + cols)));
}

// y = fma(fma(x, r_i, c_j), w, x) - 0.5 x with w = fma(s, 0.5, -0.5) on
// scalars: fma with a row and a column broadcast (r and c converted to T
// first), then with a scalar; each fma rounded once to T (fma.rn.f32, or
// fma.rn.{bf16,f16}x2 in pairs); then fma with a number.
template <class T>
void fmaKernel(const Config &, View<T, 2> x, View<float, 1> r,
               View<float, 1> c, View<T, 2> y, F32 s) {
  auto [i, j, t, rows, cols] = rowColumnTiles<T>(x, r, c);
  Scalar w = cast<T>(fma(s, 0.5f, -0.5f));
  store(y, {i, j}, fma(t, -0.5f, fma(fma(t, rows, cols), w, t)));
}

// silu and sigmoid alone, over the range where their f32 results are
// normal numbers: their fast form (exp2 and an approximate division) is
// checked per element.
void siluKernel(const Config &, View<float, 1> x, View<float, 2> y) {
  auto i = program_id(0);
  Tile v = load(x, {i}, {128});
  store(y, {0, i}, expand_dims(silu(v), 0));
  store(y, {1, i}, expand_dims(sigmoid(v), 0));
}

// y = x + b, after L2 prefetches of tiles around this one: past the view's
// borders on every side (skipped), through a strided view (a prefetch per
// element) and a unit-stride one (one per 128-byte line of a row), and a
// box with more lines than the CTA has threads. They change nothing.
void prefetchKernel(const Config &, View<float, 2> x, View<bf16, 2, kDense> b,
                    View<float, 2> y) {
  auto i = program_id(0), j = program_id(1);
  prefetch(x, {i + 1, j}, {64, 64});
  prefetch(x, {i - 1, j - 1}, {64, 64});
  prefetch(b, {i, j + 1}, {64, 64});
  prefetch(b, {i - 1, 0}, {200, 100});
  Tile t = load(x, {i, j}, {64, 64});
  Tile u = cast<float>(load(b, {i, j}, {64, 64}));
  store(y, {i, j}, t + u);
}

/// A chain across programs: y[r] = y[r - 1] + x[r] (rows of 128), r the
/// program's ticket (tile.ticket on `order`), the row before published by
/// the program of ticket r - 1 (tile.signal on flags[r - 1]) and waited for
/// (tile.wait {earlier_programs}): each program reads what another wrote
/// while the kernel runs, the longest chain a grid can have.
void chainKernel(const Config &, View<float, 2> x, View<float, 2> y,
                 View<int32_t, 1> flags, View<int32_t, 1> order) {
  // (Programmatic launch, as the library's kernels: the waits for earlier
  // programs then follow the kernel's own griddepcontrol.wait; its signal,
  // on the counters those waits read, moves no trigger.)
  hint("default", "pdl", 1);
  Scalar r = ticket(order, {0});
  Tile v = load(x, {r, 0}, {1, 128});
  wait_for_earlier(flags, {r - 1}, 1);
  Tile before = if_(
      r > 0, [&] { return load(y, {r - 1, 0}, {1, 128}); },
      [&] { return zeros({1, 128}); });
  store(y, {r, 0}, before + v);
  signal(flags, {r}, 1);
}

void scanKernel(const Config &cfg, View<float, 2> x, View<float, 2> y,
                View<float, 2> red) {
  auto i = program_id(0);
  int64_t axis = cfg["AXIS"];
  Tile t = load(x, {i, 0}, {16, 32});
  store(y, {i, 0}, cumsum(t, axis, cfg["REVERSE"] != 0));
  store(red, {i, 0},
        expand_dims(reduce(t, axis, static_cast<Reduce>(cfg["KIND"])), 0));
}

void shapeKernel(const Config &, View<float, 2> x, View<float, 2> y,
                 View<int32_t, 2> z) {
  Tile t = load(x, {0, 0}, {4, 8});
  Tile q = reshape(permute(reshape(t, {2, 2, 8}), {2, 0, 1}), {8, 4});
  Tile row = reshape(load(x, {0, 0}, {1, 4}), {4});
  Tile sum = q + broadcast(row, {8, 4});
  Tile out = if_(
      program_id(0) == 0, [&] { return sum; }, [&] { return -sum; });
  store(y, {0, 0}, out);
  store(z, {0, 0}, iota({8, 4}, 0) * 10 + iota({8, 4}, 1));
}

/// Row sums of x over all its column blocks: a loop carrying a tile.
void loopKernel(const Config &cfg, View<float, 2> x, View<float, 2> y) {
  // LAT / PREFETCH: the load's latency hint and the kernel's
  // prefetch_registers (LAT iterations ahead into registers).
  if (cfg.has("PREFETCH"))
    hint("default", "prefetch_registers", cfg["PREFETCH"]);
  int latency = cfg.has("LAT") ? int(cfg["LAT"]) : 0;
  auto i = program_id(0);
  Scalar blocks = (dim(x, 1) + 31) / 32;
  // Halving what came before makes the sum depend on which block each
  // iteration reads (a load ahead off by an iteration shows).
  Tile acc = for_range({0, blocks}, zeros({16, 32}), [&](Scalar k, Tile acc) {
    return acc * 0.5f + load(x, {i, k}, {16, 32}, {.latency = latency});
  });
  store(y, {i, 0}, expand_dims(sum(acc, 1), 1));
}

/// In-place update of a tile smaller than the CTA (elements held by several
/// threads): exactly one +1 per element.
void inplaceKernel(const Config &, View<float, 1> x) {
  auto i = program_id(0);
  store(x, {i}, load(x, {i}, {64}) + 1.0f);
}

/// exp, tanh, log1p, softplus on special values (infinities, overflow,
/// tiny arguments), one row each.
void specialKernel(const Config &, View<float, 1> x, View<float, 2> y) {
  auto i = program_id(0);
  Tile v = load(x, {i}, {128});
  store(y, {0, i}, reshape(exp(v), {1, 128}));
  store(y, {1, i}, reshape(tanh(v), {1, 128}));
  store(y, {2, i}, reshape(log1p(abs(v)), {1, 128}));
  store(y, {3, i}, reshape(softplus(v), {1, 128}));
}

Register add(std::string name, std::function<void(const Config &)> build,
             std::map<std::string, int64_t> constants = {}) {
  KernelDef def;
  def.name = std::move(name);
  def.summary = "op test";
  for (auto [k, v] : constants)
    def.params.push_back(variant(k, {v}, v));
  def.build = std::move(build);
  return Register(std::move(def));
}

/// The bf16 matmul of TestKernels.h on dense views (TMA-copyable operands).
void tmaMatmulBf16(const Config &c) {
  define(tessel::test::matmulTransposedKernel<bf16, kDense>, c,
         {"a", "b", "c"});
}

/// `base` with `extra`'s constants added (an extra one replaces base's).
std::map<std::string, int64_t>
withConstants(std::map<std::string, int64_t> base,
              const std::map<std::string, int64_t> &extra) {
  // (Replacing: an `extra` LAT_B of 2 must not leave pipelinedGemm's 3.)
  for (const auto &[key, value] : extra)
    base[key] = value;
  return base;
}

/// tmaMatmulBf16's constants for a 64x128 tile, wgmma, its K loop pipelined
/// (A 2 and B 3 iterations ahead), with `extra` added.
std::map<std::string, int64_t>
pipelinedGemm(const std::map<std::string, int64_t> &extra = {}) {
  return withConstants({{"BM", 64}, {"BN", 128}, {"BK", 64}, {"TRANS_A", 0},
                        {"TRANS_B", 1}, {"LOOP", 1}, {"WGMMA", 1},
                        {"num_warps", 4}, {"LAT_A", 2}, {"LAT_B", 3}},
                       extra);
}

/// TestKernels.h's A (E + s R)ᵀ in T: BM x 64 tiles, K blocks of 64, E and
/// A `lat` iterations ahead, the B in place in E's buffer or not, wgmma.
template <class T>
Register correctedOperand(const char *name, int64_t BM, int64_t lat,
                          bool inPlace, int64_t warps) {
  return add(
      name,
      [](const Config &c) {
        define(tessel::test::correctedOperandKernel<T>, c,
               {"a", "e", "r", "s", "c"});
      },
      {{"BM", BM},
       {"BN", 64},
       {"BK", 64},
       {"LAT", lat},
       {"INPLACE", inPlace},
       {"WGMMA", 1},
       {"num_warps", warps}});
}

/// The bf16 attention of TestKernels.h: head dimension 64, BM-query and
/// BN-key blocks (64 x 64 on 4 warps by default; BM = 128 on 8 warps: two
/// warpgroups of 64 query rows sharing each K and V copy).
Register attention(const char *name, bool causal, bool wgmma, int64_t BM = 64,
                   int64_t BN = 64, int64_t warps = 4, int64_t occupancy = 3) {
  return add(
      name,
      [](const Config &c) {
        define(tessel::test::attentionKernel<bf16>, c,
               {"q", "k", "v", "o", "scale_log2"});
      },
      {{"BM", BM},
       {"BN", BN},
       {"D", 64},
       {"CAUSAL", causal},
       {"WGMMA", wgmma},
       {"num_warps", warps},
       {"OCC", occupancy}});
}

/// The state update of TestKernels.h on a dense w (its blocks TMA-copyable).
void wsScaledBf16(const Config &c) {
  define(tessel::test::scaledUpdateKernel<bf16, kDense>, c,
         {"x", "w", "b", "s"});
}

/// wsScaledBf16's constants: 64 x 64 tiles, 64 tokens a step, wgmma, a
/// producer warpgroup, w through TMA rings the consumers fill, with `extra`
/// added.
std::map<std::string, int64_t>
wsScaled(const std::map<std::string, int64_t> &extra = {}) {
  return withConstants({{"BP", 64}, {"BN", 64}, {"BT", 64}, {"WGMMA", 1},
                        {"TMEM_A", 1}, {"WS", 1}, {"TMA_REG", 1},
                        {"num_warps", 4}},
                       extra);
}

const Register registrations[] = {
    add("test_copy_zero",
        [](const Config &c) {
          define(copyKernel, c, {"x", "y"});
        },
        {{"PAD", 0}}),
    add("test_copy_neg_inf",
        [](const Config &c) {
          define(copyKernel, c, {"x", "y"});
        },
        {{"PAD", 1}}),
    add("test_copy_nan",
        [](const Config &c) {
          define(copyKernel, c, {"x", "y"});
        },
        {{"PAD", 2}}),
    add("test_cluster_copy",
        [](const Config &c) {
          define(clusterCopyKernel, c, {"x", "y"});
        },
        {{"PAD", 0}}),
    add("test_column",
        [](const Config &c) { define(columnKernel, c, {"x", "y"}); }),
    add("test_squeeze_bf16",
        [](const Config &c) {
          define(squeezeKernel, c, {"x", "y"});
        }),
    add("test_math",
        [](const Config &c) {
          define(mathKernel, c, {"x", "y", "s"});
        }),
    add("test_masked_cast_bf16",
        [](const Config &c) {
          define(maskedCastKernel<bf16>, c, {"x", "y"});
        }),
    add("test_masked_cast_f16",
        [](const Config &c) {
          define(maskedCastKernel<f16>, c, {"x", "y"});
        }),
    add("test_packed_arith_bf16",
        [](const Config &c) {
          define(packedArithKernel<bf16>, c, {"x", "r", "c", "y"});
        }),
    add("test_packed_arith_f16",
        [](const Config &c) {
          define(packedArithKernel<f16>, c, {"x", "r", "c", "y"});
        }),
    add("test_packed_exp2_bf16",
        [](const Config &c) {
          define(packedExp2Kernel<bf16>, c, {"x", "r", "c", "y"});
        }),
    add("test_packed_exp2_f16",
        [](const Config &c) {
          define(packedExp2Kernel<f16>, c, {"x", "r", "c", "y"});
        }),
    add("test_column_words",
        [](const Config &c) {
          define(columnWordsKernel<float, 64>, c, {"a", "b", "c", "y"});
        }),
    add("test_column_words_bf16",
        [](const Config &c) {
          define(columnWordsKernel<bf16, 64>, c, {"a", "b", "c", "y"});
        }),
    add("test_column_words_f16_n32",
        [](const Config &c) {
          define(columnWordsKernel<f16, 32>, c, {"a", "b", "c", "y"});
        }),
    add("test_item_branch",
        [](const Config &c) {
          define(itemBranchKernel, c, {"a", "b", "s", "y"});
        }),
    add("test_log_scale_bf16",
        [](const Config &c) {
          define(logScaleKernel<bf16>, c, {"x", "r", "c", "y"});
        }),
    add("test_log_scale_f16",
        [](const Config &c) {
          define(logScaleKernel<f16>, c, {"x", "r", "c", "y"});
        }),
    add("test_fma_f32",
        [](const Config &c) {
          define(fmaKernel<float>, c, {"x", "r", "c", "y", "s"});
        }),
    add("test_fma_bf16",
        [](const Config &c) {
          define(fmaKernel<bf16>, c, {"x", "r", "c", "y", "s"});
        }),
    add("test_fma_f16",
        [](const Config &c) {
          define(fmaKernel<f16>, c, {"x", "r", "c", "y", "s"});
        }),
    add("test_silu",
        [](const Config &c) { define(siluKernel, c, {"x", "y"}); }),
    add("test_prefetch",
        [](const Config &c) { define(prefetchKernel, c, {"x", "b", "y"}); }),
    add("test_chain",
        [](const Config &c) {
          define(chainKernel, c, {"x", "y", "flags", "order"});
        }),
    add("test_scan_a0_fwd_sum",
        [](const Config &c) {
          define(scanKernel, c, {"x", "y", "red"});
        },
        {{"AXIS", 0}, {"REVERSE", 0}, {"KIND", 0}}),
    add("test_scan_a0_rev_max",
        [](const Config &c) {
          define(scanKernel, c, {"x", "y", "red"});
        },
        {{"AXIS", 0}, {"REVERSE", 1}, {"KIND", 1}}),
    add("test_scan_a1_fwd_min",
        [](const Config &c) {
          define(scanKernel, c, {"x", "y", "red"});
        },
        {{"AXIS", 1}, {"REVERSE", 0}, {"KIND", 2}}),
    add("test_scan_a1_rev_sum",
        [](const Config &c) {
          define(scanKernel, c, {"x", "y", "red"});
        },
        {{"AXIS", 1}, {"REVERSE", 1}, {"KIND", 0}}),
    add("test_shape",
        [](const Config &c) {
          define(shapeKernel, c, {"x", "y", "z"});
        }),
    add("test_loop",
        [](const Config &c) {
          define(loopKernel, c, {"x", "y"});
        }),
    add("test_loop_ahead3",
        [](const Config &c) { define(loopKernel, c, {"x", "y"}); },
        {{"LAT", 3}, {"PREFETCH", 16}}),
    add("test_inplace",
        [](const Config &c) { define(inplaceKernel, c, {"x"}); }),
    add("test_special",
        [](const Config &c) {
          define(specialKernel, c, {"x", "y"});
        }),
    add("test_mma_bf16",
        [](const Config &c) {
          define(tessel::test::matmulKernel<bf16>, c, {"a", "b", "c"});
        },
        {{"BM", 32}, {"BN", 32}, {"BK", 16}}),
    add("test_mma_f16",
        [](const Config &c) {
          define(tessel::test::matmulKernel<f16>, c, {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 32}}),
    // wgmma on sm_90a (tcgen05 on sm_100a/sm_103a): K-major A and N-major B, one
    // warpgroup; M-major A and K-major B (both transposed), two warpgroups.
    add("test_wgmma_bf16",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<bf16>, c,
                 {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 128}, {"BK", 32}, {"TRANS_A", 0}, {"TRANS_B", 0},
         {"WGMMA", 1}, {"num_warps", 4}}),
    add("test_wgmma_f16_t",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<f16>, c,
                 {"a", "b", "c"});
        },
        {{"BM", 128}, {"BN", 64}, {"BK", 32}, {"TRANS_A", 1}, {"TRANS_B", 1},
         {"WGMMA", 1}, {"num_warps", 8}}),
    add("test_mma_chain_bf16",
        [](const Config &c) {
          define(tessel::test::mmaChainKernel<bf16>, c, {"a", "b", "v", "o"});
        },
        {{"BM", 64}, {"BK", 16}, {"BN1", 32}, {"BN2", 32}, {"WGMMA", 0},
         {"num_warps", 4}}),
    // The same chain on wgmma (sm_90a): the second mma's A, computed in the
    // first's accumulator registers, goes to wgmma from registers; one
    // warpgroup (bf16), two (f16).
    add("test_wgmma_chain_bf16",
        [](const Config &c) {
          define(tessel::test::mmaChainKernel<bf16>, c, {"a", "b", "v", "o"});
        },
        {{"BM", 64}, {"BK", 32}, {"BN1", 64}, {"BN2", 64}, {"WGMMA", 1},
         {"num_warps", 4}}),
    add("test_wgmma_chain_f16",
        [](const Config &c) {
          define(tessel::test::mmaChainKernel<f16>, c, {"a", "b", "v", "o"});
        },
        {{"BM", 128}, {"BK", 16}, {"BN1", 32}, {"BN2", 128}, {"WGMMA", 1},
         {"num_warps", 8}}),
    // The bf16 chain with the hint wgmma_interleave: P's part for each K
    // step of the second mma computed right before that step's wgmma.
    add("test_wgmma_chain_il_bf16",
        [](const Config &c) {
          define(tessel::test::mmaChainKernel<bf16>, c, {"a", "b", "v", "o"});
        },
        {{"BM", 64}, {"BK", 32}, {"BN1", 64}, {"BN2", 64}, {"WGMMA", 1},
         {"num_warps", 4}, {"INTERLEAVE", 1}}),
    // The wgmma chain written transposed (the computed operand in the B
    // slot): tile-route-mma-operands routes it back.
    add("test_wgmma_chain_t_bf16",
        [](const Config &c) {
          define(tessel::test::mmaChainKernel<bf16>, c, {"a", "b", "v", "o"});
        },
        {{"BM", 64}, {"BK", 32}, {"BN1", 64}, {"BN2", 64}, {"WGMMA", 1},
         {"num_warps", 4}, {"TRANSPOSED", 1}}),
    // Attention with an online softmax (TestKernels.h): causal on mma.sync
    // (every target), causal and not on wgmma (sm_90a; tcgen05 on
    // sm_100a/sm_103a), the K and V blocks copied by the TMA. (Occupancy 3:
    // with no hint ptxas took 96 registers on sm_100a and spilled 8-16
    // bytes; with .minnctapersm 3 it takes 110 and fits 4 CTAs per SM.)
    attention("test_attention_bf16", /*causal=*/true, /*wgmma=*/false),
    attention("test_attention_wgmma_bf16", /*causal=*/true, /*wgmma=*/true),
    attention("test_attention_full_wgmma_bf16", /*causal=*/false,
              /*wgmma=*/true),
    // 128 query rows on two warpgroups (8 warps), each K and V copy read by
    // both: half the copies per query row. (sm_90a: 96 registers, 2 CTAs
    // per SM; sm_100a/sm_103a: mma.sync, tcgen05 takes 4 warps, 176-183
    // registers without spills at occupancy 1, 112-124 bytes spilled at 2.)
    attention("test_attention_m128_wgmma_bf16", /*causal=*/true,
              /*wgmma=*/true, /*BM=*/128, /*BN=*/64, /*warps=*/8,
              /*occupancy=*/1),
    attention("test_attention_full_m128_wgmma_bf16", /*causal=*/false,
              /*wgmma=*/true, /*BM=*/128, /*BN=*/64, /*warps=*/8,
              /*occupancy=*/1),
    // Row maximum and sum of a 16-bit tile (TestKernels.h): mma.sync with
    // 2 x 2 warps (shuffles, then the warps' partials through shared
    // memory), and wgmma (shuffles only).
    add("test_row_reduce_bf16",
        [](const Config &c) {
          define(tessel::test::rowReduce16Kernel<bf16>, c, {"a", "b", "y"});
        },
        {{"K", 32}, {"WGMMA", 0}}),
    add("test_row_reduce_wgmma_f16",
        [](const Config &c) {
          define(tessel::test::rowReduce16Kernel<f16>, c, {"a", "b", "y"});
        },
        {{"K", 32}, {"WGMMA", 1}}),
    // A B operand computed in registers from a loop's load (E + s R): in
    // place in E's ring buffer (hint operand_in_place; 64 x 64 tiles, E and
    // A 2 ahead, and 128 rows on two warpgroups, 3 ahead, in f16), and
    // staged in the scratch buffer (the control).
    correctedOperand<bf16>("test_operand_in_place_bf16", 64, 2, true, 4),
    correctedOperand<f16>("test_operand_in_place3_f16", 128, 3, true, 8),
    correctedOperand<bf16>("test_operand_scratch_bf16", 64, 2, false, 4),
    // The state kernels' update, (x * w)ᵀ B over a token loop, the scaled x
    // transposed into A: from registers (wgmma) and tensor memory (tcgen05).
    add("test_scaled_t_bf16",
        [](const Config &c) {
          define(tessel::test::scaledUpdateKernel<bf16>, c,
                 {"x", "w", "b", "s"});
        },
        {{"BP", 64}, {"BN", 64}, {"BT", 64}, {"WGMMA", 1}, {"TMEM_A", 1},
         {"num_warps", 4}}),
    // The same with the hint wgmma_interleave (chunk_state's
    // wgmma_interleave): each K step's x scaled right before its wgmma.
    // wgmma_defer_wait = 2 (chunk_state's): each token block's group runs
    // while the next block's x is read and scaled.
    add("test_scaled_t_dw_bf16",
        [](const Config &c) {
          define(tessel::test::scaledUpdateKernel<bf16>, c,
                 {"x", "w", "b", "s"});
        },
        {{"BP", 64}, {"BN", 64}, {"BT", 64}, {"WGMMA", 1}, {"TMEM_A", 1},
         {"DEFER", 2}, {"num_warps", 4}}),
    add("test_scaled_t_il_bf16",
        [](const Config &c) {
          define(tessel::test::scaledUpdateKernel<bf16>, c,
                 {"x", "w", "b", "s"});
        },
        {{"BP", 64}, {"BN", 64}, {"BT", 64}, {"WGMMA", 1}, {"TMEM_A", 1},
         {"INTERLEAVE", 1}, {"num_warps", 4}}),
    // f16, x two 128-byte panels wide, two warpgroups (the tile's 128
    // head-dim rows), 32 tokens a step.
    add("test_scaled_t8_f16",
        [](const Config &c) {
          define(tessel::test::scaledUpdateKernel<f16>, c,
                 {"x", "w", "b", "s"});
        },
        {{"BP", 128}, {"BN", 64}, {"BT", 32}, {"WGMMA", 1}, {"TMEM_A", 1},
         {"num_warps", 8}}),
    // The same warp-specialised: the producer copies x (read as fragments)
    // and B; w goes by the TMA into a ring the consumers fill
    // (tma_register_loads).
    // x's tiles scaled per row as the mma's A as they stand: read as A
    // fragments by ldmatrix from a swizzled TMA copy (row_fragments; not
    // yet run on a GPU), and the same from an unswizzled copy by ld.shared
    // (tma_register_loads: 8-way bank conflicts).
    add("test_row_frag_bf16",
        [](const Config &c) {
          define(tessel::test::rowScaledKernel<bf16>, c, {"x", "w", "b", "s"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"ROW_FRAG", 1},
         {"num_warps", 4}}),
    // row_fragments and wgmma_interleave together: each K step's
    // fragments read by ldmatrix and scaled right before its wgmma.
    add("test_row_frag_il_bf16",
        [](const Config &c) {
          define(tessel::test::rowScaledKernel<bf16>, c, {"x", "w", "b", "s"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"ROW_FRAG", 1},
         {"INTERLEAVE", 1}, {"num_warps", 4}}),
    // row_fragments, wgmma_interleave and wgmma_defer_wait = 2 together.
    add("test_row_frag_il_dw_bf16",
        [](const Config &c) {
          define(tessel::test::rowScaledKernel<bf16>, c, {"x", "w", "b", "s"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"ROW_FRAG", 1},
         {"INTERLEAVE", 1}, {"DEFER", 2}, {"num_warps", 4}}),
    add("test_row_shared_bf16",
        [](const Config &c) {
          define(tessel::test::rowScaledKernel<bf16>, c, {"x", "w", "b", "s"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"TMA_REG", 1},
         {"num_warps", 4}}),
    add("test_ws_scaled_t_bf16", wsScaledBf16, wsScaled()),
    // The same with x's and B's copies in one shared ring of 3 buffers.
    add("test_ws_ring_scaled_t_bf16", wsScaledBf16, wsScaled({{"RING", 3}})),
    // TMA: bf16 C = A Bᵀ (the shape of C·Bᵀ in compute_out) and tf32
    // C = Aᵀ B in K loops (copies prefetched into two buffers), f16 C = A B
    // with A two panels wide and no loop (copies into the scratch buffer).
    add("test_tma_bf16",
        tmaMatmulBf16,
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"TRANS_A", 0}, {"TRANS_B", 1},
         {"LOOP", 1}, {"WGMMA", 0}, {"num_warps", 4}}),
    add("test_tma_tf32",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<float, kDense>, c, {"a", "b", "c"});
        },
        {{"BM", 32}, {"BN", 32}, {"BK", 32}, {"TRANS_A", 1}, {"TRANS_B", 0},
         {"LOOP", 1}, {"WGMMA", 0}, {"num_warps", 4}}),
    // tf32 on wgmma (sm_90a) and tcgen05 kind::tf32 (sm_100a/sm_103a):
    // C = A Bᵀ, both operands K-major (the only tf32 form those take),
    // staged in core matrices by cp.async, or copied by the TMA.
    add("test_wgmma_tf32",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<float>, c,
                 {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"TRANS_A", 0}, {"TRANS_B", 1},
         {"LOOP", 1}, {"WGMMA", 1}, {"num_warps", 4}}),
    add("test_tma_wgmma_tf32",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<float, kDense>, c,
                 {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 128}, {"BK", 64}, {"TRANS_A", 0}, {"TRANS_B", 1},
         {"LOOP", 1}, {"WGMMA", 1}, {"num_warps", 4}}),
    // Deeper rings (tilegpu-schedule-loads from the loads' latency hints):
    // A 3 and B 2 iterations ahead by cp.async (mma.sync), A 2 and B 3 by
    // the TMA (wgmma on sm_90a, tcgen05 on sm_100a/sm_103a).
    add("test_pipe_bf16",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<bf16>, c,
                 {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"TRANS_A", 0}, {"TRANS_B", 0},
         {"LOOP", 1}, {"WGMMA", 0}, {"num_warps", 4}, {"LAT_A", 3},
         {"LAT_B", 2}}),
    add("test_tma_wgmma_pipe_bf16",
        tmaMatmulBf16,
        pipelinedGemm()),
    // The same with the hint wgmma_defer_wait = 1: each K step's group left
    // running into the next (rings of 4 and 5 buffers, one spare each).
    add("test_tma_wgmma_pipe_dw_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"DEFER", 1}})),
    // The same with the hint early_copies: thread 0 issues the K loop's
    // first stages right after initialising the mbarriers, before the
    // setup's CTA barrier (which the other threads' first waits follow).
    add("test_tma_wgmma_pipe_ec_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"EARLY", 1}})),
    // Persistent (tilegpu-persistent-grid): a 3-D grid of copies, and the
    // TMA + wgmma pipelined K loop above, its rings restarting per program,
    // or (_ahead, hint prologue_ahead) each K loop issuing the next
    // program's first copies as it ends.
    add("test_persistent_copy",
        [](const Config &c) { define(persistentCopyKernel, c, {"x", "y"}); }),
    add("test_persistent_tma_wgmma_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PERSISTENT", 1}})),
    add("test_persistent_ahead_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PERSISTENT", 1}, {"PROLOGUE_AHEAD", 1}})),
    // ... with K in two loops (SPLIT_K): the first issues the next
    // program's first copies as it ends and keeps their buffers while the
    // second runs on rings above them: with both loads 2 ahead, its rings
    // laid out stage by stage and only the prologue's stages kept; with
    // A 2 and B 3 ahead, its whole rings kept.
    add("test_persistent_ahead_split_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PERSISTENT", 1}, {"PROLOGUE_AHEAD", 1},
                       {"SPLIT_K", 1}, {"LAT_B", 2}})),
    add("test_persistent_ahead_split23_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PERSISTENT", 1}, {"PROLOGUE_AHEAD", 1},
                       {"SPLIT_K", 1}})),
    // K in two loops whose second issues its prologue where the first
    // starts (hint prologue_early), its buffers below the first's rings:
    // back to back (both loads 2 ahead), and (_branch) the second half in
    // one of two loops by row block, 2 or 1 ahead, each prologue under the
    // branch's condition.
    add("test_early_split_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PROLOGUE_EARLY", 1}, {"SPLIT_K", 1}, {"LAT_B", 2}})),
    add("test_early_branch_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PROLOGUE_EARLY", 1}, {"SPLIT_K", 2}, {"LAT_B", 2}})),
    add("test_tma_nested_pipe_bf16",
        [](const Config &c) {
          define(tessel::test::nestedPipeKernel<bf16>, c, {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"WGMMA", 1}, {"num_warps", 4},
         {"LAT_A", 3}, {"LAT_B", 2}}),
    // The same with the K loop's prologue for the next column block issued
    // as each K loop ends (hint prologue_ahead).
    add("test_tma_nested_ahead_bf16",
        [](const Config &c) {
          define(tessel::test::nestedPipeKernel<bf16>, c, {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"WGMMA", 1}, {"num_warps", 4},
         {"LAT_A", 3}, {"LAT_B", 2}, {"PROLOGUE_AHEAD", 1}}),
    // ... with K loops whose bounds change with the column block (the first
    // runs no iteration).
    add("test_tma_nested_tri_bf16",
        [](const Config &c) {
          define(tessel::test::nestedPipeKernel<bf16>, c, {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"WGMMA", 1}, {"num_warps", 4},
         {"LAT_A", 3}, {"LAT_B", 2}, {"PROLOGUE_AHEAD", 1},
         {"TRIANGULAR", 1}}),
    // Warp-specialised (hint warp_specialize): a producer warpgroup issues
    // the copies of the pipelined K loop (rings 3 and 4 deep), alone, and
    // in a persistent kernel (across programs), 2 CTAs per SM (as many as
    // the rings' 90112 bytes allow: .maxnreg 128, the consumers at 216);
    // and of the nested K loops whose bounds change with the column block
    // (the first runs none), without an occupancy hint.
    add("test_ws_tma_wgmma_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"WS", 1}, {"OCC", 2}})),
    add("test_persistent_ws_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PERSISTENT", 1}, {"WS", 1}, {"OCC", 2}})),
    add("test_ws_nested_tri_bf16",
        [](const Config &c) {
          define(tessel::test::nestedPipeKernel<bf16>, c, {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"WGMMA", 1}, {"num_warps", 4},
         {"LAT_A", 3}, {"LAT_B", 2}, {"TRIANGULAR", 1}, {"WS", 1}}),
    // The same three with one ring that every copy shares (hint
    // ring_slots), filled and drained in program order: in the GEMMs 3
    // buffers (4 persistent) of the larger tile's 16384 bytes for A's 8192
    // and B's 16384; in the nested K loops 3 of 8192 for both.
    add("test_ws_ring_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"WS", 1}, {"RING", 3}, {"OCC", 2}})),
    add("test_persistent_ws_ring_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"PERSISTENT", 1}, {"WS", 1}, {"RING", 4}, {"OCC", 2}})),
    add("test_ws_ring_nested_tri_bf16",
        [](const Config &c) {
          define(tessel::test::nestedPipeKernel<bf16>, c, {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 64}, {"WGMMA", 1}, {"num_warps", 4},
         {"LAT_A", 3}, {"LAT_B", 2}, {"TRIANGULAR", 1}, {"WS", 1},
         {"RING", 3}}),
    add("test_tma_f16_once",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<f16, kDense>, c, {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 128}, {"TRANS_A", 0}, {"TRANS_B", 0},
         {"LOOP", 0}, {"WGMMA", 0}, {"num_warps", 4}}),
    // wgmma reading TMA-staged, 128-byte-swizzled operands on sm_90a: both
    // K-major (A as loaded, B transposed), and both M/N-major (A transposed,
    // B as loaded) on two warpgroups.
    add("test_tma_wgmma_bf16",
        tmaMatmulBf16,
        {{"BM", 64}, {"BN", 128}, {"BK", 128}, {"TRANS_A", 0}, {"TRANS_B", 1},
         {"LOOP", 1}, {"WGMMA", 1}, {"num_warps", 4}}),
    // wgmma_defer_wait = 1 on a ring of distance 1 (3 buffers with the
    // spare).
    add("test_tma_wgmma_dw_bf16",
        tmaMatmulBf16,
        {{"BM", 64}, {"BN", 128}, {"BK", 128}, {"TRANS_A", 0}, {"TRANS_B", 1},
         {"LOOP", 1}, {"WGMMA", 1}, {"num_warps", 4}, {"DEFER", 1}}),
    add("test_tma_wgmma_f16_t",
        [](const Config &c) {
          define(tessel::test::matmulTransposedKernel<f16, kDense>, c, {"a", "b", "c"});
        },
        {{"BM", 128}, {"BN", 128}, {"BK", 32}, {"TRANS_A", 1}, {"TRANS_B", 0},
         {"LOOP", 1}, {"WGMMA", 1}, {"num_warps", 8}}),
    // B's tiles (shared by the row blocks of a column block) multicast to
    // clusters of 2 CTAs along the rows, A's copied per CTA, both in the K
    // loop's rings (A 2, B 3 iterations ahead).
    add("test_tma_multicast_bf16",
        tmaMatmulBf16,
        pipelinedGemm({{"MULTICAST", 2}})),
    // A resident buffer multicast (two programs per row block).
    add("test_tma_resident_multicast_bf16",
        [](const Config &c) {
          define(tessel::test::residentSharedKernel<bf16>, c,
                 {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 128}}),
    add("test_tma_resident_bf16",
        [](const Config &c) {
          define(tessel::test::residentOperandKernel<bf16>, c,
                 {"a", "b", "c"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 128}}),
    // Stores through the TMA: f32 tiles two 128-byte panels wide, bf16 tiles
    // one panel wide.
    add("test_tma_store_f32",
        [](const Config &c) {
          define(tessel::test::tmaStoreKernel<float>, c, {"x", "y"});
        },
        {{"BM", 16}, {"BN", 64}}),
    add("test_tma_store_bf16",
        [](const Config &c) {
          define(tessel::test::tmaStoreKernel<bf16>, c, {"x", "y"});
        },
        {{"BM", 64}, {"BN", 64}}),
    add("test_mma_tf32",
        [](const Config &c) {
          define(tessel::test::matmulKernel<float>, c, {"a", "b", "c"});
        },
        {{"BM", 16}, {"BN", 16}, {"BK", 8}}),
    // 16-bit mma results staged with stmatrix for the TMA store: wgmma's
    // accumulator (two 128-byte panels), mma.sync's (one).
    add("test_mma_store_tma_bf16",
        [](const Config &c) {
          define(tessel::test::mmaStoreKernel<bf16>, c, {"a", "b", "y"});
        },
        {{"BM", 64}, {"BN", 128}, {"BK", 64}, {"WGMMA", 1}, {"TMA", 1},
         {"STMATRIX", 1}, {"num_warps", 4}}),
    add("test_mma_store_tma_f16",
        [](const Config &c) {
          define(tessel::test::mmaStoreKernel<f16>, c, {"a", "b", "y"});
        },
        {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"WGMMA", 0}, {"TMA", 1},
         {"STMATRIX", 1}, {"num_warps", 4}}),
};

} // namespace
