// Status and StatusOr: the error currency at every API boundary.
// No exception crosses a module boundary; a failure carries one line of text
// that names the file (and offset or line) it is about.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace th {

// kUnsupported: the input is no trace (empty, not the format, damaged beyond
// recognition); kOtherFormat: it is a valid document of another kind (a JSON
// object without traceEvents: an execution trace, a config). Both mean "not a
// trace" (NotATrace); a folder of ranks tells them apart in its trust table.
enum class StatusCode {
  kOk = 0,
  kInvalidInput,
  kNotFound,
  kIoError,
  kUnsupported,
  kInternal,
  kOtherFormat
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status Ok() { return Status(); }
inline Status InvalidInput(std::string m) { return {StatusCode::kInvalidInput, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status OtherFormat(std::string m) { return {StatusCode::kOtherFormat, std::move(m)}; }
inline bool NotATrace(const Status& s) {
  return s.code() == StatusCode::kUnsupported || s.code() == StatusCode::kOtherFormat;
}

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace th

#define TH_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::th::Status th_status_ = (expr);        \
    if (!th_status_.ok()) return th_status_; \
  } while (0)
