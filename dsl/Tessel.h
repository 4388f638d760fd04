//===- Tessel.h - the tessel kernel DSL -------------------------*- C++ -*-===//
//
// Kernels are plain C++ functions over tiles. Calling one under a trace (see
// Registry.h) records each DSL call as one op of the tile dialect, located at
// the caller's file:line, so that every shape or type error is reported where
// the kernel author wrote it:
//
//   void scale(const Config &cfg, View<float, 2> x, View<float, 2> y, F32 s) {
//     int64_t BM = cfg["BM"], BN = cfg["BN"];
//     auto i = program_id(0), j = program_id(1);
//     Tile t = load(x, {i, j}, {BM, BN});
//     store(y, {i, j}, exp2(t * s));
//   }
//
// This header deliberately includes no MLIR header: handles hold opaque IR
// values, so kernel sources compile in a fraction of the time of compiler code.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DSL_TESSEL_H
#define TESSEL_DSL_TESSEL_H

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessel {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Element types of tiles and views. Tag types name the 16-bit floats in C++.
enum class DType : int { i1, i8, i16, i32, i64, bf16, f16, f32, f64 };
struct bf16 {};
struct f16 {};

const char *dtypeName(DType type);
/// Size of one element in bytes (i1 counts as 1).
int64_t dtypeBytes(DType type);
bool isFloat(DType type);

template <class T> constexpr DType dtypeOf() {
  if constexpr (std::is_same_v<T, bf16>)
    return DType::bf16;
  else if constexpr (std::is_same_v<T, f16>)
    return DType::f16;
  else if constexpr (std::is_same_v<T, float>)
    return DType::f32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::f64;
  else if constexpr (std::is_same_v<T, bool>)
    return DType::i1;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::i8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::i16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::i32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::i64;
  else
    static_assert(sizeof(T) == 0, "not a tessel element type");
}

using Loc = std::source_location;

namespace dsl {

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

/// Reports a handle used without a value, unless the trace has reported an
/// error already (then the handle is the poisoned result of that call): a
/// default-constructed one (`Tile acc;`), at `where` or else at the latest
/// DSL call traced.
void noteNullUse(const Loc *where = nullptr);

/// Any traced value. A handle whose value is null is poisoned: an error was
/// already reported for the call that made it, and ops using it are skipped.
/// A default-constructed handle is null too; using it is reported
/// (noteNullUse).
class Handle {
public:
  Handle() = default;
  explicit Handle(const void *value) : value(value) {}
  const void *raw() const { return value; }
  bool poisoned() const {
    if (!value)
      noteNullUse();
    return value == nullptr;
  }

private:
  const void *value = nullptr;
};

/// A tile: a value of a ranked tensor type with a static shape.
class Tile : public Handle {
public:
  using Handle::Handle;
  /// `Tile(0)` would be a null (poisoned) handle, not a constant: use full().
  template <class T>
    requires std::is_arithmetic_v<T>
  Tile(T) = delete;
  std::vector<int64_t> shape() const;
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  DType dtype() const;
};

/// A scalar of the kernel: a grid index, a kernel argument, a loop counter.
class Scalar : public Handle {
public:
  using Handle::Handle;
  /// `Scalar(0)` would be a null (poisoned) handle, not a constant: ops take
  /// numbers where they take scalars (ScalarArg).
  template <class T>
    requires std::is_arithmetic_v<T>
  Scalar(T) = delete;
  DType dtype() const;
};

/// A scalar kernel parameter of C++ type T (its DType is fixed).
template <class T> class ScalarOf : public Scalar {
public:
  using element_type = T;
  using Scalar::Scalar;
};
using I32 = ScalarOf<int32_t>;
using I64 = ScalarOf<int64_t>;
using F32 = ScalarOf<float>;

/// What the compiler may assume about a view (checked by the launcher).
enum ViewFlags : unsigned {
  kNoAssumptions = 0,
  /// Base address and all strides but the last are multiples of 16 bytes.
  kAligned16 = 1,
  /// The last dimension has stride 1.
  kUnitStride = 2,
  kDense = kAligned16 | kUnitStride,
};

/// A kernel parameter: a strided view of global memory of element type T.
template <class T, int Rank, unsigned Flags = kNoAssumptions>
class View : public Handle {
public:
  static_assert(Rank >= 1, "views have rank >= 1");
  using element_type = T;
  static constexpr int rank = Rank;
  static constexpr unsigned flags = Flags;
  using Handle::Handle;
};

//===----------------------------------------------------------------------===//
// Operands: conversions that record the caller's source location
//===----------------------------------------------------------------------===//

/// A tile operand. Converting to it captures the location of the expression
/// that uses the tile (default arguments are evaluated at the call site), which
/// is how `a + b` gets a file:line.
struct TileArg {
  Tile tile;
  Loc loc;
  TileArg(const Tile &tile, Loc loc = Loc::current()) : tile(tile), loc(loc) {}
};

/// A scalar operand: a traced scalar or a C++ number whose type is taken from
/// the other operand.
struct ScalarArg {
  enum Kind { Traced, Int, Float } kind;
  Scalar scalar;
  int64_t intValue = 0;
  double floatValue = 0;
  Loc loc;
  ScalarArg(const Scalar &s, Loc loc = Loc::current())
      : kind(Traced), scalar(s), loc(loc) {}
  template <class T>
  requires std::is_integral_v<T> ScalarArg(T v, Loc loc = Loc::current())
      : kind(Int), intValue(static_cast<int64_t>(v)), loc(loc) {}
  template <class T>
  requires std::is_floating_point_v<T> ScalarArg(T v, Loc loc = Loc::current())
      : kind(Float), floatValue(static_cast<double>(v)), loc(loc) {}
};

//===----------------------------------------------------------------------===//
// Elementwise arithmetic (arith ops on tiles and scalars)
//===----------------------------------------------------------------------===//

/// Binary operators. Tile operands broadcast NumPy-style; scalars and C++
/// numbers are splatted. Operand element types must match (cast explicitly).
enum class BinOp {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  Max,
  Min,
  And,
  Or
};

Tile binary(BinOp op, const TileArg &a, const TileArg &b);
Tile binary(BinOp op, const TileArg &a, const ScalarArg &b);
Tile binary(BinOp op, const ScalarArg &a, const TileArg &b);
Scalar binary(BinOp op, const ScalarArg &a, const ScalarArg &b);

#define TESSEL_BINARY_OPERATOR(SYM, OP)                                        \
  inline Tile operator SYM(const TileArg &a, const TileArg &b) {               \
    return binary(BinOp::OP, a, b);                                            \
  }                                                                            \
  inline Tile operator SYM(const TileArg &a, const ScalarArg &b) {             \
    return binary(BinOp::OP, a, b);                                            \
  }                                                                            \
  inline Tile operator SYM(const ScalarArg &a, const TileArg &b) {             \
    return binary(BinOp::OP, a, b);                                            \
  }                                                                            \
  inline Scalar operator SYM(const ScalarArg &a, const ScalarArg &b) {         \
    return binary(BinOp::OP, a, b);                                            \
  }
TESSEL_BINARY_OPERATOR(+, Add)
TESSEL_BINARY_OPERATOR(-, Sub)
TESSEL_BINARY_OPERATOR(*, Mul)
TESSEL_BINARY_OPERATOR(/, Div)
TESSEL_BINARY_OPERATOR(%, Rem)
TESSEL_BINARY_OPERATOR(<, Lt)
TESSEL_BINARY_OPERATOR(<=, Le)
TESSEL_BINARY_OPERATOR(>, Gt)
TESSEL_BINARY_OPERATOR(>=, Ge)
TESSEL_BINARY_OPERATOR(==, Eq)
TESSEL_BINARY_OPERATOR(!=, Ne)
TESSEL_BINARY_OPERATOR(&&, And)
TESSEL_BINARY_OPERATOR(||, Or)
#undef TESSEL_BINARY_OPERATOR

Tile operator-(const TileArg &x);
Scalar operator-(const ScalarArg &x);

/// Elementwise functions; each works on tiles and on scalars.
enum class UnOp {
  Exp,
  Exp2,
  Log,
  Log2,
  FastLog2,
  Log1p,
  Sqrt,
  Rsqrt,
  Abs,
  Tanh,
  Neg,
  Sigmoid,
  Silu,
  Softplus
};
Tile unary(UnOp op, const TileArg &x);
Scalar unary(UnOp op, const ScalarArg &x);

#define TESSEL_UNARY_FUNCTION(NAME, OP)                                        \
  inline Tile NAME(const Tile &x, Loc loc = Loc::current()) {                  \
    return unary(UnOp::OP, TileArg(x, loc));                                   \
  }                                                                            \
  inline Scalar NAME(const Scalar &x, Loc loc = Loc::current()) {              \
    return unary(UnOp::OP, ScalarArg(x, loc));                                 \
  }
/// e^x to ~2-3 ulp.
TESSEL_UNARY_FUNCTION(exp, Exp)
/// 2^x, the fast exponential (one MUFU.EX2 on NVIDIA GPUs, ~2 ulp); results
/// below 2^-126 flush to zero on the GPU. On a bf16 or f16 tile the GPU
/// computes pairs in the 16-bit type (ex2.approx.ftz.bf16x2 / f16x2: a
/// relative error of up to 2^-7 for bf16, 2^-9.9 for f16).
TESSEL_UNARY_FUNCTION(exp2, Exp2)
TESSEL_UNARY_FUNCTION(log, Log)
TESSEL_UNARY_FUNCTION(log2, Log2)
/// log2(x), the fast one (one MUFU.LG2 on NVIDIA GPUs: lg2.approx.ftz.f32,
/// the PTX ISA's approximation, about 22 correct bits; subnormal x count as
/// 0, -inf). Traced as math.log2 with the `afn` fast-math flag; f32 only.
TESSEL_UNARY_FUNCTION(fast_log2, FastLog2)
TESSEL_UNARY_FUNCTION(log1p, Log1p)
TESSEL_UNARY_FUNCTION(sqrt, Sqrt)
TESSEL_UNARY_FUNCTION(rsqrt, Rsqrt)
TESSEL_UNARY_FUNCTION(abs, Abs)
TESSEL_UNARY_FUNCTION(tanh, Tanh)
/// 1 / (1 + exp(-x)). On f32 the fast form: exp2(x * -log2 e) and an
/// approximate division, relative error about |x| 6e-8 plus a few ulp
/// (tested to 8e-6 over [-80, 80]); below x = -87.3 results (under 1e-36)
/// flush to 0.
TESSEL_UNARY_FUNCTION(sigmoid, Sigmoid)
/// x * sigmoid(x), x / (1 + exp(-x)) (f32: the fast form, as sigmoid)
TESSEL_UNARY_FUNCTION(silu, Silu)
/// log(1 + exp(x)), and x itself above 20 where that is exact in f32.
TESSEL_UNARY_FUNCTION(softplus, Softplus)
#undef TESSEL_UNARY_FUNCTION

/// Elementwise max/min (NaN-propagating for floats).
inline Tile maximum(const TileArg &a, const TileArg &b) {
  return binary(BinOp::Max, a, b);
}
inline Tile maximum(const TileArg &a, const ScalarArg &b) {
  return binary(BinOp::Max, a, b);
}
inline Scalar maximum(const ScalarArg &a, const ScalarArg &b) {
  return binary(BinOp::Max, a, b);
}
inline Tile minimum(const TileArg &a, const TileArg &b) {
  return binary(BinOp::Min, a, b);
}
inline Tile minimum(const TileArg &a, const ScalarArg &b) {
  return binary(BinOp::Min, a, b);
}
inline Scalar minimum(const ScalarArg &a, const ScalarArg &b) {
  return binary(BinOp::Min, a, b);
}

/// `cond ? a : b` elementwise (arith.select); cond is an i1 tile.
Tile where(const TileArg &cond, const TileArg &a, const TileArg &b);
Tile where(const TileArg &cond, const TileArg &a, const ScalarArg &b);
Tile where(const TileArg &cond, const ScalarArg &a, const TileArg &b);
Scalar where(const ScalarArg &cond, const ScalarArg &a, const ScalarArg &b);

/// a·b + c elementwise, rounded once (math.fma: fma.rn on NVIDIA GPUs, two
/// elements per instruction in bf16 and f16). The operands share one
/// floating-point element type (a C++ number takes the tiles') and
/// broadcast as the arithmetic operators' do. `a * b + c` rounds the
/// product first: fma where that rounding matters, or to save an
/// instruction.
Tile fma(const TileArg &a, const TileArg &b, const TileArg &c);
Tile fma(const TileArg &a, const ScalarArg &b, const TileArg &c);
Tile fma(const TileArg &a, const TileArg &b, const ScalarArg &c);
Scalar fma(const ScalarArg &a, const ScalarArg &b, const ScalarArg &c);

/// Converts the element type (round to nearest even when narrowing floats,
/// truncation toward zero from float to integer).
Tile cast(const Tile &x, DType to, Loc loc = Loc::current());
Scalar cast(const Scalar &x, DType to, Loc loc = Loc::current());
template <class T> Tile cast(const Tile &x, Loc loc = Loc::current()) {
  return cast(x, dtypeOf<T>(), loc);
}
template <class T> Scalar cast(const Scalar &x, Loc loc = Loc::current()) {
  return cast(x, dtypeOf<T>(), loc);
}

/// A float tile narrowed to a 16-bit float type (bf16 or f16) with values
/// beyond its finite range, infinities included, clamped to its largest
/// finite value of the same sign instead of rounded to infinity; NaN stays
/// NaN. Traced as that clamp (minimum/maximum with the type's largest
/// finite value) and the cast: on NVIDIA GPUs one cvt.rn.satfinite per pair
/// of elements. A saturated factor later multiplied by 0 gives 0 where inf
/// would give NaN; a NaN formed before the cast (inf * 0) stays NaN.
Tile saturating_cast(const Tile &x, DType to, Loc loc = Loc::current());
template <class T>
Tile saturating_cast(const Tile &x, Loc loc = Loc::current()) {
  return saturating_cast(x, dtypeOf<T>(), loc);
}

/// The element of a one-element tile (any rank), as a scalar of its element
/// type. Every thread of the program holds a one-element tile's element (its
/// layout wraps around), so the scalar is the same in every thread and a
/// branch on it is uniform (what a branch around an mma needs).
Scalar item(const Tile &x, Loc loc = Loc::current());

/// A tile of `shape` filled with `value` (a traced scalar or a number).
Tile full(std::vector<int64_t> shape, const ScalarArg &value, DType type);
inline Tile zeros(std::vector<int64_t> shape, DType type = DType::f32,
                  Loc loc = Loc::current()) {
  return full(std::move(shape), ScalarArg(0, loc), type);
}

//===----------------------------------------------------------------------===//
// Grid, views and memory
//===----------------------------------------------------------------------===//

Scalar program_id(int dim, Loc loc = Loc::current());
Scalar num_programs(int dim, Loc loc = Loc::current());
/// The size of a view along `dim`, as passed at launch (i32).
Scalar dim(const Handle &view, int dim, Loc loc = Loc::current());

/// One extent of a load box: a size, or `drop` for a unit dimension that the
/// tile does not have (the view has more dimensions than the tile).
struct Extent {
  int64_t size;
  bool dropped = false;
  Extent(int64_t size) : size(size) {}
  Extent(int size) : size(size) {}
};
struct Drop {
  operator Extent() const {
    Extent e(1);
    e.dropped = true;
    return e;
  }
};
inline constexpr Drop drop{};

enum class Padding { zero, neg_inf, nan };

struct LoadOptions {
  Padding padding = Padding::zero;
  /// Pipelining hint: issue this load this many iterations ahead (1..10).
  int latency = 0;
  bool allow_tma = true;
};
struct StoreOptions {
  int latency = 0;
  /// View dimensions absent from the stored tile (each of extent 1).
  std::vector<int64_t> squeeze = {};
  /// Through shared memory and the TMA where the target, view and tile
  /// allow (see tile.store); launches then need a 16-byte aligned base,
  /// unit last stride, other strides and the last extent in whole 16 bytes.
  bool tma = false;
};

struct ViewInfo {
  DType dtype;
  int rank;
};
Tile loadImpl(const Handle &view, ViewInfo info,
              const std::vector<ScalarArg> &index,
              const std::vector<Extent> &box, const LoadOptions &options,
              Loc loc);
void storeImpl(const Handle &view, ViewInfo info,
               const std::vector<ScalarArg> &index, const Tile &value,
               const StoreOptions &options, Loc loc);
void prefetchImpl(const Handle &view, ViewInfo info,
                  const std::vector<ScalarArg> &index,
                  const std::vector<int64_t> &box, Loc loc);

/// Reads the tile at tile index `index` of `view`: along dimension d it covers
/// elements [index[d] * box[d], (index[d] + 1) * box[d]). Out-of-bounds
/// elements take the padding value.
template <class T, int R, unsigned F>
Tile load(const View<T, R, F> &view, std::vector<ScalarArg> index,
          std::vector<Extent> box, LoadOptions options = {},
          Loc loc = Loc::current()) {
  return loadImpl(view, {dtypeOf<T>(), R}, index, box, options, loc);
}

/// Brings the tile at tile index `index` of `view` (extent box[d] along
/// every dimension d, none dropped) into the L2 cache: a hint for loads to
/// come (of this program or of others running beside it), with no other
/// effect. Elements outside the view are skipped. Each 128-byte line (each
/// element of a view without unit stride) is an instruction: the GPU
/// lowering refuses more than 64 per thread of the program.
template <class T, int R, unsigned F>
void prefetch(const View<T, R, F> &view, std::vector<ScalarArg> index,
              std::vector<int64_t> box, Loc loc = Loc::current()) {
  prefetchImpl(view, {dtypeOf<T>(), R}, index, box, loc);
}

/// Writes `value` at tile index `index` of `view`; out-of-bounds elements are
/// dropped.
template <class T, int R, unsigned F>
void store(const View<T, R, F> &view, std::vector<ScalarArg> index,
           const Tile &value, StoreOptions options = {},
           Loc loc = Loc::current()) {
  storeImpl(view, {dtypeOf<T>(), R}, index, value, options, loc);
}

void signalImpl(const Handle &counters, int rank,
                const std::vector<ScalarArg> &index, const ScalarArg &value,
                bool wait, bool earlyLoads, Loc loc,
                bool earlierPrograms = false);

/// Adds `value` to the counter at element index `index` of `counters` once
/// every global-memory write this program made before it is visible at GPU
/// scope (tile.signal): a kernel launched after this one in the stream that
/// waits for the counter (wait_until) may read those writes while this one
/// still runs.
template <int R, unsigned F>
void signal(const View<int32_t, R, F> &counters, std::vector<ScalarArg> index,
            ScalarArg value = 1, Loc loc = Loc::current()) {
  signalImpl(counters, R, index, value, /*wait=*/false, /*earlyLoads=*/false,
             loc);
}

/// How wait_until may be placed.
struct WaitOptions {
  /// Loads may come before it, their latency overlapping the wait's. They
  /// must read only what the kernels before the signalling kernel wrote
  /// (complete when it lets this kernel launch): the author's promise.
  bool early_loads = false;
};

/// The kernel's dependency point (tile.wait): waits until the counter at
/// element index `index` of `counters` is at least `expected` (> 0), or for
/// the kernels before this one to complete (`expected` <= 0). First in the
/// kernel, before any load or store (any store with `early_loads`), outside
/// loops and branches.
template <int R, unsigned F>
void wait_until(const View<int32_t, R, F> &counters,
                std::vector<ScalarArg> index, ScalarArg expected,
                WaitOptions options = {}, Loc loc = Loc::current()) {
  signalImpl(counters, R, index, expected, /*wait=*/true,
             options.early_loads, loc);
}

Scalar ticketImpl(const Handle &counters, int rank,
                  const std::vector<ScalarArg> &index, Loc loc);

/// The program's ticket (tile.ticket): one thread adds 1 to the counter at
/// element index `index` of `counters`, and the program gets the value it
/// had (out of bounds: 0). From a counter at 0, one per program, the
/// programs in the order they took them: every program of a smaller ticket
/// has started, whatever order the GPU starts them in (what
/// wait_for_earlier needs of the programs it waits for, where the program
/// derives its place in the grid from its ticket).
template <int R, unsigned F>
Scalar ticket(const View<int32_t, R, F> &counters, std::vector<ScalarArg> index,
              Loc loc = Loc::current()) {
  return ticketImpl(counters, R, index, loc);
}

/// Waits until the counter at element index `index` of `counters` is at
/// least `expected`, raised by `signal`s of earlier programs of this kernel
/// (tile.wait {earlier_programs}); the writes they released are then
/// visible to the whole program. Not the kernel's dependency point: it may
/// come anywhere in the program's uniform control flow, any number of
/// times. Every program it waits for must have started: one of a smaller
/// `ticket`, or one before this one in launch order (the linear program
/// index, program_id(0) fastest), which the GPU starts first in practice
/// (not a documented guarantee); `expected` <= 0 or an index out of
/// bounds: no wait.
template <int R, unsigned F>
void wait_for_earlier(const View<int32_t, R, F> &counters,
                      std::vector<ScalarArg> index, ScalarArg expected,
                      Loc loc = Loc::current()) {
  signalImpl(counters, R, index, expected, /*wait=*/true,
             /*earlyLoads=*/false, loc, /*earlierPrograms=*/true);
}

//===----------------------------------------------------------------------===//
// Tile operations
//===----------------------------------------------------------------------===//

/// acc + a·b on tensor cores (a MxK, b KxN, acc MxN f32). The precision follows
/// the operands: bf16, f16, or tf32 for f32 operands.
Tile mma(const Tile &a, const Tile &b, const Tile &acc,
         Loc loc = Loc::current());

/// Inclusive prefix sum along `axis` (from the end when `reverse`).
Tile cumsum(const Tile &x, int64_t axis, bool reverse = false,
            Loc loc = Loc::current());

enum class Reduce { sum, max, min };
/// Reduces along `axis`, removing that dimension.
Tile reduce(const Tile &x, int64_t axis, Reduce kind, Loc loc = Loc::current());
inline Tile sum(const Tile &x, int64_t axis, Loc loc = Loc::current()) {
  return reduce(x, axis, Reduce::sum, loc);
}
inline Tile reduce_max(const Tile &x, int64_t axis, Loc loc = Loc::current()) {
  return reduce(x, axis, Reduce::max, loc);
}
inline Tile reduce_min(const Tile &x, int64_t axis, Loc loc = Loc::current()) {
  return reduce(x, axis, Reduce::min, loc);
}

/// Result dimension k is source dimension perm[k].
Tile permute(const Tile &x, std::vector<int64_t> perm,
             Loc loc = Loc::current());
inline Tile transpose(const Tile &x, Loc loc = Loc::current()) {
  return permute(x, {1, 0}, loc);
}
/// NumPy broadcast to `shape`.
Tile broadcast(const Tile &x, std::vector<int64_t> shape,
               Loc loc = Loc::current());
/// Same elements in row-major order, another shape.
Tile reshape(const Tile &x, std::vector<int64_t> shape,
             Loc loc = Loc::current());
/// Inserts a unit dimension at `axis`.
Tile expand_dims(const Tile &x, int64_t axis, Loc loc = Loc::current());
/// The integer tile whose element at index i is i[axis].
Tile iota(std::vector<int64_t> shape, int64_t axis, DType type = DType::i32,
          Loc loc = Loc::current());

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Type-erased cores of for_range and if_ (values are opaque IR values).
using RawValues = std::vector<const void *>;
RawValues
forImpl(const ScalarArg &lo, const ScalarArg &hi, const ScalarArg &step,
        const RawValues &init,
        const std::function<RawValues(Scalar, const RawValues &)> &body,
        Loc loc);
RawValues ifImpl(const ScalarArg &cond, const std::function<RawValues()> &then,
                 const std::function<RawValues()> *otherwise, Loc loc);

namespace detail {
template <class T> const void *toRaw(const T &h) { return h.raw(); }
template <class T> T fromRaw(const void *v) { return T(v); }
template <class T> struct IsTuple : std::false_type {};
template <class... Ts> struct IsTuple<std::tuple<Ts...>> : std::true_type {};
template <class R> RawValues pack(const R &r) {
  if constexpr (std::is_void_v<R>)
    return {};
  else if constexpr (IsTuple<R>::value)
    return std::apply([](const auto &...h) { return RawValues{toRaw(h)...}; },
                      r);
  else
    return {toRaw(r)};
}
template <class R> R unpack(const RawValues &v) {
  if constexpr (std::is_void_v<R>)
    return;
  else if constexpr (IsTuple<R>::value)
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return R{fromRaw<std::tuple_element_t<I, R>>(I < v.size() ? v[I]
                                                                : nullptr)...};
    }
  (std::make_index_sequence<std::tuple_size_v<R>>());
  else return fromRaw<R>(v.empty() ? nullptr : v[0]);
}
} // namespace detail

/// Loop bounds: [lo, hi) by step (scalars or numbers).
struct Range {
  ScalarArg lo, hi, step = ScalarArg(1);
};

/// for i in range: body(i) (an scf.for).
template <class F>
requires std::is_invocable_v<F, Scalar>
void for_range(Range range, F body, Loc loc = Loc::current()) {
  forImpl(
      range.lo, range.hi, range.step, {},
      [&](Scalar i, const RawValues &) {
        body(i);
        return RawValues{};
      },
      loc);
}

/// A loop carrying one value: acc = body(i, acc), starting from init.
template <class T, class F>
requires std::is_base_of_v<Handle, T> && std::is_invocable_r_v<T, F, Scalar, T>
    T for_range(Range range, T init, F body, Loc loc = Loc::current()) {
  RawValues out = forImpl(
      range.lo, range.hi, range.step, {init.raw()},
      [&](Scalar i, const RawValues &c) {
        return RawValues{T(body(i, T(c[0]))).raw()};
      },
      loc);
  return T(out.empty() ? nullptr : out[0]);
}

/// A loop carrying several values: body(i, a, b, ...) returns the tuple of
/// their next values.
template <class... Ts, class F>
std::tuple<Ts...> for_range(Range range, std::tuple<Ts...> init, F body,
                            Loc loc = Loc::current()) {
  RawValues out = forImpl(
      range.lo, range.hi, range.step, detail::pack(init),
      [&](Scalar i, const RawValues &c) {
        auto carried = detail::unpack<std::tuple<Ts...>>(c);
        return detail::pack(std::tuple<Ts...>(std::apply(
            [&](const Ts &...v) { return body(i, v...); }, carried)));
      },
      loc);
  return detail::unpack<std::tuple<Ts...>>(out);
}

/// A loop carrying a list of tiles whose length is known when the kernel is
/// traced (one accumulator per head of a program, say): body(i, tiles)
/// returns their next values, as many.
std::vector<Tile> for_range(
    Range range, const std::vector<Tile> &init,
    const std::function<std::vector<Tile>(Scalar, const std::vector<Tile> &)>
        &body,
    Loc loc = Loc::current());

/// if (cond) then()  -- for side effects (stores).
template <class F>
requires std::is_void_v<std::invoke_result_t<F>>
void if_(const ScalarArg &cond, F then, Loc loc = Loc::current()) {
  std::function<RawValues()> t = [&] {
    then();
    return RawValues{};
  };
  ifImpl(cond, t, nullptr, loc);
}

/// cond ? then() : otherwise(), both returning the same handle(s).
template <class F, class G>
requires(!std::is_same_v<std::remove_cvref_t<std::invoke_result_t<F>>,
                         std::vector<Tile>>) auto if_(
    const ScalarArg &cond, F then, G otherwise, Loc loc = Loc::current())
    -> std::invoke_result_t<F> {
  using R = std::invoke_result_t<F>;
  std::function<RawValues()> t = [&] { return detail::pack<R>(then()); };
  std::function<RawValues()> e = [&] {
    return detail::pack<R>(R(otherwise()));
  };
  return detail::unpack<R>(ifImpl(cond, t, &e, loc));
}

/// cond ? then() : otherwise(), both returning lists of tiles of the same
/// length and types.
std::vector<Tile> if_(const ScalarArg &cond,
                      const std::function<std::vector<Tile>()> &then,
                      const std::function<std::vector<Tile>()> &otherwise,
                      Loc loc = Loc::current());

//===----------------------------------------------------------------------===//
// Compile-time constants of a kernel (tile sizes, variants)
//===----------------------------------------------------------------------===//

/// The constants a kernel is specialised for, by name.
class Config {
public:
  Config() = default;
  Config(std::map<std::string, int64_t> values) : values(std::move(values)) {}
  // A copy does not record into the original's set (recordReads).
  Config(const Config &other) : values(other.values) {}
  Config &operator=(const Config &other) {
    values = other.values;
    reads = nullptr;
    return *this;
  }
  /// The constant `name`; reports an error (and returns 1) when it is missing.
  int64_t get(const std::string &name, Loc loc = Loc::current()) const;
  /// A constant's name, with the location of the `cfg["NAME"]` expression.
  struct Key {
    std::string name;
    Loc loc;
    Key(const char *name, Loc loc = Loc::current()) : name(name), loc(loc) {}
    Key(std::string name, Loc loc = Loc::current())
        : name(std::move(name)), loc(loc) {}
  };
  int64_t operator[](const Key &key) const { return get(key.name, key.loc); }
  /// The constant `name` as a DType; reports an error (and returns f32)
  /// when its value is not one.
  DType dtype(const std::string &name, Loc loc = Loc::current()) const;
  bool has(const std::string &name) const { return values.count(name) != 0; }
  void set(const std::string &name, int64_t value) { values[name] = value; }
  const std::map<std::string, int64_t> &all() const { return values; }
  /// Records in `names` every constant `get` reads from now on (null: stop;
  /// copies start without); countConfigs learns so which constants a
  /// kernel's check depends on.
  void recordReads(std::set<std::string> *names) { reads = names; }

private:
  std::map<std::string, int64_t> values;
  std::set<std::string> *reads = nullptr;
};

} // namespace dsl
} // namespace tessel

#endif // TESSEL_DSL_TESSEL_H
