// One lock on a wlr_buffer, released when this goes: the buffer's holder
// (a client) gets it back only once nothing of ours reads it.
#pragma once

#include <utility>

#include "util/wlr.hpp"

namespace baton {

class BufferLock {
 public:
  BufferLock() = default;
  explicit BufferLock(wlr_buffer* buffer)
      : buffer_(buffer != nullptr ? wlr_buffer_lock(buffer) : nullptr) {}
  ~BufferLock() { reset(); }
  BufferLock(BufferLock&& other) noexcept : buffer_(std::exchange(other.buffer_, nullptr)) {}
  BufferLock& operator=(BufferLock&& other) noexcept {
    if (this != &other) {
      reset();
      buffer_ = std::exchange(other.buffer_, nullptr);
    }
    return *this;
  }
  BufferLock(const BufferLock&) = delete;
  BufferLock& operator=(const BufferLock&) = delete;

  void reset() {
    if (buffer_ != nullptr) wlr_buffer_unlock(std::exchange(buffer_, nullptr));
  }
  [[nodiscard]] wlr_buffer* get() const { return buffer_; }

 private:
  wlr_buffer* buffer_ = nullptr;
};

}  // namespace baton
