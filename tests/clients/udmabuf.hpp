// A dma-buf made from a memfd through /dev/udmabuf: CPU memory any dma-buf
// consumer (lavapipe, a compositor) can import. No GPU needed. Or, for
// wl_shm, only the memfd (no dma-buf).
#pragma once

#include <cstddef>
#include <cstdint>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::testing {

class Udmabuf {
 public:
  /// memfd (sealed against shrinking) of `size` bytes rounded up to pages,
  /// UDMABUF_CREATE, and a mapping of the memfd for CPU writes.
  static Result<Udmabuf> create(size_t size);
  /// Only the memfd and its mapping, for a wl_shm pool.
  static Result<Udmabuf> create_memfd(size_t size);

  Udmabuf(Udmabuf&& other) noexcept;
  Udmabuf& operator=(Udmabuf&&) = delete;
  Udmabuf(const Udmabuf&) = delete;
  ~Udmabuf();

  [[nodiscard]] int dmabuf() const { return dmabuf_.get(); }
  /// Closes the dma-buf fd and keeps the memory (a client that closes its
  /// fd once the compositor has the buffer).
  void close_dmabuf() { dmabuf_.reset(); }
  [[nodiscard]] int memfd() const { return memfd_.get(); }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] uint8_t* data() const { return static_cast<uint8_t*>(map_); }

 private:
  Udmabuf() = default;
  static Result<Udmabuf> make(size_t size, bool with_dmabuf);
  Status make_dmabuf();

  UniqueFd memfd_;
  UniqueFd dmabuf_;
  size_t size_ = 0;
  void* map_ = nullptr;
};

}  // namespace baton::testing
