// baton's one error type for set-up and fallible calls: what failed and why
// (an errno, or a reason in words), as a value.
//
// C++20 has no std::expected; Result<T> is the small subset baton needs.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace baton {

struct Error {
  std::string call;    // the call that failed, or what was being done
  int code = 0;        // its errno; 0 when `reason` says why instead
  std::string reason;  // why, when it is not an errno (a VkResult, a missing feature)

  /// "DMA_BUF_IOCTL_EXPORT_SYNC_FILE: Invalid argument (EINVAL)", or
  /// "backend 'drm': no seat" for a reason in words.
  [[nodiscard]] std::string describe() const;
};

/// The errno at the point of a failed call, as an Error.
[[nodiscard]] Error last_error(std::string_view call);
/// A failure that has no errno: `what` could not be done because `reason`.
[[nodiscard]] Error failure(std::string what, std::string reason);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  [[nodiscard]] const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

/// Success or an Error, for calls that return nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}

  [[nodiscard]] bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const Error& error() const {
    assert(failed_);
    return error_;
  }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace baton
