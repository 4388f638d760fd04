//===- Tracer.h - DSL tracing state (compiler side) -------------*- C++ -*-===//
//
// The state behind the DSL's free functions while a kernel is traced: the
// builder, the kernel being built and the diagnostics reported so far. Only the
// DSL's implementation and the tools include this header.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DSL_TRACER_H
#define TESSEL_DSL_TRACER_H

#include "dsl/Tessel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

namespace tessel::dsl {

inline mlir::Value toValue(const void *raw) {
  return mlir::Value::getFromOpaquePointer(raw);
}
inline const void *toRaw(mlir::Value value) {
  return value.getAsOpaquePointer();
}

mlir::Type toMlirType(mlir::MLIRContext *ctx, DType type);
/// The DType of an element type; false when tessel has none for it.
bool fromMlirType(mlir::Type type, DType &out);

class Tracer {
public:
  explicit Tracer(mlir::MLIRContext &context);
  ~Tracer();
  Tracer(const Tracer &) = delete;
  Tracer &operator=(const Tracer &) = delete;

  /// The tracer of the kernel being traced on this thread; a DSL call made
  /// outside a trace is a usage error that ends the program with a message.
  static Tracer &current();

  mlir::MLIRContext *getContext() { return &context; }
  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::ModuleOp getModule() { return *module; }
  mlir::OwningOpRef<mlir::ModuleOp> takeModule() { return std::move(module); }

  mlir::Location loc(const Loc &where);
  /// The latest location loc() was asked for (the DSL call being traced).
  const Loc &latest() const { return latestWhere; }
  /// Whether a tracer is active on this thread.
  static bool active();
  /// Reports a user error at `where` and marks the trace failed.
  mlir::InFlightDiagnostic error(const Loc &where);
  bool hasErrors() const { return failed; }
  const std::vector<std::string> &getDiagnostics() const { return diagnostics; }

  /// Creates an op at the current insertion point and verifies it at once, so
  /// that a verifier error is reported at the DSL call that made the op. An
  /// invalid op is erased and a null op returned (its results are poison).
  template <class OpT, class... Args>
  OpT create(const Loc &where, Args &&...args) {
    OpT op = OpT::create(builder, loc(where), std::forward<Args>(args)...);
    if (mlir::failed(mlir::verify(op, /*verifyRecursively=*/false))) {
      failed = true;
      op->erase();
      return nullptr;
    }
    return op;
  }

private:
  Loc latestWhere = Loc::current();
  mlir::MLIRContext &context;
  mlir::OpBuilder builder;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<std::string> diagnostics;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;
  Tracer *previous;
  bool failed = false;
  bool savedPrintOp = true;
};

struct KernelDef;

/// Loads the dialects traced kernels use (tile, func, arith, math, scf,
/// tensor).
void loadTraceDialects(mlir::MLIRContext &context);

struct TraceResult {
  /// The module holding the kernel; null when tracing reported errors.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Errors as `file:line:col: error: message`, in the order reported.
  std::vector<std::string> diagnostics;
};

/// Traces `kernel` for `config` into a module with one kernel function.
TraceResult traceKernel(mlir::MLIRContext &context, const KernelDef &kernel,
                        const Config &config);

} // namespace tessel::dsl

#endif // TESSEL_DSL_TRACER_H
