// Move-only owner of a file descriptor.
#pragma once

#include <unistd.h>

#include <utility>

#include "util/result.hpp"

namespace baton {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }

  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }

  /// Gives up ownership; the caller must close the returned fd.
  [[nodiscard]] int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0 && fd_ != fd) ::close(fd_);
    fd_ = fd;
  }
  /// A new owner of a duplicate of `fd` (F_DUPFD_CLOEXEC, so children
  /// never inherit it).
  [[nodiscard]] static Result<UniqueFd> duplicate_of(int fd);
  /// The same for the fd this owns.
  [[nodiscard]] Result<UniqueFd> duplicate() const { return duplicate_of(fd_); }

 private:
  int fd_ = -1;
};

/// Whether `fd` polls readable right now (a signalled sync_file or eventfd),
/// without waiting.
[[nodiscard]] bool readable_now(int fd);

}  // namespace baton
