//===- OpCasesTest.cpp - the GPU op test cases, run by the interpreter ----===//
//
// The same kernels and references as the GPU tests (test/gpu), with the
// interpreter as the machine: CI checks on the CPU what the H200 checks.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "test/kernels/TestCases.h"

#include <gtest/gtest.h>

using namespace tessel;
using namespace tessel::test;
using namespace tessel::testcases;

namespace {

/// Runs a case on the interpreter; returns the memory of every tensor.
std::vector<std::vector<double>> runOnInterpreter(const Case &c,
                                                  std::string &error) {
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
  auto kernel = *traced.module->getOps<mlir::func::FuncOp>().begin();
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
  error = interp::run(kernel, c.grid, args);
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
  for (const Case &c : cases) {
    std::string error;
    auto got = runOnInterpreter(c, error);
    ASSERT_EQ(error, "") << c.label;
    double e;
    EXPECT_EQ(check(c, got, &e), "") << c.label << " (seed " << seed << ")";
    std::printf("  %-70s rel L2 %.2e\n", c.label.c_str(), e);
  }
}

} // namespace
