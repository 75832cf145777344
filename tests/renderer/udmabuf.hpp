// The renderer tests' dma-bufs: udmabufs (tests/clients/udmabuf.hpp), the
// reason a test skips or fails when there are none, and a wlr_buffer whose
// planes lie in them.
#pragma once

#include <drm_fourcc.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tests/clients/udmabuf.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

/// Skips with `why`, or fails where BATON_REQUIRE_DMABUF says dma-bufs must
/// work (the guest).
#define SKIP_UNLESS_REQUIRED(why)                                                        \
  do {                                                                                   \
    if (std::getenv("BATON_REQUIRE_DMABUF") != nullptr) FAIL() << "required: " << (why); \
    GTEST_SKIP() << (why);                                                               \
  } while (0)

namespace baton::test {

/// At least `bytes`, mapped for the test to write; null, with `why`, where
/// /dev/udmabuf is missing or refuses.
std::unique_ptr<testing::Udmabuf> make_udmabuf(size_t bytes, std::string& why);

/// A dma-buf wlr_buffer: each plane at an offset in one of `memory`, handed
/// over through that udmabuf's fd or, where `fd[i]` is set, another fd of it.
struct PlaneBuffer {
  wlr_buffer base;
  uint32_t format = 0;
  uint64_t modifier = DRM_FORMAT_MOD_LINEAR;
  int planes = 0;  // what it claims to have
  std::vector<std::unique_ptr<testing::Udmabuf>> memory;
  int memory_of[4] = {};
  uint32_t offset[4] = {}, stride[4] = {};
  UniqueFd fd[4];

  /// A buffer of no planes yet; dropped with wlr_buffer_drop.
  static PlaneBuffer* create(int width, int height);
  unsigned char* plane(int i) { return memory[size_t(memory_of[i])]->data() + offset[i]; }
};

}  // namespace baton::test
