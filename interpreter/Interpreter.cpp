//===- Interpreter.cpp - reference semantics of the tile dialect ----------===//

#include "interpreter/Interpreter.h"

#include "dialect/tile/TileOps.h"
#include "dsl/Tracer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;

namespace tessel::interp {

//===----------------------------------------------------------------------===//
// Number formats
//===----------------------------------------------------------------------===//

ViewArg contiguousView(void *data, DType dtype, std::vector<int64_t> sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * sizes[i + 1];
  return {data, dtype, std::move(sizes), std::move(strides)};
}

namespace {

/// Rounds `x` to what a value of type `type` can hold.
double roundTo(double x, Type type) {
  if (type.isF64())
    return x;
  float f = static_cast<float>(x);
  if (type.isF32())
    return f;
  if (type.isBF16())
    return roundToBF16(f);
  if (type.isF16())
    return roundToF16(f);
  return x;
}

/// Wraps `x` to a signless integer of `width` bits (two's complement).
int64_t wrapTo(int64_t x, unsigned width) {
  if (width >= 64)
    return x;
  if (width == 1)
    return x & 1;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t u = static_cast<uint64_t>(x) & mask;
  if (u >> (width - 1))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

/// A runtime value: a scalar (rank 0) or a tile; floats in `f`, integers in
/// `i`, already rounded to `element`.
struct RtValue {
  std::vector<int64_t> shape;
  Type element;
  std::vector<double> f;
  std::vector<int64_t> i;
  int viewIndex = -1; // for view values: the argument index

  bool isFloat() const { return isa<FloatType>(element); }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  double getF(int64_t k) const { return isFloat() ? f[k] : double(i[k]); }
  int64_t getI(int64_t k) const { return isFloat() ? int64_t(f[k]) : i[k]; }
};

RtValue makeValue(Type type) {
  RtValue v;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    v.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    v.element = tensor.getElementType();
  } else {
    v.element = type;
  }
  if (v.isFloat())
    v.f.assign(v.size(), 0.0);
  else
    v.i.assign(v.size(), 0);
  return v;
}

void setF(RtValue &v, int64_t k, double x) { v.f[k] = roundTo(x, v.element); }
void setI(RtValue &v, int64_t k, int64_t x) {
  v.i[k] = wrapTo(x, v.element.getIntOrFloatBitWidth());
}

/// Row-major strides of a shape.
std::vector<int64_t> rowMajor(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Multi-index of flat position k.
void unflatten(int64_t k, const std::vector<int64_t> &shape,
               std::vector<int64_t> &idx) {
  idx.assign(shape.size(), 0);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = k % shape[d];
    k /= shape[d];
  }
}

double readElement(const ViewArg &view, int64_t offset) {
  return loadElement(static_cast<const char *>(view.data) +
                         offset * dtypeBytes(view.dtype),
                     view.dtype);
}

int64_t readInt(const ViewArg &view, int64_t offset) {
  const char *p =
      static_cast<const char *>(view.data) + offset * dtypeBytes(view.dtype);
  switch (view.dtype) {
  case DType::i64: {
    int64_t x;
    std::memcpy(&x, p, 8);
    return x;
  }
  default:
    return static_cast<int64_t>(readElement(view, offset));
  }
}

void writeElement(const ViewArg &view, int64_t offset, const RtValue &v,
                  int64_t k) {
  char *p = static_cast<char *>(view.data) + offset * dtypeBytes(view.dtype);
  if (isFloat(view.dtype)) {
    storeElement(p, view.dtype, v.getF(k));
    return;
  }
  // Integers go through int64_t, not double, to keep all 64 bits.
  int64_t x = v.getI(k);
  std::memcpy(p, &x, dtypeBytes(view.dtype)); // little-endian truncation
}

class Program {
public:
  Program(const std::vector<ViewArg> &views, std::array<int64_t, 3> grid,
          std::array<int64_t, 3> pid)
      : views(views), grid(grid), pid(pid) {}

  /// Runs `block` to its terminator; returns the terminator's operand values.
  std::optional<std::vector<RtValue>> runBlock(Block &block);

  llvm::DenseMap<Value, RtValue> env;
  std::string error;

private:
  const std::vector<ViewArg> &views;
  std::array<int64_t, 3> grid, pid;

  bool fail(Operation *op, const llvm::Twine &message) {
    std::string loc;
    llvm::raw_string_ostream os(loc);
    op->getLoc().print(os);
    error =
        loc + ": " + op->getName().getStringRef().str() + ": " + message.str();
    return false;
  }
  const RtValue &get(Value v) { return env.find(v)->second; }
  bool step(Operation &op);
  bool elementwise(Operation &op);
  bool memory(Operation &op);
  bool counter(Operation &op);
  /// The i32 counter of `view` at `indices`: its view and offset (none
  /// where the indices fall outside the view).
  std::pair<const ViewArg *, std::optional<int64_t>>
  counterAt(Value view, ValueRange indices);
  /// Adds `amount` to the counter at `offset` of `view` (for `op`); its
  /// old value.
  int64_t addToCounter(Operation &op, const ViewArg &view, int64_t offset,
                       int64_t amount);
};

/// Linear offset of view coordinates, or nullopt when outside the view.
std::optional<int64_t> viewOffset(const ViewArg &view,
                                  const std::vector<int64_t> &coord) {
  int64_t offset = 0;
  for (size_t d = 0; d < coord.size(); ++d) {
    if (coord[d] < 0 || coord[d] >= view.sizes[d])
      return std::nullopt;
    offset += coord[d] * view.strides[d];
  }
  return offset;
}

bool Program::memory(Operation &op) {
  auto access = [&](Value viewValue, ValueRange indices,
                    std::optional<ArrayRef<int64_t>> squeeze,
                    ArrayRef<int64_t> tileShape, auto &&visit) -> bool {
    const ViewArg &view = views[get(viewValue).viewIndex];
    size_t rank = view.sizes.size();
    // The box: the tile shape with squeezed unit dimensions put back.
    std::vector<int64_t> box(rank, 1);
    ArrayRef<int64_t> sq = squeeze ? *squeeze : ArrayRef<int64_t>();
    size_t t = 0;
    for (size_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(sq, static_cast<int64_t>(d)))
        box[d] = tileShape[t++];
    std::vector<int64_t> origin(rank);
    for (size_t d = 0; d < rank; ++d)
      origin[d] = get(indices[d]).i[0] * box[d];
    int64_t n = 1;
    for (int64_t b : box)
      n *= b;
    std::vector<int64_t> local, coord(rank);
    for (int64_t k = 0; k < n; ++k) {
      unflatten(k, box, local);
      for (size_t d = 0; d < rank; ++d)
        coord[d] = origin[d] + local[d];
      visit(k, view, viewOffset(view, coord));
    }
    return true;
  };
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    auto type = cast<RankedTensorType>(load.getType());
    RtValue out = makeValue(type);
    double pad = 0;
    if (load.getPadding() == tile::Padding::neg_inf)
      pad = -std::numeric_limits<double>::infinity();
    else if (load.getPadding() == tile::Padding::nan)
      pad = std::numeric_limits<double>::quiet_NaN();
    access(load.getView(), load.getIndices(), load.getSqueeze(),
           type.getShape(),
           [&](int64_t k, const ViewArg &view, std::optional<int64_t> offset) {
             if (out.isFloat())
               setF(out, k, offset ? readElement(view, *offset) : pad);
             else
               setI(out, k, offset ? readInt(view, *offset) : 0);
           });
    env[load.getResult()] = std::move(out);
    return true;
  }
  auto store = cast<tile::StoreOp>(op);
  const RtValue &value = get(store.getValue());
  auto type = cast<RankedTensorType>(store.getValue().getType());
  access(store.getView(), store.getIndices(), store.getSqueeze(),
         type.getShape(),
         [&](int64_t k, const ViewArg &view, std::optional<int64_t> offset) {
           if (offset)
             writeElement(view, *offset, value, k);
         });
  return true;
}

/// tile.signal and tile.wait. Kernels run one after another here, and the
/// programs of a kernel in turn: a count a wait asks for must already be
/// there (nothing later could raise it).
std::pair<const ViewArg *, std::optional<int64_t>>
Program::counterAt(Value viewValue, ValueRange indices) {
  const ViewArg &view = views[get(viewValue).viewIndex];
  std::vector<int64_t> coord;
  for (Value i : indices)
    coord.push_back(get(i).i[0]);
  return {&view, viewOffset(view, coord)};
}

int64_t Program::addToCounter(Operation &op, const ViewArg &view,
                              int64_t offset, int64_t amount) {
  int64_t old = readInt(view, offset);
  RtValue sum = makeValue(IntegerType::get(op.getContext(), 32));
  setI(sum, 0, old + amount);
  writeElement(view, offset, sum, 0);
  return old;
}

bool Program::counter(Operation &op) {
  auto signal = dyn_cast<tile::SignalOp>(op);
  auto wait = dyn_cast<tile::WaitOp>(op);
  auto [view, offset] =
      signal ? counterAt(signal.getView(), signal.getIndices())
             : counterAt(wait.getView(), wait.getIndices());
  int64_t amount = get(signal ? signal.getValue() : wait.getExpected()).i[0];
  if (signal) {
    if (offset)
      addToCounter(op, *view, *offset, amount);
    return true;
  }
  if (amount <= 0 || !offset)
    return true; // (the kernels before are complete)
  int64_t have = readInt(*view, *offset);
  if (have < amount)
    return fail(&op, "waits for a count of " + llvm::Twine(amount) +
                         " that is " + llvm::Twine(have) +
                         ", and no later program or kernel runs before it "
                         "here (the interpreter runs them in turn)");
  return true;
}

double applyFloat(Operation &op, double a, double b) {
  return llvm::TypeSwitch<Operation *, double>(&op)
      .Case([&](arith::AddFOp) { return a + b; })
      .Case([&](arith::SubFOp) { return a - b; })
      .Case([&](arith::MulFOp) { return a * b; })
      .Case([&](arith::DivFOp) { return a / b; })
      .Case([&](arith::RemFOp) { return std::fmod(a, b); })
      .Case([&](arith::MaximumFOp) {
        return std::isnan(a) || std::isnan(b)
                   ? std::numeric_limits<double>::quiet_NaN()
                   : std::max(a, b);
      })
      .Case([&](arith::MinimumFOp) {
        return std::isnan(a) || std::isnan(b)
                   ? std::numeric_limits<double>::quiet_NaN()
                   : std::min(a, b);
      })
      .Case([&](arith::MaxNumFOp) { return std::fmax(a, b); })
      .Case([&](arith::MinNumFOp) { return std::fmin(a, b); })
      .Default([](Operation *) { return 0.0; });
}

bool cmpF(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

bool cmpI(arith::CmpIPredicate p, int64_t a, int64_t b, unsigned width) {
  uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  uint64_t ua = static_cast<uint64_t>(a) & mask,
           ub = static_cast<uint64_t>(b) & mask;
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return ua < ub;
  case P::ule:
    return ua <= ub;
  case P::ugt:
    return ua > ub;
  case P::uge:
    return ua >= ub;
  }
  return false;
}

std::optional<double> applyMath(Operation &op, double x) {
  return llvm::TypeSwitch<Operation *, std::optional<double>>(&op)
      .Case([&](math::ExpOp) { return std::exp(x); })
      .Case([&](math::Exp2Op) { return std::exp2(x); })
      .Case([&](math::LogOp) { return std::log(x); })
      .Case([&](math::Log2Op) { return std::log2(x); })
      .Case([&](math::Log1pOp) { return std::log1p(x); })
      .Case([&](math::SqrtOp) { return std::sqrt(x); })
      .Case([&](math::RsqrtOp) { return 1.0 / std::sqrt(x); })
      .Case([&](math::AbsFOp) { return std::fabs(x); })
      .Case([&](math::TanhOp) { return std::tanh(x); })
      .Case([&](arith::NegFOp) { return -x; })
      .Default([](Operation *) { return std::nullopt; });
}

/// a·b + c rounded once to `type` (math.fma). f32 and f64 through the C
/// library's fma. bf16 and f16: a·b is exact in double (11 significant bits
/// at most each) and a·b + c is rounded to a float *to odd* (the exact
/// error of the double sum, by TwoSum, says which way): rounding that float
/// to nearest even is then the single rounding of the exact value (24 bits
/// >= 11 + 2). Rounding the double sum directly would round twice, through
/// roundTo's float.
double fusedMultiplyAdd(double a, double b, double c, Type type) {
  if (type.isF64())
    return std::fma(a, b, c);
  if (type.isF32())
    return std::fmaf(static_cast<float>(a), static_cast<float>(b),
                     static_cast<float>(c));
  double p = a * b, s = p + c;
  float f = static_cast<float>(s);
  if (!std::isfinite(s) || !std::isfinite(f))
    return roundTo(s, type);
  double bv = s - p, err = (p - (s - bv)) + (c - bv);
  // s - f is exact (f is s rounded to 24 bits); the rest's sign is the
  // side the exact value lies on (|err| is below half an ulp of s).
  double rest = (s - static_cast<double>(f)) + err;
  if (rest != 0 && (std::bit_cast<uint32_t>(f) & 1) == 0)
    f = std::nextafter(f, rest > 0 ? INFINITY : -INFINITY);
  return roundTo(f, type);
}

/// Elementwise ops: every operand has the result's shape (scalars rank 0).
bool Program::elementwise(Operation &op) {
  Value res = op.getResult(0);
  RtValue out = makeValue(res.getType());
  int64_t n = out.size();
  if (op.getNumOperands() == 1 && out.isFloat() &&
      isa<FloatType>(getElementTypeOrSelf(op.getOperand(0).getType()))) {
    const RtValue &x = get(op.getOperand(0));
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      for (int64_t k = 0; k < n; ++k)
        setF(out, k, x.f[k]);
    } else {
      for (int64_t k = 0; k < n; ++k) {
        std::optional<double> y = applyMath(op, x.f[k]);
        if (!y)
          return fail(&op, "is not supported by the interpreter");
        setF(out, k, *y);
      }
    }
    env[res] = std::move(out);
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    const RtValue &a = get(cmp.getLhs()), &b = get(cmp.getRhs());
    for (int64_t k = 0; k < n; ++k)
      setI(out, k, cmpF(cmp.getPredicate(), a.f[k], b.f[k]));
  } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    const RtValue &a = get(cmp.getLhs()), &b = get(cmp.getRhs());
    unsigned width = a.element.getIntOrFloatBitWidth();
    for (int64_t k = 0; k < n; ++k)
      setI(out, k, cmpI(cmp.getPredicate(), a.i[k], b.i[k], width));
  } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    const RtValue &c = get(sel.getCondition()), &a = get(sel.getTrueValue()),
                  &b = get(sel.getFalseValue());
    for (int64_t k = 0; k < n; ++k) {
      bool take = c.i[c.size() == 1 ? 0 : k] != 0;
      const RtValue &src = take ? a : b;
      if (out.isFloat())
        setF(out, k, src.f[k]);
      else
        setI(out, k, src.i[k]);
    }
  } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    const RtValue &x = get(op.getOperand(0));
    unsigned width = x.element.getIntOrFloatBitWidth();
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = x.i[k];
      if (isa<arith::UIToFPOp>(op) && width < 64)
        v &= (int64_t(1) << width) - 1;
      setF(out, k, static_cast<double>(v));
    }
  } else if (isa<arith::FPToSIOp>(op)) {
    const RtValue &x = get(op.getOperand(0));
    for (int64_t k = 0; k < n; ++k) {
      double v = std::trunc(x.f[k]);
      if (!std::isfinite(v) || std::fabs(v) > 9.2e18)
        return fail(&op, "converts a value that fits no integer");
      setI(out, k, static_cast<int64_t>(v));
    }
  } else if (isa<arith::ExtSIOp, arith::TruncIOp>(op)) {
    const RtValue &x = get(op.getOperand(0));
    for (int64_t k = 0; k < n; ++k)
      setI(out, k, x.i[k]);
  } else if (isa<arith::ExtUIOp>(op)) {
    const RtValue &x = get(op.getOperand(0));
    unsigned width = x.element.getIntOrFloatBitWidth();
    for (int64_t k = 0; k < n; ++k)
      setI(out, k, width >= 64 ? x.i[k] : x.i[k] & ((int64_t(1) << width) - 1));
  } else if (isa<math::AbsIOp>(op)) {
    const RtValue &x = get(op.getOperand(0));
    for (int64_t k = 0; k < n; ++k)
      setI(out, k, x.i[k] < 0 ? -x.i[k] : x.i[k]);
  } else if (isa<math::FmaOp>(op)) {
    const RtValue &a = get(op.getOperand(0)), &b = get(op.getOperand(1)),
                  &c = get(op.getOperand(2));
    for (int64_t k = 0; k < n; ++k)
      setF(out, k, fusedMultiplyAdd(a.f[k], b.f[k], c.f[k], out.element));
  } else if (op.getNumOperands() == 2 && out.isFloat()) {
    const RtValue &a = get(op.getOperand(0)), &b = get(op.getOperand(1));
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(op))
      return fail(&op, "is not supported by the interpreter");
    for (int64_t k = 0; k < n; ++k)
      setF(out, k, applyFloat(op, a.f[k], b.f[k]));
  } else if (op.getNumOperands() == 2) {
    const RtValue &a = get(op.getOperand(0)), &b = get(op.getOperand(1));
    for (int64_t k = 0; k < n; ++k) {
      int64_t x = a.i[k], y = b.i[k], r;
      if (isa<arith::AddIOp>(op))
        r = static_cast<int64_t>(static_cast<uint64_t>(x) +
                                 static_cast<uint64_t>(y));
      else if (isa<arith::SubIOp>(op))
        r = static_cast<int64_t>(static_cast<uint64_t>(x) -
                                 static_cast<uint64_t>(y));
      else if (isa<arith::MulIOp>(op))
        r = static_cast<int64_t>(static_cast<uint64_t>(x) *
                                 static_cast<uint64_t>(y));
      else if (isa<arith::DivSIOp, arith::RemSIOp>(op)) {
        if (y == 0)
          return fail(&op, "divides by zero");
        if (y == -1)
          r = isa<arith::DivSIOp>(op) ? -x : 0;
        else
          r = isa<arith::DivSIOp>(op) ? x / y : x % y;
      } else if (isa<arith::DivUIOp, arith::RemUIOp>(op)) {
        // On the bits of the element's width, the result sign-extended
        // back as every integer is held.
        unsigned width = out.element.isIndex()
                             ? 64
                             : out.element.getIntOrFloatBitWidth();
        uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
        uint64_t ux = static_cast<uint64_t>(x) & mask,
                 uy = static_cast<uint64_t>(y) & mask;
        if (uy == 0)
          return fail(&op, "divides by zero");
        uint64_t q = isa<arith::DivUIOp>(op) ? ux / uy : ux % uy;
        if (width < 64 && (q >> (width - 1)) & 1)
          q |= ~mask;
        r = static_cast<int64_t>(q);
      } else if (isa<arith::MaxSIOp>(op))
        r = std::max(x, y);
      else if (isa<arith::MinSIOp>(op))
        r = std::min(x, y);
      else if (isa<arith::AndIOp>(op))
        r = x & y;
      else if (isa<arith::OrIOp>(op))
        r = x | y;
      else if (isa<arith::XOrIOp>(op))
        r = x ^ y;
      else
        return fail(&op, "is not supported by the interpreter");
      setI(out, k, r);
    }
  } else {
    return fail(&op, "is not supported by the interpreter");
  }
  env[res] = std::move(out);
  return true;
}

bool Program::step(Operation &op) {
  if (isa<tile::LoadOp, tile::StoreOp>(op))
    return memory(op);
  // A cache hint: nothing to interpret.
  if (isa<tile::PrefetchOp>(op))
    return true;
  if (isa<tile::SignalOp, tile::WaitOp>(op))
    return counter(op);
  if (auto ticket = dyn_cast<tile::TicketOp>(op)) {
    // (The programs run in turn: tickets in program order.)
    auto [view, offset] = counterAt(ticket.getView(), ticket.getIndices());
    RtValue v = makeValue(ticket.getType());
    setI(v, 0, offset ? addToCounter(op, *view, *offset, 1) : 0);
    env[ticket.getResult()] = std::move(v);
    return true;
  }
  if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
    RtValue v = makeValue(pid.getType());
    setI(v, 0, this->pid[pid.getDim()]);
    env[pid.getResult()] = std::move(v);
    return true;
  }
  if (auto num = dyn_cast<tile::NumProgramsOp>(op)) {
    RtValue v = makeValue(num.getType());
    setI(v, 0, grid[num.getDim()]);
    env[num.getResult()] = std::move(v);
    return true;
  }
  if (auto dimOp = dyn_cast<tile::DimOp>(op)) {
    RtValue v = makeValue(dimOp.getType());
    setI(v, 0, views[get(dimOp.getView()).viewIndex].sizes[dimOp.getDim()]);
    env[dimOp.getResult()] = std::move(v);
    return true;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    RtValue v = makeValue(c.getType());
    Attribute value = c.getValue();
    auto setAll = [&](Attribute a, int64_t k) {
      if (auto f = dyn_cast<FloatAttr>(a))
        setF(v, k, f.getValueAsDouble());
      else if (auto i = dyn_cast<IntegerAttr>(a))
        setI(v, k,
             v.element.isSignlessInteger(1)
                 ? int64_t(i.getValue().getZExtValue())
                 : i.getValue().getSExtValue());
    };
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      int64_t k = 0;
      if (dense.isSplat()) {
        for (k = 0; k < v.size(); ++k)
          setAll(dense.getSplatValue<Attribute>(), k);
      } else {
        for (Attribute a : dense.getValues<Attribute>())
          setAll(a, k++);
      }
    } else {
      setAll(value, 0);
    }
    env[c.getResult()] = std::move(v);
    return true;
  }
  if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    RtValue v = makeValue(splat.getType());
    const RtValue &s = get(splat.getInput());
    for (int64_t k = 0; k < v.size(); ++k) {
      if (v.isFloat())
        v.f[k] = s.f[0];
      else
        v.i[k] = s.i[0];
    }
    env[splat.getResult()] = std::move(v);
    return true;
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    const RtValue &t = get(extract.getTensor());
    int64_t k = 0;
    std::vector<int64_t> strides = rowMajor(t.shape);
    for (auto [d, idx] : llvm::enumerate(extract.getIndices())) {
      int64_t i = get(idx).i[0];
      if (i < 0 || i >= t.shape[d])
        return fail(&op, "index out of range");
      k += i * strides[d];
    }
    RtValue v = makeValue(extract.getType());
    if (v.isFloat())
      v.f[0] = t.f[k];
    else
      v.i[0] = t.i[k];
    env[extract.getResult()] = std::move(v);
    return true;
  }
  if (auto mma = dyn_cast<tile::MmaOp>(op)) {
    const RtValue &a = get(mma.getA()), &b = get(mma.getB()),
                  &acc = get(mma.getAcc());
    int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
    bool tf32 = mma.getPrecision() == tile::Precision::tf32;
    auto operand = [&](const RtValue &v, int64_t k) {
      return tf32 ? double(roundToTF32(float(v.f[k]))) : v.f[k];
    };
    RtValue out = makeValue(mma.getType());
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        // Products of bf16/f16/tf32 values are exact in double; the sum is
        // rounded once to the f32 accumulator.
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += operand(a, m * K + k) * operand(b, k * N + n);
        setF(out, m * N + n, acc.f[m * N + n] + s);
      }
    env[mma.getResult()] = std::move(out);
    return true;
  }
  if (auto scan = dyn_cast<tile::CumsumOp>(op)) {
    const RtValue &x = get(scan.getSource());
    RtValue out = makeValue(scan.getType());
    int64_t axis = scan.getAxis(), len = x.shape[axis];
    std::vector<int64_t> strides = rowMajor(x.shape);
    int64_t stride = strides[axis];
    // A Hillis-Steele scan, rounding after every step as the GPU does: the
    // summation order of a parallel scan, and its log2(n) error growth.
    std::vector<int64_t> line(len);
    for (int64_t k = 0; k < x.size(); ++k) {
      if ((k / stride) % len != 0)
        continue; // start of a line along `axis` only
      for (int64_t j = 0; j < len; ++j)
        line[j] = k + (scan.getReverse() ? len - 1 - j : j) * stride;
      for (int64_t j = 0; j < len; ++j) {
        if (out.isFloat())
          out.f[line[j]] = x.f[line[j]];
        else
          out.i[line[j]] = x.i[line[j]];
      }
      for (int64_t offset = 1; offset < len; offset *= 2)
        for (int64_t j = len - 1; j >= offset; --j) {
          int64_t dst = line[j], src = line[j - offset];
          if (out.isFloat())
            out.f[dst] = roundTo(out.f[dst] + out.f[src], out.element);
          else
            out.i[dst] = wrapTo(out.i[dst] + out.i[src],
                                out.element.getIntOrFloatBitWidth());
        }
    }
    env[scan.getResult()] = std::move(out);
    return true;
  }
  if (auto red = dyn_cast<tile::ReduceOp>(op)) {
    const RtValue &x = get(red.getSource());
    RtValue out = makeValue(red.getType());
    int64_t axis = red.getAxis(), len = x.shape[axis];
    std::vector<int64_t> strides = rowMajor(x.shape);
    int64_t stride = strides[axis];
    int64_t o = 0;
    for (int64_t k = 0; k < x.size(); ++k) {
      if ((k / stride) % len != 0)
        continue;
      double facc = x.isFloat() ? x.f[k] : 0;
      int64_t iacc = x.isFloat() ? 0 : x.i[k];
      for (int64_t j = 1; j < len; ++j) {
        int64_t e = k + j * stride;
        switch (red.getKind()) {
        case tile::ReduceKind::sum:
          if (x.isFloat())
            facc = roundTo(facc + x.f[e], x.element);
          else
            iacc = wrapTo(iacc + x.i[e], x.element.getIntOrFloatBitWidth());
          break;
        case tile::ReduceKind::max:
          if (x.isFloat())
            facc = std::isnan(facc) || std::isnan(x.f[e])
                       ? std::numeric_limits<double>::quiet_NaN()
                       : std::max(facc, x.f[e]);
          else
            iacc = std::max(iacc, x.i[e]);
          break;
        case tile::ReduceKind::min:
          if (x.isFloat())
            facc = std::isnan(facc) || std::isnan(x.f[e])
                       ? std::numeric_limits<double>::quiet_NaN()
                       : std::min(facc, x.f[e]);
          else
            iacc = std::min(iacc, x.i[e]);
          break;
        }
      }
      // Output position: the input index with `axis` removed, in order.
      int64_t outer = k / (stride * len), inner = k % stride;
      o = outer * stride + inner;
      if (out.isFloat())
        out.f[o] = facc;
      else
        out.i[o] = iacc;
    }
    env[red.getResult()] = std::move(out);
    return true;
  }
  if (auto perm = dyn_cast<tile::PermuteOp>(op)) {
    const RtValue &x = get(perm.getSource());
    RtValue out = makeValue(perm.getType());
    ArrayRef<int64_t> p = perm.getPerm();
    std::vector<int64_t> xs = rowMajor(x.shape), idx;
    for (int64_t k = 0; k < out.size(); ++k) {
      unflatten(k, out.shape, idx);
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        src += idx[d] * xs[p[d]];
      if (out.isFloat())
        out.f[k] = x.f[src];
      else
        out.i[k] = x.i[src];
    }
    env[perm.getResult()] = std::move(out);
    return true;
  }
  if (auto bc = dyn_cast<tile::BroadcastOp>(op)) {
    const RtValue &x = get(bc.getSource());
    RtValue out = makeValue(bc.getType());
    size_t offset = out.shape.size() - x.shape.size();
    std::vector<int64_t> xs = rowMajor(x.shape), idx;
    for (int64_t k = 0; k < out.size(); ++k) {
      unflatten(k, out.shape, idx);
      int64_t src = 0;
      for (size_t d = 0; d < x.shape.size(); ++d)
        src += (x.shape[d] == 1 ? 0 : idx[d + offset]) * xs[d];
      if (out.isFloat())
        out.f[k] = x.f[src];
      else
        out.i[k] = x.i[src];
    }
    env[bc.getResult()] = std::move(out);
    return true;
  }
  if (auto rs = dyn_cast<tile::ReshapeOp>(op)) {
    RtValue out = get(rs.getSource());
    auto type = cast<RankedTensorType>(rs.getType());
    out.shape.assign(type.getShape().begin(), type.getShape().end());
    env[rs.getResult()] = std::move(out);
    return true;
  }
  if (auto iota = dyn_cast<tile::IotaOp>(op)) {
    RtValue out = makeValue(iota.getType());
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < out.size(); ++k) {
      unflatten(k, out.shape, idx);
      setI(out, k, idx[iota.getAxis()]);
    }
    env[iota.getResult()] = std::move(out);
    return true;
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    int64_t lo = get(forOp.getLowerBound()).i[0];
    int64_t hi = get(forOp.getUpperBound()).i[0];
    int64_t st = get(forOp.getStep()).i[0];
    if (st <= 0)
      return fail(&op, "has a non-positive step " + std::to_string(st));
    std::vector<RtValue> carried;
    for (Value init : forOp.getInitArgs())
      carried.push_back(get(init));
    Block &body = *forOp.getBody();
    for (int64_t i = lo; i < hi; i += st) {
      RtValue iv = makeValue(forOp.getInductionVar().getType());
      setI(iv, 0, i);
      env[forOp.getInductionVar()] = std::move(iv);
      for (auto [arg, value] : llvm::zip(forOp.getRegionIterArgs(), carried))
        env[arg] = value;
      std::optional<std::vector<RtValue>> next = runBlock(body);
      if (!next)
        return false;
      carried = std::move(*next);
    }
    for (auto [r, value] : llvm::zip(forOp.getResults(), carried))
      env[r] = std::move(value);
    return true;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool cond = get(ifOp.getCondition()).i[0] != 0;
    Region &region = cond ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (region.empty())
      return true;
    std::optional<std::vector<RtValue>> out = runBlock(region.front());
    if (!out)
      return false;
    for (auto [r, value] : llvm::zip(ifOp.getResults(), *out))
      env[r] = std::move(value);
    return true;
  }
  if (op.getNumResults() == 1 &&
      (op.getDialect() && (op.getDialect()->getNamespace() == "arith" ||
                           op.getDialect()->getNamespace() == "math")))
    return elementwise(op);
  return fail(&op, "is not supported by the interpreter");
}

std::optional<std::vector<RtValue>> Program::runBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      std::vector<RtValue> out;
      for (Value v : op.getOperands())
        out.push_back(get(v));
      return out;
    }
    if (!step(op))
      return std::nullopt;
  }
  return std::vector<RtValue>{};
}

std::string checkArgs(func::FuncOp kernel, const std::vector<Arg> &args,
                      std::vector<ViewArg> &views) {
  auto name = [&](unsigned i) {
    auto attr = kernel.getArgAttrOfType<StringAttr>(
        i, tile::TileDialect::getArgNameAttrName());
    return attr ? "'" + attr.str() + "'" : "#" + std::to_string(i);
  };
  FunctionType type = kernel.getFunctionType();
  if (args.size() != type.getNumInputs())
    return "kernel '" + kernel.getSymName().str() + "' takes " +
           std::to_string(type.getNumInputs()) + " arguments, got " +
           std::to_string(args.size());
  views.clear();
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    if (auto view = dyn_cast<tile::ViewType>(t)) {
      auto *arg = std::get_if<ViewArg>(&args[i]);
      if (!arg)
        return "argument " + name(i) + " must be a view";
      DType expected;
      dsl::fromMlirType(view.getElementType(), expected);
      if (arg->dtype != expected)
        return "argument " + name(i) + " has element type " +
               dtypeName(arg->dtype) + ", the kernel expects " +
               dtypeName(expected);
      if (arg->sizes.size() != static_cast<size_t>(view.getRank()) ||
          arg->strides.size() != arg->sizes.size())
        return "argument " + name(i) + " must have rank " +
               std::to_string(view.getRank()) + " (sizes and strides)";
      bool empty = false;
      for (auto [d, size] : llvm::enumerate(arg->sizes)) {
        if (size < 0)
          return "argument " + name(i) + " has a negative size";
        empty |= size == 0;
        int64_t expectedSize = view.getShape()[d];
        if (!ShapedType::isDynamic(expectedSize) && size != expectedSize)
          return "argument " + name(i) + " must have size " +
                 std::to_string(expectedSize) + " in dimension " +
                 std::to_string(d);
      }
      if (!arg->data && !empty)
        return "argument " + name(i) + " is a null pointer";
      int64_t bytes = dtypeBytes(arg->dtype);
      if (view.getUnitStride() && arg->strides.back() != 1)
        return "argument " + name(i) +
               " must have unit stride in its last dimension";
      int64_t align = view.getAssumedAlignment();
      if (reinterpret_cast<uintptr_t>(arg->data) % align != 0)
        return "argument " + name(i) + " must be " + std::to_string(align) +
               "-byte aligned";
      for (size_t d = 0; d + 1 < arg->strides.size(); ++d)
        if ((arg->strides[d] * bytes) % align != 0)
          return "argument " + name(i) + " has stride " +
                 std::to_string(arg->strides[d]) + " in dimension " +
                 std::to_string(d) + ", not a multiple of " +
                 std::to_string(align) + " bytes";
      views.push_back(*arg);
    } else if (isa<FloatType>(t)) {
      if (!std::holds_alternative<double>(args[i]))
        return "argument " + name(i) + " must be a floating-point scalar";
    } else if (!std::holds_alternative<int64_t>(args[i])) {
      return "argument " + name(i) + " must be an integer scalar";
    }
  }
  return "";
}

} // namespace

std::string run(func::FuncOp kernel, std::array<int64_t, 3> grid,
                const std::vector<Arg> &args) {
  if (!kernel || kernel.isExternal())
    return "no kernel body to run";
  for (int64_t g : grid)
    if (g < 0)
      return "grid sizes must be non-negative";
  std::vector<ViewArg> views;
  if (std::string error = checkArgs(kernel, args, views); !error.empty())
    return error;
  Block &entry = kernel.getBody().front();
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        Program program(views, grid, {x, y, z});
        int viewIndex = 0;
        for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
          RtValue v =
              makeValue(isa<tile::ViewType>(arg.getType())
                            ? Type(IntegerType::get(kernel.getContext(), 32))
                            : arg.getType());
          if (isa<tile::ViewType>(arg.getType()))
            v.viewIndex = viewIndex++;
          else if (v.isFloat())
            setF(v, 0, std::get<double>(args[i]));
          else
            setI(v, 0, std::get<int64_t>(args[i]));
          program.env[arg] = std::move(v);
        }
        if (!program.runBlock(entry))
          return program.error;
      }
  return "";
}

} // namespace tessel::interp
