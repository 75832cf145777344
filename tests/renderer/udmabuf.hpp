// One udmabuf (memfd pages made a dma-buf through /dev/udmabuf), mapped for
// a test to write: the dma-bufs the renderer's import tests hand it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "util/unique_fd.hpp"

namespace baton::test {

struct Udmabuf {
  UniqueFd fd;
  unsigned char* bytes = nullptr;
  size_t size = 0;
  Udmabuf() = default;
  Udmabuf(const Udmabuf&) = delete;
  Udmabuf& operator=(const Udmabuf&) = delete;
  ~Udmabuf();
};

/// At least `bytes`, in whole pages; null, with `why`, where /dev/udmabuf
/// is missing or refuses.
std::unique_ptr<Udmabuf> make_udmabuf(size_t bytes, std::string& why);

}  // namespace baton::test
