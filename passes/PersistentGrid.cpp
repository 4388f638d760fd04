//===- PersistentGrid.cpp - --tilegpu-persistent-grid ---------------------===//
//
// A kernel with the hint `persistent = 1` is launched on as many CTAs as fit
// on the GPU at once, each of which walks the kernel's programs (the
// logical grid) in turn: the body is wrapped in
//
//   scf.for %t = program_id(0) to gx*gy*gz step num_programs(0)
//
// and every tile.program_id / tile.num_programs inside it reads the logical
// program (t mod gx, t / gx mod gy, t / (gx*gy)) and grid (three i32
// parameters appended to the kernel). Programs are visited in launch order
// (x fastest): CTA k of P takes programs k, k + P, ... The runtime (runtime/Runtime.cpp) passes the
// logical grid and sizes the physical one from the driver's occupancy for
// the kernel; the lowering exports the table that tells it to.
//
//===----------------------------------------------------------------------===//

#include "passes/Match.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TILEGPUPERSISTENTGRID
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

struct PersistentGrid
    : public tessel::impl::TileGPUPersistentGridBase<PersistentGrid> {
  using TileGPUPersistentGridBase::TileGPUPersistentGridBase;

  /// Why `kernel` cannot be wrapped, or "".
  static std::string problemOf(func::FuncOp kernel) {
    if (kernel.isExternal())
      return "it has no body";
    if (kernel.getBody().getBlocks().size() != 1)
      return "its body is not one block";
    if (kernel.getNumResults() != 0)
      return "it returns values";
    auto ret = dyn_cast<func::ReturnOp>(kernel.front().getTerminator());
    if (!ret || ret.getNumOperands() != 0)
      return "its body does not end in a plain return";
    return "";
  }

  LogicalResult wrap(func::FuncOp kernel) {
    MLIRContext *ctx = kernel.getContext();
    Location loc = kernel.getLoc();
    Type i32 = IntegerType::get(ctx, 32);
    unsigned first = kernel.getNumArguments();
    for (unsigned d = 0; d < 3; ++d)
      if (failed(kernel.insertArgument(
              first + d, i32,
              DictionaryAttr::get(
                  ctx, {NamedAttribute(
                           StringAttr::get(
                               ctx, tile::TileDialect::getArgNameAttrName()),
                           StringAttr::get(ctx, kGridArgNames[d]))}),
              loc)))
        return kernel.emitError("cannot append the logical grid parameters");
    Block &body = kernel.front();
    SmallVector<Value> grid = {body.getArgument(first),
                               body.getArgument(first + 1),
                               body.getArgument(first + 2)};
    // The ops to move: everything but the return.
    SmallVector<Operation *> moved;
    for (Operation &op : body.without_terminator())
      moved.push_back(&op);

    OpBuilder b(ctx);
    b.setInsertionPointToStart(&body);
    Value start = tile::ProgramIdOp::create(b, loc, b.getI64IntegerAttr(0));
    Value step = tile::NumProgramsOp::create(b, loc, b.getI64IntegerAttr(0));
    Value total = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, grid[0], grid[1]), grid[2]);
    auto loop = scf::ForOp::create(b, loc, start, total, step);
    loop->setAttr(kProgramLoopAttr, b.getUnitAttr());
    Block *inner = loop.getBody();
    for (Operation *op : moved)
      op->moveBefore(inner->getTerminator());

    // The logical program: x fastest, as a launch rasterises a grid.
    b.setInsertionPointToStart(inner);
    Value t = loop.getInductionVar();
    Value rest = arith::DivUIOp::create(b, loc, t, grid[0]);
    SmallVector<Value> program = {
        arith::RemUIOp::create(b, loc, t, grid[0]),
        arith::RemUIOp::create(b, loc, rest, grid[1]),
        arith::DivUIOp::create(b, loc, rest, grid[1])};
    SmallVector<Operation *> replaced;
    for (Operation *op : moved)
      op->walk([&](Operation *inside) {
        if (auto pid = dyn_cast<tile::ProgramIdOp>(inside)) {
          pid.getResult().replaceAllUsesWith(program[pid.getDim()]);
          replaced.push_back(pid);
        } else if (auto num = dyn_cast<tile::NumProgramsOp>(inside)) {
          num.getResult().replaceAllUsesWith(grid[num.getDim()]);
          replaced.push_back(num);
        }
      });
    for (Operation *op : replaced)
      op->erase();
    kernel->setAttr(kPersistentAttr, b.getUnitAttr());
    return success();
  }

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      IntegerAttr hint = kernelHint(kernel, targetOf(kernel), "persistent");
      if (!hint || hint.getInt() == 0 || kernel->hasAttr(kPersistentAttr)) {
        if (remarks)
          kernel.emitRemark(kernel->hasAttr(kPersistentAttr)
                                ? "already persistent"
                                : "not persistent: the kernel's persistent "
                                  "hint is 0 or absent");
        continue;
      }
      if (std::string problem = problemOf(kernel); !problem.empty()) {
        kernel.emitError("cannot make the kernel persistent: ") << problem;
        return signalPassFailure();
      }
      if (failed(wrap(kernel)))
        return signalPassFailure();
      if (remarks)
        kernel.emitRemark("persistent: the body walks the logical grid");
    }
  }
};

} // namespace
