//===- EmitElementwise.cpp - arith and math on tiles ----------------------===//
//
// Elementwise arith and math ops, per register: fast approximations where the
// kernel allows them, packed 16-bit arithmetic in pairs, and casts.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

namespace tessel::codegen::emitter {

using namespace mlir;

/// Whether every element of `value` is known to lie in [0, 1] (or be NaN):
/// exp(-|y|).
static bool inUnitInterval(Value value) {
  auto exp = value.getDefiningOp<math::ExpOp>();
  if (!exp)
    return false;
  auto neg = exp.getOperand().getDefiningOp<arith::NegFOp>();
  return neg && neg.getOperand().getDefiningOp<math::AbsFOp>();
}

FailureOr<Value> KernelEmitter::emitMath(Operation &op, Value x) {
  Type type = x.getType();
  if (!isa<FloatType>(type)) {
    if (isa<math::AbsIOp>(op))
      return Value(math::AbsIOp::create(b, loc, x));
    return fail(&op, "integer operand");
  }
  // bf16/f16/f64 compute in f32 (f64 loses precision: reported below).
  if (type.isF64())
    return fail(&op, "f64 transcendental functions are not supported");
  Type f32Type = b.getF32Type();
  if (!type.isF32())
    x = arith::ExtFOp::create(b, loc, f32Type, x);
  const double log2e = 1.4426950408889634;
  auto ex2 = [&](Value v) {
    return intrinsic("llvm.nvvm.ex2.approx.f32", f32Type, {v});
  };
  auto i32c = [&](int64_t v) -> Value { return i32(v); };
  auto fma = [&](Value a, Value m, Value c) -> Value {
    return math::FmaOp::create(b, loc, a, m, c);
  };
  // Divisions inside these expansions need ~1 ulp, not IEEE rounding:
  // div.approx.f32 (afn) is a few instructions where div.rn.f32 is a
  // subroutine with a slow path.
  auto fastDiv = [&](Value num, Value den) -> Value {
    return arith::DivFOp::create(b, loc, num, den, arith::FastMathFlags::afn);
  };
  auto polynomial = [&](Value x, ArrayRef<double> coeffs) -> Value {
    // Horner, highest degree first.
    Value acc = f32(coeffs.front());
    for (double c : coeffs.drop_front())
      acc = fma(acc, x, f32(c));
    return acc;
  };
  auto expf = [&](Value v) -> Value {
    // 2^(v log2 e) with ex2.approx (2 ulp); the rounding error of the
    // product, recovered exactly by an FMA, is applied to first order.
    Value p = arith::MulFOp::create(b, loc, v, f32(log2e));
    Value err = fma(v, f32(log2e), arith::NegFOp::create(b, loc, p));
    Value e = ex2(p);
    // At +-inf and on overflow the correction is NaN or would turn inf into
    // NaN: use the plain power there.
    Value c = arith::MulFOp::create(b, loc, err, f32(0.6931471805599453));
    Value cNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, c, c);
    c = arith::SelectOp::create(b, loc, cNaN, f32(0.0), c);
    Value eInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, e,
                                       f32(INFINITY));
    return arith::SelectOp::create(b, loc, eInf, e, fma(e, c, e));
  };
  // log(v) to ~1 ulp: v = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) =
  // 2 atanh(s), s = (m - 1)/(m + 1), |s| < 0.172, by its odd series.
  auto logf = [&](Value v) -> Value {
    // Subnormals: scale into the normal range first.
    Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v,
                                       f32(1.1754943508222875e-38));
    Value scaled = arith::SelectOp::create(
        b, loc, tiny, arith::MulFOp::create(b, loc, v, f32(8388608.0)), v);
    Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), scaled);
    Value e = arith::SubIOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, bits, i32c(23)), i32c(255)),
        i32c(127));
    e = arith::SubIOp::create(
        b, loc, e, arith::SelectOp::create(b, loc, tiny, i32c(23), i32c(0)));
    Value m = arith::BitcastOp::create(
        b, loc, f32Type,
        arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, bits, i32c(0x7fffff)),
            i32c(0x3f800000)));
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, m,
                                      f32(1.4142135623730951));
    m = arith::SelectOp::create(b, loc, big,
                                arith::MulFOp::create(b, loc, m, f32(0.5)), m);
    e = arith::AddIOp::create(
        b, loc, e, arith::SelectOp::create(b, loc, big, i32c(1), i32c(0)));
    Value sNum = arith::SubFOp::create(b, loc, m, f32(1.0));
    Value sDen = arith::AddFOp::create(b, loc, m, f32(1.0));
    Value sv = fastDiv(sNum, sDen);
    Value s2 = arith::MulFOp::create(b, loc, sv, sv);
    Value series =
        polynomial(s2, {2.0 / 11, 2.0 / 9, 2.0 / 7, 2.0 / 5, 2.0 / 3, 2.0});
    Value logm = arith::MulFOp::create(b, loc, series, sv);
    Value ef = arith::SIToFPOp::create(b, loc, f32Type, e);
    Value y = fma(ef, f32(0.693145751953125), logm);
    y = fma(ef, f32(1.428606765330187e-06), y);
    // log(0) = -inf, log(negative) = NaN, log(inf) = inf, log(NaN) = NaN.
    Value zero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v, f32(0.0));
    Value neg =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ULT, v, f32(0.0));
    Value inf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v,
                                      f32(INFINITY));
    y = arith::SelectOp::create(b, loc, inf, v, y);
    y = arith::SelectOp::create(b, loc, zero, f32(-INFINITY), y);
    return arith::SelectOp::create(b, loc, neg, f32(NAN), y);
  };
  Value y;
  // exp2 is the fast one: ex2.approx.ftz, a single MUFU.EX2 (results below
  // 2^-126 flush to zero; without .ftz ptxas wraps each one in a range
  // check, a halving and a squaring).
  if (isa<math::Exp2Op>(op))
    y = intrinsic("llvm.nvvm.ex2.approx.ftz.f32", f32Type, {x});
  else if (isa<math::ExpOp>(op))
    y = expf(x);
  else if (auto log2 = dyn_cast<math::Log2Op>(op);
           log2 && bitEnumContainsAll(log2.getFastmath(),
                                      arith::FastMathFlags::afn))
    // fast_log2: one MUFU.LG2 (lg2.approx.ftz.f32, about 22 bits).
    y = intrinsic("llvm.nvvm.lg2.approx.ftz.f", f32Type, {x});
  else if (isa<math::Log2Op>(op))
    y = arith::MulFOp::create(b, loc, logf(x), f32(log2e));
  else if (isa<math::LogOp>(op))
    y = logf(x);
  else if (isa<math::Log1pOp>(op)) {
    // On [-1/2, 1]: log1p(x) = 2 atanh(s), s = x / (2 + x), |s| <= 1/3, by
    // its odd series (no range reduction, no special cases). Elsewhere
    // log(u) * x / (u - 1) with u = 1 + x, exact when u == 1. A branch, not
    // both: arguments usually fall on one side. An argument known to lie in
    // [0, 1] (exp of a value <= 0, as in softplus) takes the series alone:
    // no branch, so the elements of a thread schedule together.
    auto series = [&]() -> SmallVector<Value> {
      Value sv = fastDiv(x, arith::AddFOp::create(b, loc, f32(2.0), x));
      Value s2 = arith::MulFOp::create(b, loc, sv, sv);
      Value sum = polynomial(s2, {2.0 / 13, 2.0 / 11, 2.0 / 9, 2.0 / 7,
                                  2.0 / 5, 2.0 / 3, 2.0});
      return {arith::MulFOp::create(b, loc, sum, sv)};
    };
    if (inUnitInterval(op.getOperand(0))) {
      y = series()[0];
    } else {
      Value small = arith::AndIOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                f32(-0.5)),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x,
                                f32(1.0)));
      y = ifElse(
          small, {f32Type}, series,
          [&]() -> SmallVector<Value> {
            Value u = arith::AddFOp::create(b, loc, f32(1.0), x);
            Value d = arith::SubFOp::create(b, loc, u, f32(1.0));
            // x / d is 1 when u - 1 recovers x exactly (large or infinite x,
            // where div.approx would not).
            Value exact =
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d, x);
            Value ratio =
                arith::SelectOp::create(b, loc, exact, f32(1.0), fastDiv(x, d));
            Value scaled = arith::MulFOp::create(b, loc, logf(u), ratio);
            Value same = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OEQ, d, f32(0.0));
            return {arith::SelectOp::create(b, loc, same, x, scaled)};
          })[0];
    }
  } else if (isa<math::SqrtOp>(op))
    y = LLVM::SqrtOp::create(b, loc, x);
  else if (isa<math::RsqrtOp>(op))
    y = arith::DivFOp::create(b, loc, f32(1.0),
                              LLVM::SqrtOp::create(b, loc, x));
  else if (isa<math::AbsFOp>(op))
    y = LLVM::FAbsOp::create(b, loc, x);
  else if (isa<math::TanhOp>(op)) {
    // |x| >= 0.3: sign(x) (1 - 2 / (exp(2|x|) + 1)), saturating at +-inf;
    // below, the odd Taylor series to x^11 (the subtraction would cancel).
    Value ax = LLVM::FAbsOp::create(b, loc, x);
    Value e = expf(arith::MulFOp::create(b, loc, ax, f32(2.0)));
    Value den = arith::AddFOp::create(b, loc, e, f32(1.0));
    Value big = arith::SubFOp::create(
        b, loc, f32(1.0), arith::DivFOp::create(b, loc, f32(2.0), den));
    big = LLVM::CopySignOp::create(b, loc, big, x);
    Value x2 = arith::MulFOp::create(b, loc, x, x);
    Value series = polynomial(x2, {-1382.0 / 155925, 62.0 / 2835, -17.0 / 315,
                                   2.0 / 15, -1.0 / 3, 1.0});
    Value smallY = arith::MulFOp::create(b, loc, series, x);
    Value isSmall =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, ax, f32(0.3));
    y = arith::SelectOp::create(b, loc, isSmall, smallY, big);
  } else {
    return fail(&op, "unsupported math function");
  }
  if (!type.isF32())
    y = arith::TruncFOp::create(b, loc, type, y);
  return y;
}

/// The value `v` clamps to [-largest, largest] (arith.minimumf and
/// arith.maximumf with those splat constants, in either order), or null.
static Value finiteClampSource(Value v, double largest) {
  auto constantIs = [](Value c, double want) {
    APFloat value(0.0);
    if (!matchPattern(c, m_ConstantFloat(&value))) {
      auto splat = c.getDefiningOp<tensor::SplatOp>();
      if (!splat || !matchPattern(splat.getInput(), m_ConstantFloat(&value)))
        return false;
    }
    return value.convertToDouble() == want;
  };
  // One side of the clamp: the operand `op` bounds by `bound`, or null.
  auto bounded = [&](Operation *op, double bound) -> Value {
    if (!op || op->getNumOperands() != 2)
      return {};
    for (int i : {0, 1})
      if (constantIs(op->getOperand(1 - i), bound))
        return op->getOperand(i);
    return {};
  };
  Operation *outer = v.getDefiningOp();
  if (isa_and_nonnull<arith::MinimumFOp>(outer)) {
    Value inner = bounded(outer, largest);
    return inner && isa_and_nonnull<arith::MaximumFOp>(inner.getDefiningOp())
               ? bounded(inner.getDefiningOp(), -largest)
               : Value();
  }
  if (isa_and_nonnull<arith::MaximumFOp>(outer)) {
    Value inner = bounded(outer, -largest);
    return inner && isa_and_nonnull<arith::MinimumFOp>(inner.getDefiningOp())
               ? bounded(inner.getDefiningOp(), largest)
               : Value();
  }
  return {};
}

LogicalResult KernelEmitter::emitElementwise(Operation &op) {
  Value result = op.getResult(0);
  int64_t n = numRegisters(result.getType());
  Type element = elementTypeOf(result.getType());
  SmallVector<Value> out;
  // f32 -> bf16/f16 of a select's result, two registers at a time: one
  // cvt.rn.{bf16,f16}x2.f32 per pair, after an f32 select. As plain
  // fptruncs, LLVM's instcombine sinks each cast below the select when an
  // arm is a constant (where(mask, p, 0)), and NVPTX can no longer pair
  // the conversions: a cvt, a selp.b16 and a repack per element (so was
  // compute_out's masked block before its select moved into the branches
  // of its seq_idx if_; test_masked_cast_* keep the pattern). Elsewhere the
  // fptruncs stay: NVPTX pairs them itself, next to their use (chunk_state
  // was 8% slower on the H200 with all of its conversions as these calls,
  // emitted ahead of the stores). Same rounding either way.
  // f32 -> bf16/f16 of a value clamped to the 16-bit type's finite range
  // (saturating_cast: maximumf with -largest, then minimumf with +largest,
  // in either order), two registers at a time: one cvt.rn.satfinite.
  // {bf16,f16}x2.f32 per pair of the unclamped value, which rounds to the
  // same results (the largest finite value is exact in f32: above it
  // satfinite gives it where rounding the clamped value gives it too; NaN
  // stays NaN). The clamp's minimum and maximum are then unused unless
  // something else reads them.
  // Both: one conversion intrinsic per pair of f32 registers.
  auto convertPairs = [&](StringRef name, ArrayRef<Value> in) {
    auto pair = VectorType::get({2}, element);
    for (int64_t r = 0; r < n; r += 2) {
      // cvt d, a, b puts a in the high half: element 1.
      Value v = intrinsic(name, pair, {in[r + 1], in[r]});
      for (int64_t i : {0, 1})
        out.push_back(LLVM::ExtractElementOp::create(b, loc, v, i32(i)));
    }
    regs[result] = out;
    return success();
  };
  // (Round to nearest even only: a truncf with another rounding mode takes
  // the generic path, which keeps it.)
  if (auto trunc = dyn_cast<arith::TruncFOp>(op);
      trunc && !trunc.getRoundingmodeAttr() && n % 2 == 0 &&
      (element.isBF16() || element.isF16()) &&
      elementTypeOf(trunc.getIn().getType()).isF32()) {
    double largest =
        APFloat::getLargest(cast<FloatType>(element).getFloatSemantics())
            .convertToDouble();
    if (Value unclamped = finiteClampSource(trunc.getIn(), largest);
        unclamped && regs[unclamped].size() == static_cast<size_t>(n))
      return convertPairs(element.isBF16() ? "llvm.nvvm.ff2bf16x2.rn.satfinite"
                                           : "llvm.nvvm.ff2f16x2.rn.satfinite",
                          regs[unclamped]);
    if (trunc.getIn().getDefiningOp<arith::SelectOp>() &&
        regs[trunc.getIn()].size() == static_cast<size_t>(n))
      return convertPairs(element.isBF16() ? "llvm.nvvm.ff2bf16x2.rn"
                                           : "llvm.nvvm.ff2f16x2.rn",
                          regs[trunc.getIn()]);
  }
  // 16-bit float add, sub, mul and fma two registers at a time, on <2 x
  // bf16> or <2 x f16>: NVPTX then selects the paired instruction
  // ({add,sub,mul,fma}.rn.{bf16,f16}x2), one instead of two scalar ones (or,
  // where the operands arrive as loaded 32-bit words, instead of an unpack, two
  // f32 operations and a repack). Same rounding per element either way:
  // each result is the exact one rounded to the 16-bit type. Registers 2k
  // and 2k + 1 pair up (a loaded word's halves, see unpackWords). (The
  // operands have the result's type, broadcasts already expanded: n
  // registers each.)
  auto nRegisters = [&](Value operand) {
    return regs[operand].size() == static_cast<size_t>(n);
  };
  // Likewise minimum and maximum (min.NaN / max.NaN .{bf16,f16}x2), and
  // exp2 on pairs: ex2.approx.ftz.bf16x2 / ex2.approx.f16x2, one MUFU
  // instruction per pair instead of a widening, an ex2.approx.ftz.f32 and a
  // rounding per element. That one is approximate in the 16-bit type (PTX:
  // a maximum relative error of 2^-7 for bf16, 2^-9.9 for f16, against the
  // f32 path's correctly rounded 16-bit result of a 2-ulp f32 value).
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, math::FmaOp,
          arith::MinimumFOp, arith::MaximumFOp, math::Exp2Op>(op) &&
      (element.isBF16() || element.isF16()) && n % 2 == 0 &&
      llvm::all_of(op.getOperands(), nRegisters)) {
    auto pairType = VectorType::get({2}, element);
    for (int64_t r = 0; r < n; r += 2) {
      SmallVector<Value> operands;
      for (Value operand : op.getOperands()) {
        Value v = LLVM::UndefOp::create(b, loc, pairType);
        v = LLVM::InsertElementOp::create(b, loc, v, regs[operand][r], i32(0));
        operands.push_back(LLVM::InsertElementOp::create(
            b, loc, v, regs[operand][r + 1], i32(1)));
      }
      Value pair;
      if (isa<math::Exp2Op>(op)) {
        pair = intrinsic(element.isBF16() ? "llvm.nvvm.ex2.approx.ftz.v2bf16"
                                          : "llvm.nvvm.ex2.approx.v2f16",
                         pairType, operands);
      } else {
        OperationState state(loc, op.getName());
        state.addOperands(operands);
        state.addAttributes(op.getAttrs());
        state.addTypes(pairType);
        pair = b.create(state)->getResult(0);
      }
      for (int64_t i : {0, 1})
        out.push_back(LLVM::ExtractElementOp::create(b, loc, pair, i32(i)));
    }
    regs[result] = out;
    return success();
  }
  for (int64_t r = 0; r < n; ++r) {
    SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      ArrayRef<Value> rs = regs[operand];
      operands.push_back(rs.size() == 1 ? rs[0] : rs[r]);
    }
    // (math.fma stays an op: convert-math-to-llvm makes it llvm.fma,
    // fma.rn in PTX.)
    if (op.getDialect()->getNamespace() == "math" && !isa<math::FmaOp>(op)) {
      FailureOr<Value> y = emitMath(op, operands[0]);
      if (failed(y))
        return failure();
      out.push_back(*y);
      continue;
    }
    OperationState state(loc, op.getName());
    state.addOperands(operands);
    state.addAttributes(op.getAttrs());
    state.addTypes(element);
    out.push_back(b.create(state)->getResult(0));
  }
  regs[result] = out;
  return success();
}

} // namespace tessel::codegen::emitter
