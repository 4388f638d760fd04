//===- DslDiagnosticsTest.cpp - DSL errors name the C++ call site ---------===//
//
// Each kernel below contains one mistake; tracing must fail with a diagnostic
// that names this file and the line of the offending call, never crash.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

using namespace tessel;
using namespace tessel::dsl;
using tessel::test::trace;

namespace {

mlir::MLIRContext &context() {
  static mlir::MLIRContext ctx;
  return ctx;
}

/// `file:line:` of this file at `line`.
std::string at(int line) {
  return std::string(__FILE__) + ":" + std::to_string(line) + ":";
}

int mmaLine = 0;
void badMma(const Config &, View<bf16, 2> x, View<float, 2> y) {
  Tile a = load(x, {0, 0}, {64, 32});
  Tile b = load(x, {0, 0}, {16, 64});
  mmaLine = __LINE__ + 1;
  Tile c = mma(a, b, zeros({64, 64}));
  store(y, {0, 0}, c);
}

TEST(DslDiagnostics, MmaShapeErrorNamesCallSiteAndShapes) {
  auto t = trace(context(), badMma, {"x", "y"});
  ASSERT_FALSE(t.module) << "tracing should have failed";
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(mmaLine)), std::string::npos) << d;
  EXPECT_NE(d.find("64x32"), std::string::npos) << d;
  EXPECT_NE(d.find("16x64"), std::string::npos) << d;
  EXPECT_NE(d.find("'tile.mma'"), std::string::npos) << d;
}

int satLine = 0, logLine = 0;
// saturating_cast from a 16-bit tile (nothing to saturate: it narrows f32
// or f64 only), then fast_log2 of a bf16 tile (f32 only).
void badSaturatingCast(const Config &, View<bf16, 2> x, View<f16, 2> y) {
  Tile a = load(x, {0, 0}, {16, 16});
  satLine = __LINE__ + 1;
  store(y, {0, 0}, saturating_cast<f16>(a));
}
void badFastLog2(const Config &, View<bf16, 2> x, View<bf16, 2> y) {
  Tile a = load(x, {0, 0}, {16, 16});
  logLine = __LINE__ + 1;
  store(y, {0, 0}, fast_log2(a));
}

TEST(DslDiagnostics, SaturatingCastAndFastLog2Types) {
  auto t = trace(context(), badSaturatingCast, {"x", "y"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(satLine)), std::string::npos) << d;
  EXPECT_NE(d.find("saturating_cast() narrows a float tile of more than 16 "
                   "bits to bf16 or f16, not 'bf16' to 'f16'"),
            std::string::npos)
      << d;
  auto u = trace(context(), badFastLog2, {"x", "y"});
  ASSERT_FALSE(u.module);
  d = u.allDiagnostics();
  EXPECT_NE(d.find(at(logLine)), std::string::npos) << d;
  EXPECT_NE(d.find("fast_log2() takes f32"), std::string::npos) << d;
}

int addLine = 0;
void badAdd(const Config &, View<float, 2> x, View<float, 2> y) {
  Tile a = load(x, {0, 0}, {64, 32});
  Tile b = load(x, {0, 0}, {16, 64});
  addLine = __LINE__ + 1;
  Tile c = a + b;
  store(y, {0, 0}, c * 2.0f); // uses a poisoned tile: no second error
}

TEST(DslDiagnostics, BroadcastErrorInOperator) {
  auto t = trace(context(), badAdd, {"x", "y"});
  ASSERT_FALSE(t.module);
  ASSERT_EQ(t.diagnostics.size(), 1u) << t.allDiagnostics();
  std::string d = t.diagnostics[0];
  EXPECT_NE(d.find(at(addLine)), std::string::npos) << d;
  EXPECT_NE(d.find("64x32 and 16x64"), std::string::npos) << d;
}

int typeLine = 0;
void badTypes(const Config &, View<bf16, 2> x, View<float, 2> y) {
  Tile a = load(x, {0, 0}, {16, 16});
  Tile b = load(y, {0, 0}, {16, 16});
  typeLine = __LINE__ + 1;
  store(y, {0, 0}, a * b);
}

TEST(DslDiagnostics, ElementTypeMismatch) {
  auto t = trace(context(), badTypes, {"x", "y"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(typeLine)), std::string::npos) << d;
  EXPECT_NE(d.find("'bf16' and 'f32'"), std::string::npos) << d;
}

int fmaTypeLine = 0, fmaShapeLine = 0, fmaIntLine = 0, fmaScalarLine = 0;
void badFmas(const Config &, View<bf16, 2> x, View<float, 2> y,
             View<int32_t, 2> z, F32 s) {
  Tile a = load(x, {0, 0}, {16, 16});
  Tile b = load(y, {0, 0}, {16, 16});
  Tile c = load(y, {0, 0}, {16, 8});
  Tile i = load(z, {0, 0}, {16, 16});
  fmaTypeLine = __LINE__ + 1;
  Tile e = fma(b, b, a);
  fmaShapeLine = __LINE__ + 1;
  Tile f = fma(b, c, b);
  fmaIntLine = __LINE__ + 1;
  Tile g = fma(i, i, 1);
  fmaScalarLine = __LINE__ + 1;
  Tile h = fma(a, s, a);
  (void)e, (void)f, (void)g, (void)h;
}

TEST(DslDiagnostics, FmaOperandsAreReportedAtTheirLine) {
  auto t = trace(context(), badFmas, {"x", "y", "z", "s"});
  ASSERT_FALSE(t.module);
  ASSERT_EQ(t.diagnostics.size(), 4u) << t.allDiagnostics();
  const std::pair<int, const char *> expected[] = {
      {fmaTypeLine, "'f32' and 'bf16'"},
      {fmaShapeLine, "16x16, 16x8 and 16x16"},
      {fmaIntLine, "floating-point"},
      {fmaScalarLine, "cast()"}};
  for (size_t k = 0; k < 4; ++k) {
    const std::string &d = t.diagnostics[k];
    EXPECT_NE(d.find(at(expected[k].first)), std::string::npos) << d;
    EXPECT_NE(d.find(expected[k].second), std::string::npos) << d;
  }
}

int prefetchRankLine = 0, prefetchBoxLine = 0;
void badPrefetches(const Config &, View<float, 2> x) {
  prefetchRankLine = __LINE__ + 1;
  prefetch(x, {0, 0}, {64});
  prefetchBoxLine = __LINE__ + 1;
  prefetch(x, {0, 0}, {64, 0});
}

TEST(DslDiagnostics, PrefetchBoxesAreReportedAtTheirLine) {
  auto t = trace(context(), badPrefetches, {"x"});
  ASSERT_FALSE(t.module);
  ASSERT_EQ(t.diagnostics.size(), 2u) << t.allDiagnostics();
  EXPECT_NE(t.diagnostics[0].find(at(prefetchRankLine)), std::string::npos)
      << t.diagnostics[0];
  EXPECT_NE(t.diagnostics[0].find("2 tile indices and box extents"),
            std::string::npos)
      << t.diagnostics[0];
  EXPECT_NE(t.diagnostics[1].find(at(prefetchBoxLine)), std::string::npos)
      << t.diagnostics[1];
  EXPECT_NE(t.diagnostics[1].find("must be positive, got 0"),
            std::string::npos)
      << t.diagnostics[1];
}

int boxLine = 0, pidLine = 0, latencyLine = 0, storeLine = 0, axisLine = 0,
    permLine = 0, constLine = 0, scalarLine = 0, powLine = 0;
void manyErrors(const Config &cfg, View<float, 3> x, View<float, 2> y, F32 s) {
  boxLine = __LINE__ + 1;
  Tile a = load(x, {0, 0, 0}, {16, 16});
  pidLine = __LINE__ + 1;
  Scalar p = program_id(3);
  latencyLine = __LINE__ + 1;
  Tile b = load(y, {0, 0}, {16, 16}, {.latency = 11});
  Tile c = load(y, {0, 0}, {16, 16});
  storeLine = __LINE__ + 1;
  store(x, {0, 0, 0}, c);
  axisLine = __LINE__ + 1;
  Tile d = cumsum(c, 2);
  permLine = __LINE__ + 1;
  Tile e = permute(c, {0, 0});
  constLine = __LINE__ + 1;
  int64_t missing = cfg["NOT_THERE"];
  scalarLine = __LINE__ + 1;
  Tile f = c + cast(s, DType::f64);
  powLine = __LINE__ + 1;
  Tile g = load(y, {0, 0}, {16, 12});
  (void)a, (void)p, (void)b, (void)d, (void)e, (void)missing, (void)f, (void)g;
}

TEST(DslDiagnostics, EveryErrorIsReportedAtItsLine) {
  auto t = trace(context(), manyErrors, {"x", "y", "s"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  struct Expect {
    int line;
    const char *text;
  } expects[] = {
      {boxLine, "box has 2 extents for a rank-3 view"},
      {pidLine, "'dim'"},
      {latencyLine, "'latency'"},
      {storeLine, "tile rank 2 differs from view rank 3"},
      {axisLine, "axis 2 is out of range for a rank-2 tile"},
      {permLine, "is not a permutation"},
      {constLine, "no compile-time constant 'NOT_THERE'"},
      {scalarLine, "a 'f64' scalar is used with a 'f32' operand"},
      {powLine, "powers of two"},
  };
  for (const Expect &e : expects) {
    bool found = false;
    for (const std::string &diag : t.diagnostics)
      found |= diag.find(at(e.line)) != std::string::npos &&
               diag.find(e.text) != std::string::npos;
    EXPECT_TRUE(found) << "no diagnostic at line " << e.line << " containing '"
                       << e.text << "' in:\n"
                       << d;
  }
}

int loopLine = 0;
void badLoop(const Config &, View<float, 2> y) {
  loopLine = __LINE__ + 1;
  Tile acc = for_range({0, 4}, zeros({16, 16}),
                       [&](Scalar, Tile acc) { return reshape(acc, {256}); });
  store(y, {0, 0}, acc);
}

TEST(DslDiagnostics, LoopCarriedTypeMismatch) {
  auto t = trace(context(), badLoop, {"y"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(loopLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the loop body returns"), std::string::npos) << d;
}

int ifLine = 0;
void badIf(const Config &, View<float, 2> y) {
  Tile a = zeros({16, 16});
  ifLine = __LINE__ + 1;
  Tile r = if_(
      program_id(0) == 0, [&] { return a; },
      [&] {
        return zeros({16, 32});
      });
  store(y, {0, 0}, r);
}

TEST(DslDiagnostics, IfBranchesDisagree) {
  auto t = trace(context(), badIf, {"y"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(ifLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the branches of if_() return"), std::string::npos) << d;
}

// Lists of tiles: a loop body returning fewer than it carries, branches
// returning lists of different lengths.
int tilesLoopLine = 0, tilesIfLine = 0;
void badTileLists(const Config &, View<float, 2> y) {
  std::vector<Tile> init = {zeros({16, 16}), zeros({16, 16})};
  tilesLoopLine = __LINE__ + 2; // for_range's line
  std::vector<Tile> acc =
      for_range({0, 4}, init, [&](Scalar, const std::vector<Tile> &a) {
        return std::vector<Tile>{a[0] + a[1]};
      });
  tilesIfLine = __LINE__ + 1;
  std::vector<Tile> r = if_(
      program_id(0) == 0, [&] { return init; },
      [&] { return std::vector<Tile>{init[0]}; });
  store(y, {0, 0}, r[0]);
}

TEST(DslDiagnostics, TileListsAreCheckedAtTheirLine) {
  auto t = trace(context(), badTileLists, {"y"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(tilesLoopLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the loop body returns 1 values where 2 are expected"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find(at(tilesIfLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the branches of if_() return 2 and 1 values"),
            std::string::npos)
      << d;
}

int itemLine = 0;
// item() of a tile of more than one element.
void badItem(const Config &, View<float, 2> x, View<float, 2> y) {
  Tile a = load(x, {0, 0}, {1, 2});
  itemLine = __LINE__ + 1;
  Scalar s = item(a);
  store(y, {0, 0}, full({1, 2}, s, DType::f32));
}

TEST(DslDiagnostics, ItemOfATileOfSeveralElements) {
  auto t = trace(context(), badItem, {"x", "y"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(itemLine)), std::string::npos) << d;
  EXPECT_NE(d.find("item() takes a tile of one element, not a 1x2 tile"),
            std::string::npos)
      << d;
}

void good(const Config &cfg, View<float, 2> x, View<float, 2> y) {
  auto i = program_id(0);
  Tile t = load(x, {i, 0}, {cfg["BM"], 16});
  store(y, {i, 0}, exp2(t) + 1);
}

TEST(DslDiagnostics, ValidKernelTracesWithLocations) {
  auto t = trace(context(), good, {"x", "y"}, Config({{"BM", 32}}));
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  std::string ir;
  llvm::raw_string_ostream os(ir);
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo();
  t.module->print(os, flags);
  EXPECT_NE(ir.find("tensor<32x16xf32>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("DslDiagnosticsTest.cpp"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tile.name = \"x\""), std::string::npos) << ir;
}

// A default-constructed handle used as a value: the ops using it were left
// out without a word (a kernel without its loop and store).
int uninitLoopLine = 0, uninitStoreLine = 0;
void uninitialisedAccumulator(const Config &, View<float, 2> y) {
  Tile acc; // forgot zeros()
  uninitLoopLine = __LINE__ + 1;
  acc = for_range({0, 4}, acc, [&](Scalar, Tile a) { return a + 1.0f; });
  store(y, {0, 0}, acc);
}
void uninitialisedStore(const Config &, View<float, 2> y) {
  Tile t;
  Tile u = zeros({16, 16});
  uninitStoreLine = __LINE__ + 1;
  store(y, {0, 0}, t);
  store(y, {0, 0}, u);
}

TEST(DslDiagnostics, UninitialisedHandlesAreReported) {
  auto t = trace(context(), uninitialisedAccumulator, {"y"});
  ASSERT_FALSE(t.module) << "tracing should have failed";
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(uninitLoopLine)), std::string::npos) << d;
  EXPECT_NE(d.find("without a value is used here"), std::string::npos) << d;
  // Reported once.
  EXPECT_EQ(d.find("without a value", d.find("without a value") + 1),
            std::string::npos)
      << d;
  auto s = trace(context(), uninitialisedStore, {"y"});
  ASSERT_FALSE(s.module) << "tracing should have failed";
  d = s.allDiagnostics();
  EXPECT_NE(d.find("without a value is used at or just after this call"),
            std::string::npos)
      << d;
}

// Numbers that do not fit their operand's type were cut to its low bits: 32
// as a condition was false, 2^32 compared with an i32 tile was 0.
int boolLine = 0, wideLine = 0, byteLine = 0, stepLine = 0;
void numberAsCondition(const Config &, View<float, 1> y) {
  boolLine = __LINE__ + 2; // the number's line
  Tile r = if_(
      32, [&] { return zeros({16}); },
      [&] { return full({16}, 1.0f, DType::f32); });
  store(y, {0}, r);
}
void wideNumber(const Config &, View<float, 1> y) {
  wideLine = __LINE__ + 1;
  Tile m = iota({16}, 0) < (int64_t(1) << 32);
  store(y, {0}, cast<float>(m));
}
void byteFill(const Config &, View<float, 1> y) {
  Tile ok = full({16}, 200, DType::i8); // the unsigned range is taken as is
  byteLine = __LINE__ + 1;
  Tile bad = full({16}, 300, DType::i8);
  store(y, {0}, cast<float>(ok) + cast<float>(bad));
}
void downwardLoop(const Config &, View<float, 1> y) {
  stepLine = __LINE__ + 1;
  Tile r = for_range({15, -1, -1}, zeros({16}),
                     [&](Scalar, Tile a) { return a + 1.0f; });
  store(y, {0}, r);
}

TEST(DslDiagnostics, NumbersMustFitTheirOperand) {
  auto a = trace(context(), numberAsCondition, {"y"});
  ASSERT_FALSE(a.module);
  std::string d = a.allDiagnostics();
  EXPECT_NE(d.find(at(boolLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the number 32 does not fit the 'i1' operand in if_() (a "
                   "boolean: 0 or 1)"),
            std::string::npos)
      << d;
  auto b = trace(context(), wideNumber, {"y"});
  ASSERT_FALSE(b.module);
  d = b.allDiagnostics();
  EXPECT_NE(d.find(at(wideLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the number 4294967296 does not fit the 'i32' operand"),
            std::string::npos)
      << d;
  auto c = trace(context(), byteFill, {"y"});
  ASSERT_FALSE(c.module);
  d = c.allDiagnostics();
  EXPECT_NE(d.find(at(byteLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the number 300 does not fit the 'i8' operand in full()"),
            std::string::npos)
      << d;
  EXPECT_EQ(d.find("the number 200"), std::string::npos) << d;
  auto e = trace(context(), downwardLoop, {"y"});
  ASSERT_FALSE(e.module);
  d = e.allDiagnostics();
  EXPECT_NE(d.find(at(stepLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the step of for_range() must be positive, got -1"),
            std::string::npos)
      << d;
}

// The registry as a whole: the kernels registered in this binary have no
// problems; a second kernel of one name, one without a build function, and
// constants declared twice, without values or with a default outside them
// are each said at their registration.
TEST(DslRegistry, ProblemsAreSaidAtTheirRegistration) {
  EXPECT_EQ(registryProblems(), std::vector<std::string>{});
  KernelDef a{.name = "k",
              .params = {tunable("B", {1, 2}, 1)},
              .build = [](const Config &) {}};
  KernelDef b{.name = "k",
              .params = {tunable("B", {1, 2}, 3), tunable("B", {4}, 4),
                         tunable("C", {}, 0)}};
  const Loc first = Loc::current(), second = Loc::current();
  std::vector<std::string> p = kernelProblems({&a, &b}, {first, second});
  const std::string at2 =
      std::string(__FILE__) + ":" + std::to_string(second.line()) + ": error: ";
  ASSERT_EQ(p.size(), 5u) << ::testing::PrintToString(p);
  EXPECT_EQ(p[0], at2 + "kernel 'k' is registered again (first at " +
                      std::string(__FILE__) + ":" +
                      std::to_string(first.line()) + ")");
  EXPECT_EQ(p[1], at2 + "kernel 'k' has no build function");
  EXPECT_EQ(p[2], at2 + "kernel 'k': the default 3 of the constant 'B' is "
                        "not one of its values");
  EXPECT_EQ(p[3], at2 + "kernel 'k' declares the constant 'B' twice");
  EXPECT_EQ(p[4], at2 + "kernel 'k': the constant 'C' has no values");
  EXPECT_EQ(kernelProblems({&a}, {first}), std::vector<std::string>{});
}

// A tile made in a loop body and used after the loop (assigned to a
// variable outside instead of carried): the verifier's error at the use,
// without the empty error at the DSL's own source that came with it.
int escapeLine = 0;
void tileEscapesLoop(const Config &, View<float, 1> y) {
  Tile acc = zeros({16});
  for_range({0, 4}, [&](Scalar) { acc = acc + 1.0f; });
  escapeLine = __LINE__ + 1;
  store(y, {0}, acc);
}

TEST(DslDiagnostics, ATileUsedOutsideItsLoopIsReportedAtTheUse) {
  auto t = trace(context(), tileEscapesLoop, {"y"});
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(escapeLine)), std::string::npos) << d;
  EXPECT_NE(d.find("does not dominate"), std::string::npos) << d;
  EXPECT_EQ(d.find("Tracer.cpp"), std::string::npos) << d;
}

// A constant read as a dtype that is not one (Q = 64 became DType(64),
// compiled as f32).
int dtypeLine = 0;
void notADtype(const Config &cfg, View<float, 1> y) {
  dtypeLine = __LINE__ + 1;
  DType d = cfg.dtype("Q");
  store(y, {0}, cast<float>(zeros({16}, d)));
}

TEST(DslDiagnostics, AConstantThatIsNotADtype) {
  auto t = trace(context(), notADtype, {"y"},
                 Config(std::map<std::string, int64_t>{{"Q", 64}}));
  ASSERT_FALSE(t.module);
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(dtypeLine)), std::string::npos) << d;
  EXPECT_NE(d.find("the constant 'Q' is 64, which is not a dtype"),
            std::string::npos)
      << d;
}

} // namespace

// countConfigs walks only the constants the check reads (learnt as it goes,
// here one read only on some paths) and must agree with the full list.
TEST(DslRegistry, CountsConfigurationsAsTheFullListDoes) {
  KernelDef def;
  def.name = "count_me";
  def.params = {tunable("A", {1, 2, 3}, 1), tunable("B", {4, 8}, 4),
                variant("C", {0, 1, 2, 3}, 0), tunable("D", {5, 6, 7}, 5),
                tunable("E", {0, 1}, 0)};
  def.check = [](const Config &cfg) -> std::string {
    if (cfg.get("A") == 1)
      return "";
    // Read only past A = 1: found on the way.
    if (cfg.get("C") > cfg.get("A"))
      return "C above A";
    return cfg.get("D") == 7 && cfg.get("A") == 3 ? "D = 7 with A = 3" : "";
  };
  EXPECT_EQ(countConfigs(def), enumerateConfigs(def).size());
  EXPECT_EQ(countConfigs(def), size_t(116));
  def.check = nullptr;
  EXPECT_EQ(countConfigs(def), size_t(3 * 2 * 4 * 3 * 2));
}

// Defaults that depend on the variant (KernelDef::variantDefaults) apply
// to the tunables a caller does not assign, after the variant is known.
TEST(DslRegistry, VariantDefaultsApplyToTheTunablesNotAssigned) {
  KernelDef def;
  def.name = "by_variant";
  def.params = {variant("Q", {64, 256}, 256), tunable("BM", {32, 64, 128}, 64),
                tunable("W", {4, 8}, 4)};
  def.variantDefaults = [](const Config &cfg) {
    return cfg.get("Q") >= 256 ? std::map<std::string, int64_t>{{"BM", 128}}
                               : std::map<std::string, int64_t>{};
  };
  auto values = [](const Config &c) {
    return std::make_tuple(c.get("Q"), c.get("BM"), c.get("W"));
  };
  EXPECT_EQ(values(defaultConfig(def)), std::make_tuple(256, 128, 4));
  EXPECT_EQ(values(defaultConfig(def, {{"Q", 64}})),
            std::make_tuple(64, 64, 4));
  EXPECT_EQ(values(defaultConfig(def, {{"Q", 256}, {"BM", 32}})),
            std::make_tuple(256, 32, 4));
  EXPECT_EQ(values(defaultConfig(def, {{"W", 8}})),
            std::make_tuple(256, 128, 8));
  // Each variant is judged at its own defaults: Q = 64 is not dropped for
  // the 128 of Q = 256's.
  def.check = [](const Config &cfg) -> std::string {
    return cfg.get("Q") % cfg.get("BM") ? "BM must divide Q" : "";
  };
  std::vector<Config> variants = variantConfigs(def);
  ASSERT_EQ(variants.size(), size_t(2));
  EXPECT_EQ(values(variants[0]), std::make_tuple(64, 64, 4));
  EXPECT_EQ(values(variants[1]), std::make_tuple(256, 128, 4));
  // -D W=8 kept in every variant; -D BM=128 leaves Q = 64 out.
  variants = variantConfigs(def, {{"W", 8}});
  ASSERT_EQ(variants.size(), size_t(2));
  EXPECT_EQ(values(variants[0]), std::make_tuple(64, 64, 8));
  variants = variantConfigs(def, {{"BM", 128}});
  ASSERT_EQ(variants.size(), size_t(1));
  EXPECT_EQ(values(variants[0]), std::make_tuple(256, 128, 4));
  def.variantDefaults = nullptr;
  EXPECT_EQ(values(defaultConfig(def)), std::make_tuple(256, 64, 4));
}

// Every registered kernel's defaults, for every variant it accepts, are
// values its tunables allow and a configuration its check accepts (a
// variant default that names a missing tunable, takes a value outside its
// list or breaks the check fails here, not in a build).
TEST(DslRegistry, EveryVariantsDefaultsAreValid) {
  ASSERT_NE(findKernel("compute_out"), nullptr);
  for (const KernelDef *k : registeredKernels()) {
    if (k->variantDefaults)
      for (const auto &[name, value] : k->variantDefaults(defaultConfig(*k))) {
        auto p = std::find_if(k->params.begin(), k->params.end(),
                              [&](const Param &q) { return q.name == name; });
        ASSERT_NE(p, k->params.end()) << k->name << ": " << name;
        EXPECT_TRUE(p->tunable) << k->name << ": " << name;
      }
    // Every variant the check accepts at its declared defaults (what
    // tesselc compiled before variant defaults existed) is one it accepts
    // at its own defaults.
    std::vector<Config> declared =
        expandConfigs(*k, [&] {
          Config c;
          for (const Param &p : k->params)
            c.set(p.name, p.defaultValue);
          return c;
        }(), [](const Param &p) { return !p.tunable; });
    std::vector<Config> variants = variantConfigs(*k);
    EXPECT_EQ(variants.size(), declared.size()) << k->name;
    for (const Config &c : variants)
      for (const Param &p : k->params)
        EXPECT_NE(std::find(p.values.begin(), p.values.end(),
                            c.all().at(p.name)),
                  p.values.end())
            << k->name << " [" << configString(*k, c) << "]: " << p.name;
  }
  // compute_out: Q x SEGMENT x X_DTYPE x N_MAX x CB_STORED x SEQ_IDX.
  EXPECT_EQ(variantConfigs(*findKernel("compute_out")).size(), size_t(96));
  // compute_out's 128-token rows: at Q = 256 reading chunk_cb's blocks.
  const KernelDef &out = *findKernel("compute_out");
  auto blockM = [&](int64_t q, int64_t stored, int64_t seq = 0) {
    return defaultConfig(out, {{"Q", q}, {"CB_STORED", stored}, {"SEQ_IDX", seq}})
        .get("BLOCK_M");
  };
  EXPECT_EQ(blockM(256, 1), 128);
  EXPECT_EQ(blockM(256, 1, 1), 64);
  EXPECT_EQ(blockM(256, 0), 64);
  EXPECT_EQ(blockM(128, 1), 64);
  EXPECT_EQ(blockM(64, 1), 64);
}

int signalLine = 0;
void badCounters(const Config &, View<float, 1> x, View<int32_t, 2> flags) {
  Tile t = load(x, {0}, {32});
  signalLine = __LINE__ + 1;
  signal(flags, {0}, 1);
  store(x, {0}, t);
}

TEST(DslDiagnostics, SignalIndexCountIsReportedAtItsLine) {
  auto t = trace(context(), badCounters, {"x", "flags"});
  ASSERT_FALSE(t.module) << "tracing should have failed";
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(signalLine)), std::string::npos) << d;
  EXPECT_NE(d.find("one element index per dimension"), std::string::npos)
      << d;
}

int waitLine = 0;
void waitAfterLoad(const Config &, View<float, 1> x, View<int32_t, 1> flags) {
  Tile t = load(x, {0}, {32});
  waitLine = __LINE__ + 1;
  wait_until(flags, {0}, 1);
  store(x, {0}, t);
}

TEST(DslDiagnostics, WaitAfterALoadIsReportedAtItsLine) {
  auto t = trace(context(), waitAfterLoad, {"x", "flags"});
  ASSERT_FALSE(t.module) << "tracing should have failed";
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(waitLine)), std::string::npos) << d;
  EXPECT_NE(d.find("must come before every load"), std::string::npos) << d;
}

// With early_loads the same kernel traces; a store before the wait is still
// reported at the wait's line.
void waitAfterEarlyLoad(const Config &, View<float, 1> x,
                        View<int32_t, 1> flags) {
  Tile t = load(x, {0}, {32});
  wait_until(flags, {0}, 1, {.early_loads = true});
  store(x, {0}, t);
}

TEST(DslDiagnostics, WaitWithEarlyLoadsMayFollowALoad) {
  auto t = trace(context(), waitAfterEarlyLoad, {"x", "flags"});
  EXPECT_TRUE(t.module) << t.allDiagnostics();
}

void waitAfterStore(const Config &, View<float, 1> x, View<int32_t, 1> flags) {
  Tile t = load(x, {0}, {32});
  store(x, {0}, t);
  waitLine = __LINE__ + 1;
  wait_until(flags, {0}, 1, {.early_loads = true});
}

TEST(DslDiagnostics, WaitWithEarlyLoadsAfterAStoreIsReportedAtItsLine) {
  auto t = trace(context(), waitAfterStore, {"x", "flags"});
  ASSERT_FALSE(t.module) << "tracing should have failed";
  std::string d = t.allDiagnostics();
  EXPECT_NE(d.find(at(waitLine)), std::string::npos) << d;
  EXPECT_NE(d.find("early_loads lets only loads precede it"),
            std::string::npos)
      << d;
}
