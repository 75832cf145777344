// In-process Servers on baton's Vulkan renderer (lavapipe will do).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "renderer/vulkan/vulkan_renderer.hpp"
#include "tests/support/harness.hpp"

namespace baton::test {

// A headless server on baton's Vulkan renderer, or null with `why` set.
inline std::unique_ptr<Harness> vulkan_harness(
    std::string& why, CompositingChoice compositing = CompositingChoice::automatic) {
  Options options = headless_options();
  options.renderer = RendererChoice::vulkan;
  options.compositing = compositing;
  try {
    return std::make_unique<Harness>(std::move(options));
  } catch (const std::exception& e) {
    why = e.what();
    // Only a missing Vulkan device skips; any other start failure is a bug.
    if (why.find("renderer unavailable") == std::string::npos) throw;
    return nullptr;
  }
}

#define REQUIRE_VULKAN(h, ...)                                                                \
  std::string why;                                                                            \
  auto h = vulkan_harness(why __VA_OPT__(, ) __VA_ARGS__);                                    \
  if (!h) GTEST_SKIP() << "UNTESTED HERE: needs a Vulkan device (lavapipe will do): " << why; \
  ASSERT_TRUE(vulkan::is_vulkan_renderer(h->server().renderer()))

}  // namespace baton::test
