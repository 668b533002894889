// base/status.h
//
// Status and Result<T>: the error convention at every module boundary.
// A Status is OK, or carries a kind, a MySQL error number, a SQLSTATE and a
// message, so that the layer that talks to the client can send it as an ERR
// packet unchanged. Result<T> is a value or a non-OK Status.
//
// Thread-safety: values; copy freely. No exception crosses a module boundary.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sluice {

class Status {
 public:
  enum class Code : uint8_t {
    kOk = 0,
    kMySQL,            // an error a client sees: errno + SQLSTATE + message
    kCorruption,       // bad bytes on disk or on the wire
    kIOError,          // the OS said no
    kNotSupported,     // a feature sluice does not have
    kInvalidArgument,  // a caller's mistake
  };

  Status() = default;  // OK
  static Status OK() { return Status(); }

  // A client-visible MySQL error. `sqlstate` is five characters.
  static Status MySQL(uint16_t mysql_errno, std::string_view sqlstate, std::string message) {
    return Status(Code::kMySQL, mysql_errno, sqlstate, std::move(message));
  }
  static Status Corruption(std::string message) {
    return Status(Code::kCorruption, 1105, "HY000", std::move(message));
  }
  static Status IOError(std::string message) {
    return Status(Code::kIOError, 1105, "HY000", std::move(message));
  }
  static Status NotSupported(std::string message) {
    return Status(Code::kNotSupported, 1235, "42000", std::move(message));
  }
  static Status InvalidArgument(std::string message) {
    return Status(Code::kInvalidArgument, 1105, "HY000", std::move(message));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }

  // For OK: 0, "00000", "".
  uint16_t mysql_errno() const { return errno_; }
  std::string_view sqlstate() const { return std::string_view(sqlstate_, 5); }
  const std::string& message() const { return message_; }

  // "ERROR 1045 (28000): Access denied ..." — for logs and tests.
  std::string ToString() const;

 private:
  Status(Code code, uint16_t mysql_errno, std::string_view sqlstate, std::string message)
      : code_(code), errno_(mysql_errno), message_(std::move(message)) {
    for (size_t i = 0; i < 5; ++i) sqlstate_[i] = i < sqlstate.size() ? sqlstate[i] : '0';
  }

  Code code_ = Code::kOk;
  uint16_t errno_ = 0;
  char sqlstate_[5] = {'0', '0', '0', '0', '0'};
  std::string message_;
};

// A value or an error. Result<void> is not provided: use Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "Result built from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace sluice

// Returns early with the Status if `expr` is not OK.
#define SLUICE_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::sluice::Status _sluice_st = (expr);            \
    if (!_sluice_st.ok()) return _sluice_st;         \
  } while (0)
