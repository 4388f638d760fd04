//===- Tracer.cpp - DSL tracing state and kernel definition ---------------===//

#include "dsl/Tracer.h"
#include "dsl/Registry.h"

#include "dialect/tile/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

namespace tessel::dsl {

static thread_local Tracer *currentTracer = nullptr;

Type toMlirType(MLIRContext *ctx, DType type) {
  Builder b(ctx);
  switch (type) {
  case DType::i1:
    return b.getI1Type();
  case DType::i8:
    return b.getI8Type();
  case DType::i16:
    return b.getI16Type();
  case DType::i32:
    return b.getI32Type();
  case DType::i64:
    return b.getI64Type();
  case DType::bf16:
    return b.getBF16Type();
  case DType::f16:
    return b.getF16Type();
  case DType::f32:
    return b.getF32Type();
  case DType::f64:
    return b.getF64Type();
  }
  return b.getF32Type();
}

bool fromMlirType(Type type, DType &out) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  if (type.isBF16())
    out = DType::bf16;
  else if (type.isF16())
    out = DType::f16;
  else if (type.isF32())
    out = DType::f32;
  else if (type.isF64())
    out = DType::f64;
  else if (type.isSignlessInteger(1))
    out = DType::i1;
  else if (type.isSignlessInteger(8))
    out = DType::i8;
  else if (type.isSignlessInteger(16))
    out = DType::i16;
  else if (type.isSignlessInteger(32))
    out = DType::i32;
  else if (type.isSignlessInteger(64))
    out = DType::i64;
  else
    return false;
  return true;
}

void loadTraceDialects(MLIRContext &context) {
  context
      .loadDialect<tile::TileDialect, func::FuncDialect, arith::ArithDialect,
                   math::MathDialect, scf::SCFDialect, tensor::TensorDialect>();
}

Tracer::Tracer(MLIRContext &context)
    : context(context), builder(&context), previous(currentTracer) {
  loadTraceDialects(context);
  module = ModuleOp::create(UnknownLoc::get(&context));
  builder.setInsertionPointToEnd(module->getBody());
  handler = std::make_unique<ScopedDiagnosticHandler>(
      &context, [this](Diagnostic &diag) {
        std::string text;
        llvm::raw_string_ostream os(text);
        auto print = [&](Diagnostic &d, StringRef severity) {
          tile::printLocationPrefix(os, d.getLocation());
          os << severity << ": " << d.str();
        };
        StringRef severity =
            diag.getSeverity() == DiagnosticSeverity::Error     ? "error"
            : diag.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                : "note";
        print(diag, severity);
        for (Diagnostic &note : diag.getNotes()) {
          os << "\n";
          print(note, "note");
        }
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          failed = true;
        diagnostics.push_back(std::move(text));
        return success();
      });
  // DSL users read diagnostics at their own source lines; the generic form of
  // the op that failed is noise to them.
  savedPrintOp = context.shouldPrintOpOnDiagnostic();
  context.printOpOnDiagnostic(false);
  currentTracer = this;
}

Tracer::~Tracer() {
  context.printOpOnDiagnostic(savedPrintOp);
  currentTracer = previous;
}

Tracer &Tracer::current() {
  if (!currentTracer) {
    std::fprintf(stderr, "tessel: a DSL function was called outside a kernel "
                         "trace (call kernels through define()/traceKernel)\n");
    std::exit(2);
  }
  return *currentTracer;
}

bool Tracer::active() { return currentTracer != nullptr; }

Location Tracer::loc(const Loc &where) {
  latestWhere = where;
  return FileLineColLoc::get(&context, where.file_name(), where.line(),
                             where.column());
}

InFlightDiagnostic Tracer::error(const Loc &where) {
  failed = true;
  return emitError(loc(where));
}

//===----------------------------------------------------------------------===//
// Kernel definition
//===----------------------------------------------------------------------===//

RawValues beginKernel(const std::vector<ParamDesc> &params,
                      const std::vector<std::string> &names, const Config &cfg,
                      Loc where) {
  Tracer &t = Tracer::current();
  MLIRContext *ctx = t.getContext();
  OpBuilder &b = t.getBuilder();
  if (!t.getModule().getBody()->empty()) {
    t.error(where) << "a kernel build function must call define() once";
    return {};
  }
  SmallVector<Type> types;
  for (const ParamDesc &p : params) {
    if (p.isView) {
      SmallVector<int64_t> shape(p.rank, ShapedType::kDynamic);
      int64_t align = (p.flags & kAligned16) ? 16 : 0;
      if (align && dtypeBytes(p.dtype) > align)
        align = dtypeBytes(p.dtype);
      types.push_back(tile::ViewType::get(ctx, shape, toMlirType(ctx, p.dtype),
                                          align, (p.flags & kUnitStride) != 0));
    } else {
      types.push_back(toMlirType(ctx, p.dtype));
    }
  }
  // The kernel is named by the registry entry; traceKernel renames it.
  auto func = func::FuncOp::create(b, t.loc(where), "kernel",
                                   b.getFunctionType(types, {}));
  for (auto [i, name] : llvm::enumerate(names))
    func.setArgAttr(i, tile::TileDialect::getArgNameAttrName(),
                    b.getStringAttr(name));
  SmallVector<NamedAttribute> constants;
  for (const auto &[name, value] : cfg.all())
    constants.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
  func->setAttr(tile::TileDialect::getConfigAttrName(),
                b.getDictionaryAttr(constants));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  RawValues args;
  for (BlockArgument arg : entry->getArguments())
    args.push_back(toRaw(arg));
  return args;
}

void endKernel(Loc where) {
  Tracer &t = Tracer::current();
  func::ReturnOp::create(t.getBuilder(), t.loc(where));
}

namespace {
/// Sets the kernel's hint `name` for `target` to what `make` builds.
void setHint(const std::string &target, const std::string &name,
             function_ref<Attribute(OpBuilder &)> make, Loc where) {
  Tracer &t = Tracer::current();
  OpBuilder &b = t.getBuilder();
  auto funcs = t.getModule().getOps<func::FuncOp>();
  func::FuncOp func = funcs.empty() ? nullptr : *funcs.begin();
  if (!func) {
    t.error(where) << "hint() must be called inside a kernel body";
    return;
  }
  MLIRContext *ctx = t.getContext();
  auto hintsName = tile::TileDialect::getHintsAttrName();
  NamedAttrList entries;
  if (auto old = func->getAttrOfType<tile::HintsAttr>(hintsName))
    entries = NamedAttrList(old.getEntries());
  NamedAttrList forTarget;
  if (auto old = dyn_cast_or_null<DictionaryAttr>(entries.get(target)))
    forTarget = NamedAttrList(old);
  forTarget.set(name, make(b));
  entries.set(target, forTarget.getDictionary(ctx));
  auto attr = tile::HintsAttr::getChecked([&] { return t.error(where); }, ctx,
                                          entries.getDictionary(ctx));
  if (attr)
    func->setAttr(hintsName, attr);
}
} // namespace

void hint(const std::string &target, const std::string &name, int64_t value,
          Loc where) {
  setHint(
      target, name, [&](OpBuilder &b) { return b.getI64IntegerAttr(value); },
      where);
}

void hint(const std::string &target, const std::string &name,
          const std::vector<int64_t> &values, Loc where) {
  setHint(
      target, name,
      [&](OpBuilder &b) { return b.getDenseI64ArrayAttr(values); }, where);
}

void noteNullUse(const Loc *where) {
  if (!Tracer::active())
    return;
  Tracer &t = Tracer::current();
  if (t.hasErrors())
    return;
  const Loc at = where ? *where : t.latest();
  t.error(at) << "a Tile, Scalar or View without a value is used "
              << (where ? "here" : "at or just after this call")
              << ": a default-constructed handle (`Tile acc;`, "
                 "`std::vector<Tile> tiles(n)`) must be given one first "
                 "(zeros(), full(), a load, a loop's result)";
}

TraceResult traceKernel(MLIRContext &context, const KernelDef &kernel,
                        const Config &config) {
  TraceResult result;
  Tracer tracer(context);
  if (kernel.check) {
    std::string reason = kernel.check(config);
    if (!reason.empty()) {
      result.diagnostics.push_back(
          "error: kernel '" + kernel.name + "' does not support " +
          configString(kernel, config) + ": " + reason);
      return result;
    }
  }
  kernel.build(config);
  ModuleOp module = tracer.getModule();
  if (!tracer.hasErrors()) {
    auto funcs = module.getOps<func::FuncOp>();
    if (std::distance(funcs.begin(), funcs.end()) != 1) {
      result.diagnostics.push_back("error: the build function of kernel '" +
                                   kernel.name +
                                   "' must call define() exactly once");
      return result;
    }
    (*funcs.begin()).setSymName(kernel.name);
    // Whole-kernel verification: catches what op-by-op checks cannot (e.g. a
    // value used outside the region that defines it).
    // (Its diagnostics reach the tracer's handler at the ops' own lines,
    // e.g. a tile made in a loop body used after the loop: "operand #0 does
    // not dominate this use".)
    if (failed(verify(module)) && !tracer.hasErrors())
      tracer.error(std::source_location::current())
          << "the traced kernel does not verify";
  }
  result.diagnostics = tracer.getDiagnostics();
  if (!tracer.hasErrors())
    result.module = tracer.takeModule();
  return result;
}

} // namespace tessel::dsl
