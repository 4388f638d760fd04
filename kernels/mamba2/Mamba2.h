//===- Mamba2.h - C++ API of libtessel_mamba2 -------------------*- C++ -*-===//
//
// The C++ face of tessel_mamba2.h: the same argument struct, failures as
// tessel::rt::Status values with the message (and, optionally, the C status
// code).
//
//   tessel_mamba2_forward_args a;
//   tessel_mamba2_args_init(&a);
//   ... fill a ...
//   size_t bytes;
//   TESSEL_RT_TRY(tessel::mamba2::workspaceSize(&a, &bytes));
//   TESSEL_RT_TRY(tessel::mamba2::forward(&a));
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_MAMBA2_MAMBA2_H
#define TESSEL_KERNELS_MAMBA2_MAMBA2_H

#include "kernels/mamba2/tessel_mamba2.h"
#include "runtime/Status.h"

namespace tessel::mamba2 {

/// Validates `args` (workspace excepted); stores the workspace size needed on
/// the current device (see tessel_mamba2_workspace_size).
rt::Status workspaceSize(const tessel_mamba2_forward_args *args, size_t *bytes,
                         tessel_mamba2_status *code = nullptr);

/// Validates `args` and enqueues the forward pass on args->stream. `code`,
/// when given, receives the C status (INVALID_ARGUMENT for bad arguments,
/// UNSUPPORTED for a device or variant this build lacks, CUDA_ERROR for a
/// failing driver call).
rt::Status forward(const tessel_mamba2_forward_args *args,
                   tessel_mamba2_status *code = nullptr);

/// Forces `kernel`'s tunables ("NAME=VALUE,..."; null or "": the tuned
/// choice again) for the following forward calls on this thread (see
/// tessel_mamba2_set_tunables).
rt::Status setTunables(const char *kernel, const char *tunables);

} // namespace tessel::mamba2

#endif // TESSEL_KERNELS_MAMBA2_MAMBA2_H
