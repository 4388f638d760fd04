//===- Ops.cpp - DSL calls that emit tile, arith, math and scf ops --------===//
//
// Each DSL call emits its ops at the caller's location and verifies them at
// once. Where a result type cannot be computed from bad input (an axis out of
// range, a non-permutation), the op is built with a placeholder type so that
// the op's verifier, not a second copy of its rules here, reports the error.
//
//===----------------------------------------------------------------------===//

#include "dsl/Registry.h"
#include "dsl/Tracer.h"

#include <cstdio>
#include <cstdlib>

#include "dialect/tile/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;

namespace tessel {

namespace dsl {

namespace {
Tracer &tracer() { return Tracer::current(); }
OpBuilder &builder() { return tracer().getBuilder(); }
MLIRContext *ctx() { return tracer().getContext(); }
Value val(const Handle &h) { return toValue(h.raw()); }

std::string shapeString(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

const char *binOpName(BinOp op) {
  switch (op) {
  case BinOp::Add:
    return "+";
  case BinOp::Sub:
    return "-";
  case BinOp::Mul:
    return "*";
  case BinOp::Div:
    return "/";
  case BinOp::Rem:
    return "%";
  case BinOp::Lt:
    return "<";
  case BinOp::Le:
    return "<=";
  case BinOp::Gt:
    return ">";
  case BinOp::Ge:
    return ">=";
  case BinOp::Eq:
    return "==";
  case BinOp::Ne:
    return "!=";
  case BinOp::Max:
    return "maximum";
  case BinOp::Min:
    return "minimum";
  case BinOp::And:
    return "&&";
  case BinOp::Or:
    return "||";
  }
  return "?";
}

/// Tile shapes are checked before any type is built from them: a negative or
/// zero extent would not even make a valid tensor type.
bool checkShape(ArrayRef<int64_t> shape, const Loc &loc, StringRef what) {
  for (int64_t d : shape)
    if (d < 1 || d > (int64_t(1) << 24)) {
      tracer().error(loc) << what << " has an invalid extent " << d
                          << " in shape " << shapeString(shape);
      return false;
    }
  return true;
}

/// The C++ integer `s` as an attribute of `type`, exactly (IntegerAttr::get
/// would keep its low bits: 32 as a boolean is 0), or null with an error: a
/// value in the type's signed or unsigned range; a boolean is 0 or 1.
IntegerAttr exactInteger(const ScalarArg &s, IntegerType type,
                         StringRef context) {
  const unsigned width = type.getWidth();
  const bool isSigned = llvm::isIntN(width, s.intValue);
  const bool fits =
      width == 1 ? (s.intValue == 0 || s.intValue == 1)
                 : isSigned || (width < 64 && llvm::isUIntN(width, s.intValue));
  if (!fits) {
    tracer().error(s.loc) << "the number " << s.intValue << " does not fit the "
                          << type << " operand in " << context
                          << (width == 1 ? " (a boolean: 0 or 1)" : "");
    return {};
  }
  return IntegerAttr::get(type, APInt(width, static_cast<uint64_t>(s.intValue),
                                      /*isSigned=*/width > 1 && isSigned));
}

/// Makes a scalar operand a value of `type`: a traced scalar must already have
/// it (no silent conversions), a C++ number is materialised as a constant.
Value scalarValue(const ScalarArg &s, Type type, StringRef context) {
  Tracer &t = tracer();
  switch (s.kind) {
  case ScalarArg::Traced: {
    if (s.scalar.poisoned())
      return {};
    Value v = val(s.scalar);
    if (v.getType() != type) {
      t.error(s.loc) << "a " << v.getType() << " scalar is used with a " << type
                     << " operand in " << context << "; convert it with cast()";
      return {};
    }
    return v;
  }
  case ScalarArg::Int:
    if (auto intType = dyn_cast<IntegerType>(type)) {
      IntegerAttr attr = exactInteger(s, intType, context);
      return attr ? arith::ConstantOp::create(builder(), t.loc(s.loc), attr)
                  : Value();
    }
    if (auto floatType = dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(
          builder(), t.loc(s.loc),
          FloatAttr::get(floatType, static_cast<double>(s.intValue)));
    break;
  case ScalarArg::Float:
    if (auto floatType = dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(builder(), t.loc(s.loc),
                                       FloatAttr::get(floatType, s.floatValue));
    t.error(s.loc) << "the number " << s.floatValue << " is used with a "
                   << type << " operand in " << context;
    return {};
  }
  t.error(s.loc) << "a number cannot be used with a " << type << " operand in "
                 << context;
  return {};
}

/// The type a scalar operand has on its own: its traced type, else i32 for
/// integers and f32 for floating-point numbers.
Type naturalType(const ScalarArg &s) {
  if (s.kind == ScalarArg::Traced)
    return s.scalar.poisoned() ? Type() : val(s.scalar).getType();
  Builder b(ctx());
  return s.kind == ScalarArg::Int ? Type(b.getI32Type()) : Type(b.getF32Type());
}

/// An i32 index (loop bound, tile index); integer scalars of other widths are
/// converted, floats rejected.
Value indexValue(const ScalarArg &s, StringRef context) {
  Builder b(ctx());
  if (s.kind != ScalarArg::Traced)
    return scalarValue(s, b.getI32Type(), context);
  if (s.scalar.poisoned())
    return {};
  Value v = val(s.scalar);
  auto intType = dyn_cast<IntegerType>(v.getType());
  if (!intType || intType.getWidth() == 1) {
    tracer().error(s.loc) << context << " must be an integer, got "
                          << v.getType();
    return {};
  }
  if (intType.getWidth() == 32)
    return v;
  Location loc = tracer().loc(s.loc);
  if (intType.getWidth() > 32)
    return arith::TruncIOp::create(builder(), loc, b.getI32Type(), v);
  return arith::ExtSIOp::create(builder(), loc, b.getI32Type(), v);
}

Value splatTo(Value scalar, RankedTensorType type, const Loc &loc) {
  return tensor::SplatOp::create(builder(), tracer().loc(loc), type, scalar);
}

/// NumPy broadcast of two shapes; false when they are incompatible.
bool broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                     SmallVectorImpl<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = std::max(da, db);
  }
  return true;
}

Value broadcastTo(Value v, ArrayRef<int64_t> shape, const Loc &loc) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  auto op = tracer().create<tile::BroadcastOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), v);
  return op ? op.getResult() : Value();
}

Tile tileOf(Value v) { return Tile(v ? toRaw(v) : nullptr); }
Scalar scalarOf(Value v) { return Scalar(v ? toRaw(v) : nullptr); }

template <class OpT> Value result(OpT op) {
  return op ? op->getResult(0) : Value();
}

/// The arith op for `op` on two values of the same type (tensors or scalars).
Value emitBinary(BinOp op, Value lhs, Value rhs, const Loc &loc) {
  Tracer &t = tracer();
  Type element = getElementTypeOrSelf(lhs.getType());
  bool isFloatOp = isa<FloatType>(element);
  bool isBool = element.isSignlessInteger(1);
  if (!isFloatOp && !isa<IntegerType>(element)) {
    t.error(loc) << "'" << binOpName(op) << "' is not defined on " << element;
    return {};
  }
  bool logical = op == BinOp::And || op == BinOp::Or;
  if (logical && !isa<IntegerType>(element)) {
    t.error(loc) << "'" << binOpName(op) << "' needs boolean (i1) or integer "
                 << "operands, got " << element;
    return {};
  }
  bool comparison = op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt ||
                    op == BinOp::Ge || op == BinOp::Eq || op == BinOp::Ne;
  if (isBool && !logical && op != BinOp::Eq && op != BinOp::Ne) {
    t.error(loc) << "'" << binOpName(op)
                 << "' is not defined on booleans (i1); use && or ||";
    return {};
  }
  if (comparison) {
    if (isFloatOp) {
      arith::CmpFPredicate pred = arith::CmpFPredicate::OEQ;
      switch (op) {
      case BinOp::Lt:
        pred = arith::CmpFPredicate::OLT;
        break;
      case BinOp::Le:
        pred = arith::CmpFPredicate::OLE;
        break;
      case BinOp::Gt:
        pred = arith::CmpFPredicate::OGT;
        break;
      case BinOp::Ge:
        pred = arith::CmpFPredicate::OGE;
        break;
      case BinOp::Ne:
        pred = arith::CmpFPredicate::UNE; // x != NaN holds
        break;
      default:
        break;
      }
      return result(t.create<arith::CmpFOp>(loc, pred, lhs, rhs));
    }
    arith::CmpIPredicate pred = arith::CmpIPredicate::eq;
    switch (op) {
    case BinOp::Lt:
      pred = arith::CmpIPredicate::slt;
      break;
    case BinOp::Le:
      pred = arith::CmpIPredicate::sle;
      break;
    case BinOp::Gt:
      pred = arith::CmpIPredicate::sgt;
      break;
    case BinOp::Ge:
      pred = arith::CmpIPredicate::sge;
      break;
    case BinOp::Ne:
      pred = arith::CmpIPredicate::ne;
      break;
    default:
      break;
    }
    return result(t.create<arith::CmpIOp>(loc, pred, lhs, rhs));
  }
  switch (op) {
  case BinOp::Add:
    return isFloatOp ? result(t.create<arith::AddFOp>(loc, lhs, rhs))
                     : result(t.create<arith::AddIOp>(loc, lhs, rhs));
  case BinOp::Sub:
    return isFloatOp ? result(t.create<arith::SubFOp>(loc, lhs, rhs))
                     : result(t.create<arith::SubIOp>(loc, lhs, rhs));
  case BinOp::Mul:
    return isFloatOp ? result(t.create<arith::MulFOp>(loc, lhs, rhs))
                     : result(t.create<arith::MulIOp>(loc, lhs, rhs));
  case BinOp::Div:
    return isFloatOp ? result(t.create<arith::DivFOp>(loc, lhs, rhs))
                     : result(t.create<arith::DivSIOp>(loc, lhs, rhs));
  case BinOp::Rem:
    return isFloatOp ? result(t.create<arith::RemFOp>(loc, lhs, rhs))
                     : result(t.create<arith::RemSIOp>(loc, lhs, rhs));
  case BinOp::Max:
    return isFloatOp ? result(t.create<arith::MaximumFOp>(loc, lhs, rhs))
                     : result(t.create<arith::MaxSIOp>(loc, lhs, rhs));
  case BinOp::Min:
    return isFloatOp ? result(t.create<arith::MinimumFOp>(loc, lhs, rhs))
                     : result(t.create<arith::MinSIOp>(loc, lhs, rhs));
  case BinOp::And:
    return result(t.create<arith::AndIOp>(loc, lhs, rhs));
  case BinOp::Or:
    return result(t.create<arith::OrIOp>(loc, lhs, rhs));
  default:
    break;
  }
  return {};
}

/// Brings two tiles to a common shape; reports incompatible shapes and
/// element types at `loc`.
bool unifyTiles(Value &a, Value &b, const Loc &loc, StringRef what) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (ta.getElementType() != tb.getElementType()) {
    tracer().error(loc) << "operands of '" << what
                        << "' have different element types, "
                        << ta.getElementType() << " and " << tb.getElementType()
                        << "; convert one with cast()";
    return false;
  }
  SmallVector<int64_t> shape;
  if (!broadcastShapes(ta.getShape(), tb.getShape(), shape)) {
    tracer().error(loc) << "operands of '" << what << "' have shapes "
                        << shapeString(ta.getShape()) << " and "
                        << shapeString(tb.getShape())
                        << ", which do not broadcast together";
    return false;
  }
  a = broadcastTo(a, shape, loc);
  b = broadcastTo(b, shape, loc);
  return a && b;
}
} // namespace

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

std::vector<int64_t> Tile::shape() const {
  if (poisoned())
    return {};
  auto type = dyn_cast<RankedTensorType>(toValue(raw()).getType());
  return type ? std::vector<int64_t>(type.getShape().begin(),
                                     type.getShape().end())
              : std::vector<int64_t>{};
}

DType Tile::dtype() const {
  DType d = DType::f32;
  if (!poisoned())
    fromMlirType(toValue(raw()).getType(), d);
  return d;
}

DType Scalar::dtype() const {
  DType d = DType::i32;
  if (!poisoned())
    fromMlirType(toValue(raw()).getType(), d);
  return d;
}

namespace {
/// A configuration's error at `loc`: in a trace, the trace's; outside one
/// (a kernel's check or variantDefaults, which run before it), said at the
/// reader's line, then the usage error's exit.
void configError(const Loc &loc, const std::string &message) {
  if (!Tracer::active()) {
    std::fprintf(stderr, "%s:%u:%u: error: %s\n", loc.file_name(), loc.line(),
                 loc.column(), message.c_str());
    std::exit(2);
  }
  Tracer::current().error(loc) << message;
}
} // namespace

int64_t Config::get(const std::string &name, Loc loc) const {
  if (reads)
    reads->insert(name);
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  std::string known;
  for (const auto &[key, value] : values)
    known += (known.empty() ? "" : ", ") + key;
  configError(loc, "the kernel has no compile-time constant '" + name +
                       "' (it has: " + (known.empty() ? "none" : known) + ")");
  return 1;
}

DType Config::dtype(const std::string &name, Loc loc) const {
  const int64_t value = get(name, loc);
  if (value >= static_cast<int64_t>(DType::i1) &&
      value <= static_cast<int64_t>(DType::f64))
    return static_cast<DType>(value);
  configError(loc, "the constant '" + name + "' is " + std::to_string(value) +
                       ", which is not a dtype (declare it with "
                       "dtypeVariant)");
  return DType::f32;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

Tile binary(BinOp op, const TileArg &a, const TileArg &b) {
  if (a.tile.poisoned() || b.tile.poisoned())
    return Tile();
  Value lhs = val(a.tile), rhs = val(b.tile);
  if (!unifyTiles(lhs, rhs, a.loc, binOpName(op)))
    return Tile();
  return tileOf(emitBinary(op, lhs, rhs, a.loc));
}

Tile binary(BinOp op, const TileArg &a, const ScalarArg &b) {
  if (a.tile.poisoned())
    return Tile();
  Value lhs = val(a.tile);
  auto type = cast<RankedTensorType>(lhs.getType());
  Value s = scalarValue(b, type.getElementType(),
                        std::string("'") + binOpName(op) + "'");
  if (!s)
    return Tile();
  return tileOf(emitBinary(op, lhs, splatTo(s, type, a.loc), a.loc));
}

Tile binary(BinOp op, const ScalarArg &a, const TileArg &b) {
  if (b.tile.poisoned())
    return Tile();
  Value rhs = val(b.tile);
  auto type = cast<RankedTensorType>(rhs.getType());
  Value s = scalarValue(a, type.getElementType(),
                        std::string("'") + binOpName(op) + "'");
  if (!s)
    return Tile();
  return tileOf(emitBinary(op, splatTo(s, type, b.loc), rhs, b.loc));
}

Scalar binary(BinOp op, const ScalarArg &a, const ScalarArg &b) {
  // The traced operand decides the type a number takes.
  Type type = a.kind == ScalarArg::Traced ? naturalType(a) : naturalType(b);
  if (!type)
    return Scalar();
  std::string context = std::string("'") + binOpName(op) + "'";
  Value lhs = scalarValue(a, type, context);
  Value rhs = scalarValue(b, type, context);
  if (!lhs || !rhs)
    return Scalar();
  return scalarOf(emitBinary(op, lhs, rhs, a.loc));
}

namespace {
Value emitUnary(UnOp op, Value x, const Loc &loc) {
  Tracer &t = tracer();
  Type element = getElementTypeOrSelf(x.getType());
  bool isFloatOp = isa<FloatType>(element);
  if (op == UnOp::Neg) {
    if (isFloatOp)
      return result(t.create<arith::NegFOp>(loc, x));
    Value zero = arith::ConstantOp::create(builder(), t.loc(loc),
                                           builder().getZeroAttr(x.getType()));
    return result(t.create<arith::SubIOp>(loc, zero, x));
  }
  if (op == UnOp::Abs && !isFloatOp && !element.isSignlessInteger(1))
    return result(t.create<math::AbsIOp>(loc, x));
  if (!isFloatOp) {
    t.error(loc) << "this function needs a floating-point operand, got "
                 << x.getType() << "; convert it with cast()";
    return {};
  }
  auto one = [&]() -> Value {
    return arith::ConstantOp::create(
        builder(), t.loc(loc),
        cast<TypedAttr>(builder().getOneAttr(x.getType())));
  };
  switch (op) {
  case UnOp::Exp:
    return result(t.create<math::ExpOp>(loc, x));
  case UnOp::Exp2:
    return result(t.create<math::Exp2Op>(loc, x));
  case UnOp::Log:
    return result(t.create<math::LogOp>(loc, x));
  case UnOp::Log2:
    return result(t.create<math::Log2Op>(loc, x));
  case UnOp::FastLog2:
    if (!element.isF32()) {
      t.error(loc) << "fast_log2() takes f32, got " << x.getType()
                   << "; convert it with cast()";
      return {};
    }
    return result(
        t.create<math::Log2Op>(loc, x, arith::FastMathFlags::afn));
  case UnOp::Log1p:
    return result(t.create<math::Log1pOp>(loc, x));
  case UnOp::Sqrt:
    return result(t.create<math::SqrtOp>(loc, x));
  case UnOp::Rsqrt:
    return result(t.create<math::RsqrtOp>(loc, x));
  case UnOp::Abs:
    return result(t.create<math::AbsFOp>(loc, x));
  case UnOp::Tanh:
    return result(t.create<math::TanhOp>(loc, x));
  case UnOp::Sigmoid:
  case UnOp::Silu: {
    // sigmoid(x) = 1 / (1 + exp(-x)); silu(x) = x / (1 + exp(-x)).
    // On f32 as GPU kernels compute it (Triton's tl.sigmoid too): exp(-x)
    // as exp2(x * -log2 e), one ex2.approx, and an approximate division
    // (afn: div.approx.f32, a reciprocal and a multiply). Relative error
    // about |x| 6e-8 (the rounding of x log2 e) plus a few ulp; an IEEE
    // division (div.rn.f32) is a subroutine with a slow path, and exp to 1
    // ulp needs a correction. Large negative x: below about -87.3 the
    // divisor passes 2^126 and div.approx gives 0 (|silu| < 1e-36 there),
    // below -88.7 exp2 overflows to inf and the quotient is -0.
    Value num = op == UnOp::Sigmoid ? one() : x;
    if (element.isF32()) {
      TypedAttr log2e = builder().getF32FloatAttr(float(-1.4426950408889634));
      if (auto shaped = dyn_cast<ShapedType>(x.getType()))
        log2e = DenseElementsAttr::get(shaped, log2e);
      Value scale = arith::ConstantOp::create(builder(), t.loc(loc), log2e);
      Value arg = result(t.create<arith::MulFOp>(loc, x, scale));
      Value e = arg ? result(t.create<math::Exp2Op>(loc, arg)) : Value();
      Value den = e ? result(t.create<arith::AddFOp>(loc, one(), e)) : Value();
      if (!den)
        return {};
      return result(t.create<arith::DivFOp>(loc, num, den,
                                            arith::FastMathFlags::afn));
    }
    Value neg = result(t.create<arith::NegFOp>(loc, x));
    Value e = neg ? result(t.create<math::ExpOp>(loc, neg)) : Value();
    Value den = e ? result(t.create<arith::AddFOp>(loc, one(), e)) : Value();
    if (!den)
      return {};
    return result(t.create<arith::DivFOp>(loc, num, den));
  }
  case UnOp::Softplus: {
    // softplus(x) = max(x, 0) + log1p(exp(-|x|)): exp never overflows and
    // log1p's argument stays in (0, 1], where it is cheapest to evaluate.
    // (Equal in f32 to mamba_ssm's `x > 20 ? x : log1p(exp(x))`.)
    Value ax = result(t.create<math::AbsFOp>(loc, x));
    Value nax = ax ? result(t.create<arith::NegFOp>(loc, ax)) : Value();
    Value e = nax ? result(t.create<math::ExpOp>(loc, nax)) : Value();
    Value l = e ? result(t.create<math::Log1pOp>(loc, e)) : Value();
    if (!l)
      return {};
    Value zero = arith::ConstantOp::create(builder(), t.loc(loc),
                                           builder().getZeroAttr(x.getType()));
    Value pos = result(t.create<arith::MaximumFOp>(loc, x, zero));
    return pos ? result(t.create<arith::AddFOp>(loc, pos, l)) : Value();
  }
  case UnOp::Neg:
    break;
  }
  return {};
}
} // namespace

Tile unary(UnOp op, const TileArg &x) {
  if (x.tile.poisoned())
    return Tile();
  return tileOf(emitUnary(op, val(x.tile), x.loc));
}

Scalar unary(UnOp op, const ScalarArg &x) {
  Type type = naturalType(x);
  if (!type)
    return Scalar();
  Value v = scalarValue(x, type, "a function call");
  return v ? scalarOf(emitUnary(op, v, x.loc)) : Scalar();
}

Tile operator-(const TileArg &x) { return unary(UnOp::Neg, x); }
Scalar operator-(const ScalarArg &x) { return unary(UnOp::Neg, x); }

namespace {
/// select(cond, a, b) once all three are values of one shape.
Value emitSelect(Value cond, Value a, Value b, const Loc &loc) {
  if (!getElementTypeOrSelf(cond.getType()).isSignlessInteger(1)) {
    tracer().error(loc) << "the condition of where() must be boolean (i1), "
                           "got "
                        << cond.getType();
    return {};
  }
  return result(tracer().create<arith::SelectOp>(loc, cond, a, b));
}

Tile whereTiles(Value cond, Value a, Value b, const Loc &loc) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  auto tc = cast<RankedTensorType>(cond.getType());
  if (ta.getElementType() != tb.getElementType()) {
    tracer().error(loc) << "where() chooses between different element types, "
                        << ta.getElementType() << " and "
                        << tb.getElementType();
    return Tile();
  }
  SmallVector<int64_t> shape, shape2;
  if (!broadcastShapes(ta.getShape(), tb.getShape(), shape) ||
      !broadcastShapes(shape, tc.getShape(), shape2)) {
    tracer().error(loc) << "where() operands of shapes "
                        << shapeString(tc.getShape()) << ", "
                        << shapeString(ta.getShape()) << " and "
                        << shapeString(tb.getShape())
                        << " do not broadcast together";
    return Tile();
  }
  cond = broadcastTo(cond, shape2, loc);
  a = broadcastTo(a, shape2, loc);
  b = broadcastTo(b, shape2, loc);
  if (!cond || !a || !b)
    return Tile();
  return tileOf(emitSelect(cond, a, b, loc));
}
} // namespace

Tile where(const TileArg &cond, const TileArg &a, const TileArg &b) {
  if (cond.tile.poisoned() || a.tile.poisoned() || b.tile.poisoned())
    return Tile();
  return whereTiles(val(cond.tile), val(a.tile), val(b.tile), cond.loc);
}

Tile where(const TileArg &cond, const TileArg &a, const ScalarArg &b) {
  if (cond.tile.poisoned() || a.tile.poisoned())
    return Tile();
  auto type = cast<RankedTensorType>(val(a.tile).getType());
  Value s = scalarValue(b, type.getElementType(), "where()");
  if (!s)
    return Tile();
  return whereTiles(val(cond.tile), val(a.tile), splatTo(s, type, cond.loc),
                    cond.loc);
}

Tile where(const TileArg &cond, const ScalarArg &a, const TileArg &b) {
  if (cond.tile.poisoned() || b.tile.poisoned())
    return Tile();
  auto type = cast<RankedTensorType>(val(b.tile).getType());
  Value s = scalarValue(a, type.getElementType(), "where()");
  if (!s)
    return Tile();
  return whereTiles(val(cond.tile), splatTo(s, type, cond.loc), val(b.tile),
                    cond.loc);
}

namespace {
/// math.fma on values of one floating-point element type whose shapes
/// broadcast together (scalars: all three rank 0).
Value fmaValues(Value a, Value b, Value c, const Loc &loc) {
  Type element = getElementTypeOrSelf(a.getType());
  for (Value v : {b, c})
    if (getElementTypeOrSelf(v.getType()) != element) {
      tracer().error(loc) << "operands of 'fma' have different element types, "
                          << element << " and "
                          << getElementTypeOrSelf(v.getType())
                          << "; convert one with cast()";
      return {};
    }
  if (!isa<FloatType>(element)) {
    tracer().error(loc) << "fma needs floating-point operands, got " << element
                        << "; convert them with cast()";
    return {};
  }
  if (isa<RankedTensorType>(a.getType())) {
    auto shapeOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    SmallVector<int64_t> ab, shape;
    if (!broadcastShapes(shapeOf(a), shapeOf(b), ab) ||
        !broadcastShapes(ab, shapeOf(c), shape)) {
      tracer().error(loc) << "operands of 'fma' have shapes "
                          << shapeString(shapeOf(a)) << ", "
                          << shapeString(shapeOf(b)) << " and "
                          << shapeString(shapeOf(c))
                          << ", which do not broadcast together";
      return {};
    }
    a = broadcastTo(a, shape, loc);
    b = broadcastTo(b, shape, loc);
    c = broadcastTo(c, shape, loc);
    if (!a || !b || !c)
      return {};
  }
  return result(tracer().create<math::FmaOp>(loc, a, b, c));
}
} // namespace

Tile fma(const TileArg &a, const TileArg &b, const TileArg &c) {
  if (a.tile.poisoned() || b.tile.poisoned() || c.tile.poisoned())
    return Tile();
  return tileOf(fmaValues(val(a.tile), val(b.tile), val(c.tile), a.loc));
}

namespace {
/// A scalar operand of fma as a tile of `like`'s type (null when `like` is
/// poisoned or the scalar does not fit).
Value fmaSplat(const ScalarArg &s, const TileArg &like) {
  if (like.tile.poisoned())
    return {};
  auto type = cast<RankedTensorType>(val(like.tile).getType());
  Value v = scalarValue(s, type.getElementType(), "'fma'");
  return v ? splatTo(v, type, like.loc) : Value();
}
} // namespace

Tile fma(const TileArg &a, const ScalarArg &b, const TileArg &c) {
  Value bv = fmaSplat(b, a);
  if (!bv || c.tile.poisoned())
    return Tile();
  return tileOf(fmaValues(val(a.tile), bv, val(c.tile), a.loc));
}

Tile fma(const TileArg &a, const TileArg &b, const ScalarArg &c) {
  Value cv = fmaSplat(c, a);
  if (!cv || b.tile.poisoned())
    return Tile();
  return tileOf(fmaValues(val(a.tile), val(b.tile), cv, a.loc));
}

Scalar fma(const ScalarArg &a, const ScalarArg &b, const ScalarArg &c) {
  // The first traced operand decides the type the numbers take.
  const ScalarArg *typed = &a;
  for (const ScalarArg *s : {&a, &b, &c})
    if (s->kind == ScalarArg::Traced) {
      typed = s;
      break;
    }
  Type type = naturalType(*typed);
  if (!type)
    return Scalar();
  Value x = scalarValue(a, type, "'fma'"), y = scalarValue(b, type, "'fma'"),
        z = scalarValue(c, type, "'fma'");
  if (!x || !y || !z)
    return Scalar();
  return scalarOf(fmaValues(x, y, z, a.loc));
}

Scalar where(const ScalarArg &cond, const ScalarArg &a, const ScalarArg &b) {
  Type type = a.kind == ScalarArg::Traced ? naturalType(a) : naturalType(b);
  Value c = scalarValue(cond, builder().getI1Type(), "where()");
  if (!type || !c)
    return Scalar();
  Value x = scalarValue(a, type, "where()"),
        y = scalarValue(b, type, "where()");
  if (!x || !y)
    return Scalar();
  return scalarOf(emitSelect(c, x, y, cond.loc));
}

namespace {
Value emitCast(Value x, DType to, const Loc &loc) {
  Tracer &t = tracer();
  Type toElement = toMlirType(ctx(), to);
  Type from = getElementTypeOrSelf(x.getType());
  if (from == toElement)
    return x;
  Type resultType = toElement;
  if (auto tensor = dyn_cast<RankedTensorType>(x.getType()))
    resultType = tensor.clone(toElement);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(toElement);
  if (fromFloat && toFloat) {
    if (from.getIntOrFloatBitWidth() < toElement.getIntOrFloatBitWidth())
      return result(t.create<arith::ExtFOp>(loc, resultType, x));
    if (from.getIntOrFloatBitWidth() > toElement.getIntOrFloatBitWidth())
      return result(t.create<arith::TruncFOp>(loc, resultType, x));
    // bf16 <-> f16: through f32, both steps exact or rounded once.
    Type f32 = builder().getF32Type();
    Type mid = f32;
    if (auto tensor = dyn_cast<RankedTensorType>(x.getType()))
      mid = tensor.clone(f32);
    Value wide = result(t.create<arith::ExtFOp>(loc, mid, x));
    return wide ? result(t.create<arith::TruncFOp>(loc, resultType, wide))
                : Value();
  }
  if (!fromFloat && toFloat) {
    if (from.isSignlessInteger(1))
      return result(t.create<arith::UIToFPOp>(loc, resultType, x));
    return result(t.create<arith::SIToFPOp>(loc, resultType, x));
  }
  // To a boolean: C++'s conversion, x != 0 (NaN true), not the low bit.
  if (toElement.isSignlessInteger(1)) {
    Value zero = result(t.create<arith::ConstantOp>(
        loc, llvm::cast<TypedAttr>(builder().getZeroAttr(x.getType()))));
    if (!zero)
      return {};
    if (fromFloat)
      return result(
          t.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x, zero));
    return result(
        t.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x, zero));
  }
  if (fromFloat && !toFloat)
    return result(t.create<arith::FPToSIOp>(loc, resultType, x));
  if (from.getIntOrFloatBitWidth() < toElement.getIntOrFloatBitWidth()) {
    if (from.isSignlessInteger(1))
      return result(t.create<arith::ExtUIOp>(loc, resultType, x));
    return result(t.create<arith::ExtSIOp>(loc, resultType, x));
  }
  return result(t.create<arith::TruncIOp>(loc, resultType, x));
}
} // namespace

Tile cast(const Tile &x, DType to, Loc loc) {
  return x.poisoned() ? Tile() : tileOf(emitCast(val(x), to, loc));
}
Scalar cast(const Scalar &x, DType to, Loc loc) {
  return x.poisoned() ? Scalar() : scalarOf(emitCast(val(x), to, loc));
}

Tile saturating_cast(const Tile &x, DType to, Loc loc) {
  if (x.poisoned())
    return Tile();
  Type from = getElementTypeOrSelf(val(x).getType());
  Type toElement = toMlirType(ctx(), to);
  if (!llvm::isa<FloatType>(from) ||
      !(toElement.isBF16() || toElement.isF16()) ||
      from.getIntOrFloatBitWidth() <= 16) {
    tracer().error(loc) << "saturating_cast() narrows a float tile of more "
                           "than 16 bits to bf16 or f16, not "
                        << from << " to " << toElement;
    return Tile();
  }
  // The clamp in x's type: the 16-bit type's largest finite value is exact
  // there, so rounding the clamped value gives that value, never infinity.
  double largest = APFloat::getLargest(
                       llvm::cast<FloatType>(toElement).getFloatSemantics())
                       .convertToDouble();
  return cast(minimum(maximum(x, ScalarArg(-largest, loc)),
                      ScalarArg(largest, loc)),
              to, loc);
}

Scalar item(const Tile &x, Loc loc) {
  if (x.poisoned())
    return Scalar();
  auto type = cast<RankedTensorType>(val(x).getType());
  if (type.getNumElements() != 1) {
    tracer().error(loc) << "item() takes a tile of one element, not a "
                        << shapeString(type.getShape()) << " tile";
    return Scalar();
  }
  Tile scalarTile = reshape(x, {}, loc);
  if (scalarTile.poisoned())
    return Scalar();
  return scalarOf(result(tracer().create<tensor::ExtractOp>(
      loc, val(scalarTile), ValueRange())));
}

Tile full(std::vector<int64_t> shape, const ScalarArg &value, DType dtype) {
  if (!checkShape(shape, value.loc, "full()"))
    return Tile();
  Type element = toMlirType(ctx(), dtype);
  auto type = RankedTensorType::get(shape, element);
  if (value.kind != ScalarArg::Traced) {
    TypedAttr attr;
    if (auto floatType = dyn_cast<FloatType>(element))
      attr = builder().getFloatAttr(floatType, value.kind == ScalarArg::Int
                                                   ? double(value.intValue)
                                                   : value.floatValue);
    else if (value.kind == ScalarArg::Int) {
      attr = exactInteger(value, llvm::cast<IntegerType>(element), "full()");
      if (!attr)
        return Tile();
    } else {
      tracer().error(value.loc) << "the number " << value.floatValue
                                << " cannot fill a " << element << " tile";
      return Tile();
    }
    return tileOf(
        arith::ConstantOp::create(builder(), tracer().loc(value.loc),
                                  SplatElementsAttr::get(type, attr)));
  }
  Value s = scalarValue(value, element, "full()");
  return s ? tileOf(splatTo(s, type, value.loc)) : Tile();
}

//===----------------------------------------------------------------------===//
// Grid, views and memory
//===----------------------------------------------------------------------===//

Scalar program_id(int dim, Loc loc) {
  return scalarOf(result(tracer().create<tile::ProgramIdOp>(
      loc, builder().getI64IntegerAttr(dim))));
}

Scalar num_programs(int dim, Loc loc) {
  return scalarOf(result(tracer().create<tile::NumProgramsOp>(
      loc, builder().getI64IntegerAttr(dim))));
}

Scalar dim(const Handle &view, int d, Loc loc) {
  if (view.poisoned())
    return Scalar();
  if (!isa<tile::ViewType>(val(view).getType())) {
    tracer().error(loc) << "dim() needs a view, got " << val(view).getType();
    return Scalar();
  }
  return scalarOf(result(tracer().create<tile::DimOp>(
      loc, val(view), builder().getI64IntegerAttr(d))));
}

namespace {
bool indexValues(const std::vector<ScalarArg> &index,
                 SmallVectorImpl<Value> &out) {
  for (const ScalarArg &i : index) {
    Value v = indexValue(i, "a tile index");
    if (!v)
      return false;
    out.push_back(v);
  }
  return true;
}

IntegerAttr latencyAttr(int latency) {
  return latency ? builder().getI64IntegerAttr(latency) : IntegerAttr();
}
} // namespace

Tile loadImpl(const Handle &view, ViewInfo info,
              const std::vector<ScalarArg> &index,
              const std::vector<Extent> &box, const LoadOptions &options,
              Loc loc) {
  if (view.poisoned())
    return Tile();
  if (static_cast<int>(box.size()) != info.rank) {
    tracer().error(loc) << "load() box has " << box.size()
                        << " extents for a rank-" << info.rank
                        << " view (use `drop` for dimensions the tile lacks)";
    return Tile();
  }
  SmallVector<int64_t> shape, squeeze;
  for (auto [d, e] : llvm::enumerate(box)) {
    if (e.dropped)
      squeeze.push_back(d);
    else
      shape.push_back(e.size);
  }
  if (!checkShape(shape, loc, "load() box"))
    return Tile();
  SmallVector<Value> indices;
  if (!indexValues(index, indices))
    return Tile();
  auto type = RankedTensorType::get(shape, toMlirType(ctx(), info.dtype));
  tile::Padding padding =
      options.padding == Padding::neg_inf ? tile::Padding::neg_inf
      : options.padding == Padding::nan   ? tile::Padding::nan
                                          : tile::Padding::zero;
  auto op = tracer().create<tile::LoadOp>(
      loc, type, val(view), indices, tile::PaddingAttr::get(ctx(), padding),
      latencyAttr(options.latency),
      options.allow_tma ? BoolAttr() : builder().getBoolAttr(false),
      squeeze.empty() ? DenseI64ArrayAttr()
                      : builder().getDenseI64ArrayAttr(squeeze));
  return tileOf(result(op));
}

void storeImpl(const Handle &view, ViewInfo info,
               const std::vector<ScalarArg> &index, const Tile &value,
               const StoreOptions &options, Loc loc) {
  if (view.poisoned() || value.poisoned())
    return;
  SmallVector<Value> indices;
  if (!indexValues(index, indices))
    return;
  tracer().create<tile::StoreOp>(
      loc, val(value), val(view), indices, latencyAttr(options.latency),
      options.squeeze.empty()
          ? DenseI64ArrayAttr()
          : builder().getDenseI64ArrayAttr(options.squeeze),
      options.tma ? builder().getBoolAttr(true) : BoolAttr());
}

void prefetchImpl(const Handle &view, ViewInfo info,
                  const std::vector<ScalarArg> &index,
                  const std::vector<int64_t> &box, Loc loc) {
  if (view.poisoned())
    return;
  if (static_cast<int>(box.size()) != info.rank ||
      static_cast<int>(index.size()) != info.rank) {
    tracer().error(loc) << "prefetch() takes " << info.rank
                        << " tile indices and box extents for a rank-"
                        << info.rank << " view, got " << index.size()
                        << " and " << box.size();
    return;
  }
  for (int64_t e : box)
    if (e <= 0) {
      tracer().error(loc) << "prefetch() box extents must be positive, got "
                          << e;
      return;
    }
  SmallVector<Value> indices;
  if (!indexValues(index, indices))
    return;
  tracer().create<tile::PrefetchOp>(loc, val(view), indices,
                                    builder().getDenseI64ArrayAttr(box));
}

void signalImpl(const Handle &counters, int rank,
                const std::vector<ScalarArg> &index, const ScalarArg &value,
                bool wait, bool earlyLoads, Loc loc,
                bool earlierPrograms) {
  if (counters.poisoned())
    return;
  const char *name = wait ? "wait_until()" : "signal()";
  if (static_cast<int>(index.size()) != rank) {
    tracer().error(loc) << name << " takes one element index per dimension "
                        << "of the counters' view (" << rank << "), got "
                        << index.size();
    return;
  }
  SmallVector<Value> indices;
  if (!indexValues(index, indices))
    return;
  Value amount = indexValue(value, wait ? "the expected count" : "the amount");
  if (!amount)
    return;
  if (wait)
    tracer().create<tile::WaitOp>(loc, val(counters), indices, amount,
                                  earlyLoads, earlierPrograms);
  else
    tracer().create<tile::SignalOp>(loc, val(counters), indices, amount);
}

Scalar ticketImpl(const Handle &counters, int rank,
                  const std::vector<ScalarArg> &index, Loc loc) {
  if (counters.poisoned())
    return Scalar();
  if (static_cast<int>(index.size()) != rank) {
    tracer().error(loc) << "ticket() takes one element index per dimension "
                        << "of the counters' view (" << rank << "), got "
                        << index.size();
    return Scalar();
  }
  SmallVector<Value> indices;
  if (!indexValues(index, indices))
    return Scalar();
  return scalarOf(
      result(tracer().create<tile::TicketOp>(loc, val(counters), indices)));
}

//===----------------------------------------------------------------------===//
// Tile operations
//===----------------------------------------------------------------------===//

Tile mma(const Tile &a, const Tile &b, const Tile &acc, Loc loc) {
  if (a.poisoned() || b.poisoned() || acc.poisoned())
    return Tile();
  Type element = getElementTypeOrSelf(val(a).getType());
  tile::Precision precision;
  if (element.isBF16())
    precision = tile::Precision::bf16;
  else if (element.isF16())
    precision = tile::Precision::f16;
  else if (element.isF32())
    precision = tile::Precision::tf32;
  else {
    tracer().error(loc) << "mma() operands must be bf16, f16 or f32 (tf32), "
                           "got "
                        << element;
    return Tile();
  }
  return tileOf(result(tracer().create<tile::MmaOp>(
      loc, val(acc).getType(), val(a), val(b), val(acc),
      tile::PrecisionAttr::get(ctx(), precision))));
}

Tile cumsum(const Tile &x, int64_t axis, bool reverse, Loc loc) {
  if (x.poisoned())
    return Tile();
  return tileOf(result(tracer().create<tile::CumsumOp>(
      loc, val(x).getType(), val(x), builder().getI64IntegerAttr(axis),
      builder().getBoolAttr(reverse))));
}

Tile reduce(const Tile &x, int64_t axis, Reduce kind, Loc loc) {
  if (x.poisoned())
    return Tile();
  auto type = cast<RankedTensorType>(val(x).getType());
  Type resultType = type; // placeholder: the verifier reports a bad axis
  if (axis >= 0 && axis < type.getRank()) {
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis);
    resultType = RankedTensorType::get(shape, type.getElementType());
  }
  tile::ReduceKind k = kind == Reduce::sum   ? tile::ReduceKind::sum
                       : kind == Reduce::max ? tile::ReduceKind::max
                                             : tile::ReduceKind::min;
  return tileOf(result(tracer().create<tile::ReduceOp>(
      loc, resultType, val(x), tile::ReduceKindAttr::get(ctx(), k),
      builder().getI64IntegerAttr(axis))));
}

Tile permute(const Tile &x, std::vector<int64_t> perm, Loc loc) {
  if (x.poisoned())
    return Tile();
  auto type = cast<RankedTensorType>(val(x).getType());
  Type resultType = type; // placeholder: the verifier reports a bad perm
  if (static_cast<int64_t>(perm.size()) == type.getRank() &&
      llvm::all_of(perm,
                   [&](int64_t p) { return p >= 0 && p < type.getRank(); })) {
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    resultType = RankedTensorType::get(shape, type.getElementType());
  }
  return tileOf(
      result(tracer().create<tile::PermuteOp>(loc, resultType, val(x), perm)));
}

Tile broadcast(const Tile &x, std::vector<int64_t> shape, Loc loc) {
  if (x.poisoned() || !checkShape(shape, loc, "broadcast() target"))
    return Tile();
  auto type = cast<RankedTensorType>(val(x).getType());
  return tileOf(result(tracer().create<tile::BroadcastOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), val(x))));
}

Tile reshape(const Tile &x, std::vector<int64_t> shape, Loc loc) {
  if (x.poisoned() || !checkShape(shape, loc, "reshape() target"))
    return Tile();
  auto type = cast<RankedTensorType>(val(x).getType());
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (resultType == type)
    return x;
  return tileOf(
      result(tracer().create<tile::ReshapeOp>(loc, resultType, val(x))));
}

Tile expand_dims(const Tile &x, int64_t axis, Loc loc) {
  if (x.poisoned())
    return Tile();
  std::vector<int64_t> shape = x.shape();
  if (axis < 0 || axis > static_cast<int64_t>(shape.size())) {
    tracer().error(loc) << "expand_dims() axis " << axis
                        << " is out of range for a rank-" << shape.size()
                        << " tile";
    return Tile();
  }
  shape.insert(shape.begin() + axis, 1);
  return reshape(x, shape, loc);
}

Tile iota(std::vector<int64_t> shape, int64_t axis, DType dtype, Loc loc) {
  if (!checkShape(shape, loc, "iota()"))
    return Tile();
  return tileOf(result(tracer().create<tile::IotaOp>(
      loc, RankedTensorType::get(shape, toMlirType(ctx(), dtype)),
      builder().getI64IntegerAttr(axis))));
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

namespace {
/// Checks what a region body returns against what it must return; on a
/// mismatch reports it and substitutes `fallback` so the IR stays valid.
SmallVector<Value> checkYield(const RawValues &yielded, TypeRange expected,
                              ValueRange fallback, const Loc &loc,
                              StringRef what) {
  SmallVector<Value> values;
  if (yielded.size() != expected.size()) {
    tracer().error(loc) << what << " returns " << yielded.size()
                        << " values where " << expected.size()
                        << " are expected";
    return SmallVector<Value>(fallback);
  }
  for (auto [i, raw] : llvm::enumerate(yielded)) {
    Value v = raw ? toValue(raw) : Value();
    if (!v) {
      noteNullUse(&loc);
      values.push_back(fallback[i]);
      continue;
    }
    if (v.getType() != expected[i]) {
      tracer().error(loc) << what << " returns " << v.getType()
                          << " for value #" << i << ", which is "
                          << expected[i];
      v = fallback[i];
    }
    values.push_back(v);
  }
  return values;
}
} // namespace

RawValues
forImpl(const ScalarArg &lo, const ScalarArg &hi, const ScalarArg &step,
        const RawValues &init,
        const std::function<RawValues(Scalar, const RawValues &)> &body,
        Loc loc) {
  Tracer &t = tracer();
  RawValues poison(init.size(), nullptr);
  Value l = indexValue(lo, "a loop bound"), h = indexValue(hi, "a loop bound");
  Value s = indexValue(step, "a loop step");
  SmallVector<Value> inits;
  for (const void *raw : init) {
    if (!raw) {
      noteNullUse(&loc);
      return poison;
    }
    inits.push_back(toValue(raw));
  }
  if (!l || !h || !s)
    return poison;
  // A constant step of 0 or below: the loop would never end, or (lo > hi)
  // never run; count down with an index computed from an upward loop.
  if (step.kind == ScalarArg::Int && step.intValue <= 0) {
    t.error(step.loc) << "the step of for_range() must be positive, got "
                      << step.intValue
                      << " (to count down, compute hi - 1 - i from an "
                         "upward loop)";
    return poison;
  }
  OpBuilder &b = builder();
  auto forOp = scf::ForOp::create(b, t.loc(loc), l, h, s, inits);
  Block *bodyBlock = forOp.getBody();
  if (!bodyBlock->empty() &&
      bodyBlock->back().hasTrait<OpTrait::IsTerminator>())
    bodyBlock->back().erase();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(bodyBlock);
    RawValues carried;
    for (BlockArgument arg : forOp.getRegionIterArgs())
      carried.push_back(toRaw(arg));
    RawValues yielded = body(scalarOf(forOp.getInductionVar()), carried);
    SmallVector<Value> values =
        checkYield(yielded, forOp.getResultTypes(), forOp.getRegionIterArgs(),
                   loc, "the loop body");
    scf::YieldOp::create(b, t.loc(loc), values);
  }
  RawValues results;
  for (Value r : forOp.getResults())
    results.push_back(toRaw(r));
  return results;
}

RawValues ifImpl(const ScalarArg &cond, const std::function<RawValues()> &then,
                 const std::function<RawValues()> *otherwise, Loc loc) {
  Tracer &t = tracer();
  OpBuilder &b = builder();
  Value c = cond.kind == ScalarArg::Traced
                ? (cond.scalar.poisoned() ? Value() : val(cond.scalar))
                : scalarValue(cond, b.getI1Type(), "if_()");
  if (!c)
    return {};
  if (!c.getType().isSignlessInteger(1)) {
    t.error(loc) << "the condition of if_() must be boolean (i1), got "
                 << c.getType();
    return {};
  }
  // Trace both branches into a result-less scf.if first: the result types are
  // known only once the branches ran.
  auto ifOp = scf::IfOp::create(b, t.loc(loc), TypeRange(), c,
                                /*withElseRegion=*/otherwise != nullptr);
  auto traceBranch = [&](Region &region, const std::function<RawValues()> &fn) {
    Block &block = region.front();
    if (!block.empty())
      block.back().erase();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&block);
    return fn();
  };
  RawValues thenValues = traceBranch(ifOp.getThenRegion(), then);
  RawValues elseValues;
  if (otherwise)
    elseValues = traceBranch(ifOp.getElseRegion(), *otherwise);
  SmallVector<Type> types;
  bool ok = true;
  for (const void *raw : thenValues) {
    if (!raw) {
      ok = false;
      break;
    }
    types.push_back(toValue(raw).getType());
  }
  auto finish = [&](Region &region, const RawValues &values) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&region.front());
    SmallVector<Value> vs;
    if (ok)
      for (const void *raw : values)
        vs.push_back(toValue(raw));
    scf::YieldOp::create(b, t.loc(loc), vs);
  };
  if (ok && otherwise) {
    if (elseValues.size() != thenValues.size()) {
      t.error(loc) << "the branches of if_() return " << thenValues.size()
                   << " and " << elseValues.size() << " values";
      ok = false;
    }
    for (size_t i = 0; ok && i < elseValues.size(); ++i) {
      if (!elseValues[i]) {
        ok = false;
      } else if (toValue(elseValues[i]).getType() != types[i]) {
        t.error(loc) << "the branches of if_() return " << types[i] << " and "
                     << toValue(elseValues[i]).getType() << " for value #" << i;
        ok = false;
      }
    }
  }
  if (!otherwise && !thenValues.empty()) {
    t.error(loc) << "if_() without an else branch cannot return values";
    ok = false;
  }
  finish(ifOp.getThenRegion(), thenValues);
  if (otherwise)
    finish(ifOp.getElseRegion(), elseValues);
  if (!ok) {
    // Keep the IR valid: drop the yielded values (the trace already failed).
    RawValues poison(thenValues.size(), nullptr);
    return poison;
  }
  if (types.empty())
    return {};
  auto typed = scf::IfOp::create(b, t.loc(loc), types, c,
                                 /*withElseRegion=*/true);
  typed.getThenRegion().takeBody(ifOp.getThenRegion());
  typed.getElseRegion().takeBody(ifOp.getElseRegion());
  ifOp->erase();
  RawValues results;
  for (Value r : typed.getResults())
    results.push_back(toRaw(r));
  return results;
}

namespace {
RawValues rawOf(const std::vector<Tile> &tiles) {
  RawValues raw;
  for (const Tile &t : tiles)
    raw.push_back(t.raw());
  return raw;
}
std::vector<Tile> tilesOf(const RawValues &raw) {
  std::vector<Tile> tiles;
  for (const void *v : raw)
    tiles.emplace_back(v);
  return tiles;
}
} // namespace

std::vector<Tile> for_range(
    Range range, const std::vector<Tile> &init,
    const std::function<std::vector<Tile>(Scalar, const std::vector<Tile> &)>
        &body,
    Loc loc) {
  return tilesOf(forImpl(
      range.lo, range.hi, range.step, rawOf(init),
      [&](Scalar i, const RawValues &c) { return rawOf(body(i, tilesOf(c))); },
      loc));
}

std::vector<Tile> if_(const ScalarArg &cond,
                      const std::function<std::vector<Tile>()> &then,
                      const std::function<std::vector<Tile>()> &otherwise,
                      Loc loc) {
  std::function<RawValues()> t = [&] { return rawOf(then()); };
  std::function<RawValues()> e = [&] { return rawOf(otherwise()); };
  return tilesOf(ifImpl(cond, t, &e, loc));
}

} // namespace dsl
} // namespace tessel
