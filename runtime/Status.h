//===- Status.h - the result of every runtime call --------------*- C++ -*-===//
//
// The runtime reports failures as values, never as exceptions: the code that
// links it (generated launchers, benchmarks) may be built with -fno-exceptions,
// and a failed launch is something a caller prints and recovers from.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_STATUS_H
#define TESSEL_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace tessel::rt {

/// Success, or a failure with a message meant for a person. [[nodiscard]] so
/// that an unchecked launch or copy is a compiler warning.
class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;

  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return ok_; }
  /// Empty on success.
  const std::string &message() const { return message_; }

  /// Returns this status with `context + ": "` in front of its message; a
  /// success stays a success.
  Status withContext(const std::string &context) && {
    if (!ok_)
      message_ = context + ": " + message_;
    return std::move(*this);
  }

private:
  bool ok_ = true;
  std::string message_;
};

} // namespace tessel::rt

/// Returns from the enclosing function when `expr` (a Status) failed.
#define TESSEL_RT_TRY(expr)                                                    \
  do {                                                                         \
    ::tessel::rt::Status tesselRtStatus_ = (expr);                             \
    if (!tesselRtStatus_.ok())                                                 \
      return tesselRtStatus_;                                                  \
  } while (false)

#endif // TESSEL_RUNTIME_STATUS_H
