//===- OpCasesTest.cpp - the GPU op test cases, run by the interpreter ----===//
//
// The same kernels and references as the GPU tests (test/gpu), with the
// interpreter as the machine: CI checks on the CPU what the H200 checks.
// Each case runs twice: as traced, and after tile-route-mma-operands (with
// the canonicalization the pipeline runs after it), so that the pass's
// rewrites are checked against the same references.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "test/kernels/TestCases.h"

#include "passes/Match.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

using namespace tessel;
using namespace tessel::test;
using namespace tessel::testcases;

namespace {

std::string print(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// Runs a case on the interpreter, after tile-route-mma-operands when
/// `route` (setting `routed` when the pass changed the kernel); returns the
/// memory of every tensor.
std::vector<std::vector<double>> runOnInterpreter(const Case &c,
                                                  std::string &error,
                                                  bool route = false,
                                                  bool *routed = nullptr,
                                                  bool persistent = false) {
  static mlir::MLIRContext ctx;
  const dsl::KernelDef *def = dsl::findKernel(c.kernel);
  if (!def) {
    error = "no kernel " + c.kernel;
    return {};
  }
  dsl::TraceResult traced =
      dsl::traceKernel(ctx, *def, dsl::defaultConfig(*def));
  if (!traced.module) {
    error = "tracing failed";
    return {};
  }
  if (route) {
    // As the pipeline runs it: canonicalized first (then the kernel without
    // the pass is the reference text), routed, canonicalized again.
    mlir::PassManager canonicalize(&ctx);
    canonicalize.addPass(mlir::createCanonicalizerPass());
    canonicalize.addPass(mlir::createCSEPass());
    mlir::PassManager pm(&ctx);
    pm.addPass(createTileRouteMmaOperands());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    if (mlir::failed(canonicalize.run(*traced.module))) {
      error = "canonicalize failed";
      return {};
    }
    std::string before = print(*traced.module);
    if (mlir::failed(pm.run(*traced.module))) {
      error = "tile-route-mma-operands failed";
      return {};
    }
    if (routed)
      *routed = print(*traced.module) != before;
  }
  auto kernel = *traced.module->getOps<mlir::func::FuncOp>().begin();
  std::array<int64_t, 3> grid = c.grid;
  if (persistent) {
    // Every kernel made persistent (the hint added where it is not set),
    // then run on at most 3 CTAs, each walking its share of the programs.
    mlir::NamedAttrList entries;
    if (auto hints = kernel->getAttrOfType<tile::HintsAttr>(
            tile::TileDialect::getHintsAttrName()))
      entries.append(hints.getEntries().getValue());
    mlir::NamedAttrList defaults;
    if (auto d = entries.get("default"))
      defaults.append(mlir::cast<mlir::DictionaryAttr>(d).getValue());
    defaults.set("persistent", mlir::IntegerAttr::get(
                                   mlir::IntegerType::get(&ctx, 64), 1));
    entries.set("default", defaults.getDictionary(&ctx));
    kernel->setAttr(tile::TileDialect::getHintsAttrName(),
                    tile::HintsAttr::get(&ctx, entries.getDictionary(&ctx)));
    mlir::PassManager pm(&ctx);
    pm.addPass(createTileGPUPersistentGrid());
    if (mlir::failed(pm.run(*traced.module))) {
      error = "tilegpu-persistent-grid failed";
      return {};
    }
    if (!kernel->hasAttr(kPersistentAttr)) {
      error = "tilegpu-persistent-grid did not fire";
      return {};
    }
    grid = {std::min<int64_t>(3, c.grid[0] * c.grid[1] * c.grid[2]), 1, 1};
  }
  std::vector<std::vector<unsigned char>> memory;
  for (const Tensor &t : c.tensors) {
    memory.emplace_back(t.values.size() * dtypeBytes(t.dtype) + 16);
    for (size_t i = 0; i < t.values.size(); ++i)
      interp::storeElement(memory.back().data() + i * dtypeBytes(t.dtype),
                           t.dtype, t.values[i]);
  }
  std::vector<interp::Arg> args;
  for (const Arg &a : c.args) {
    if (auto *index = std::get_if<size_t>(&a)) {
      const Tensor &t = c.tensors[*index];
      args.push_back(
          interp::ViewArg{memory[*index].data(), t.dtype, t.sizes, t.strides});
    } else {
      const testcases::Scalar &s = std::get<testcases::Scalar>(a);
      if (isFloat(s.dtype))
        args.push_back(s.value);
      else
        args.push_back(static_cast<int64_t>(s.value));
    }
  }
  if (persistent)
    for (int64_t d : c.grid)
      args.push_back(d);
  error = interp::run(kernel, grid, args);
  std::vector<std::vector<double>> got;
  for (size_t k = 0; k < c.tensors.size(); ++k) {
    const Tensor &t = c.tensors[k];
    got.emplace_back(t.values.size());
    for (size_t i = 0; i < t.values.size(); ++i)
      got.back()[i] = interp::loadElement(
          memory[k].data() + i * dtypeBytes(t.dtype), t.dtype);
  }
  return got;
}

TEST(OpCases, InterpreterMatchesReferences) {
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  std::vector<Case> cases = opCases(rng);
  const dsl::KernelDef *chunkCumsum = dsl::findKernel("chunk_cumsum");
  ASSERT_NE(chunkCumsum, nullptr);
  cases.push_back(chunkCumsumCase(
      rng, 2, 700, 37, dsl::defaultConfig(*chunkCumsum).all().at("BLOCK_H")));
  std::vector<std::string> routedKernels;
  for (const Case &c : cases) {
    if (!c.launchError.empty())
      continue; // a launch the runtime refuses (the interpreter has none)
    for (bool route : {false, true}) {
      std::string error;
      bool routed = false;
      auto got = runOnInterpreter(c, error, route, &routed);
      ASSERT_EQ(error, "") << c.label;
      if (route && !routed)
        continue; // the same kernel (canonicalized) as the run before
      if (routed)
        routedKernels.push_back(c.kernel);
      double e;
      EXPECT_EQ(check(c, got, &e), "")
          << c.label << (routed ? " (routed)" : "") << " (seed " << seed
          << ")";
      std::printf("  %-70s rel L2 %.2e%s\n", c.label.c_str(), e,
                  routed ? " (routed)" : "");
    }
  }
  // The transposed chain is the case the pass must rewrite; the kernels
  // written with the computed operand in A already must stay as they are.
  EXPECT_EQ(routedKernels, std::vector<std::string>{"test_wgmma_chain_t_bf16"});
}

// Every case again with its kernel made persistent by tilegpu-persistent-grid
// (the hint forced) and run on at most 3 CTAs: the rewritten kernel walks
// the logical programs, their ids and the grid's sizes as the plain launch.
TEST(OpCases, PersistentGridMatchesReferences) {
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  for (const Case &c : opCases(rng)) {
    if (!c.launchError.empty())
      continue;
    std::string error;
    auto got = runOnInterpreter(c, error, false, nullptr, /*persistent=*/true);
    ASSERT_EQ(error, "") << c.label;
    double e;
    EXPECT_EQ(check(c, got, &e), "")
        << c.label << " (persistent, seed " << seed << ")";
  }
}

} // namespace
