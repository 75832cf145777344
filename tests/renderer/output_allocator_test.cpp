// Each output draws on a slot budget of its own. The Vulkan renderer limits
// the buffers an allocator hands out per size and format (swapchain-slots),
// so two outputs of one size sharing one allocator shared one budget: on a
// DRM device the first output's swapchain held every slot and the second
// output never got a buffer (a black screen; found with two 1280x800
// virtio-gpu outputs in the screencast guest test).
#include <drm_fourcc.h>
#include <gtest/gtest.h>

#include <vector>

#include "compositor/output/output.hpp"
#include "tests/renderer/vulkan_server.hpp"
#include "util/wlr.hpp"

extern "C" bool wlr_drm_format_add(wlr_drm_format* fmt, uint64_t modifier);

namespace baton::test {
namespace {

std::unique_ptr<Harness> two_output_harness(std::string& why) {
  Options options = headless_options(640, 480, 2);
  options.renderer = RendererChoice::vulkan;
  try {
    return std::make_unique<Harness>(std::move(options));
  } catch (const std::exception& e) {
    why = e.what();
    if (why.find("renderer unavailable") == std::string::npos) throw;
    return nullptr;
  }
}

// Buffers of 640x480 XRGB8888 the allocator hands out, up to `most`.
std::vector<wlr_buffer*> allocate(wlr_allocator* allocator, int most) {
  wlr_drm_format format{};
  format.format = DRM_FORMAT_XRGB8888;
  wlr_drm_format_add(&format, DRM_FORMAT_MOD_INVALID);
  wlr_drm_format_add(&format, DRM_FORMAT_MOD_LINEAR);
  std::vector<wlr_buffer*> buffers;
  for (int i = 0; i < most; ++i) {
    wlr_buffer* buffer = wlr_allocator_create_buffer(allocator, 640, 480, &format);
    if (buffer == nullptr) break;
    buffers.push_back(buffer);
  }
  wlr_drm_format_finish(&format);
  return buffers;
}

TEST(OutputAllocator, TwoOutputsOfOneSizeEachGetTheWholeSlotBudget) {
  std::string why;
  auto h = two_output_harness(why);
  if (!h) GTEST_SKIP() << "UNTESTED HERE: needs a Vulkan device (lavapipe will do): " << why;
  ASSERT_EQ(h->server().outputs().size(), 2u);
  wlr_output* first = h->server().outputs()[0]->wlr();
  wlr_output* second = h->server().outputs()[1]->wlr();
  ASSERT_NE(first->allocator, nullptr);
  EXPECT_NE(first->allocator, second->allocator) << "the outputs share one allocator";

  // Each takes its budget (3 slots, the default) while the other holds its own.
  std::vector<wlr_buffer*> a = allocate(first->allocator, 8);
  std::vector<wlr_buffer*> b = allocate(second->allocator, 8);
  // The outputs' own swapchains hold some of each budget already.
  EXPECT_GE(a.size(), 1u) << "the first output's allocator gave no buffer";
  EXPECT_GE(b.size(), 1u) << "the second output's allocator gave no buffer while the first "
                             "output's buffers are held";
  EXPECT_LE(a.size(), 3u) << "the budget (swapchain-slots 3) is not kept";
  for (wlr_buffer* buffer : a) wlr_buffer_drop(buffer);
  for (wlr_buffer* buffer : b) wlr_buffer_drop(buffer);

  // Both outputs keep drawing: each captures the background, whole.
  for (size_t i = 0; i < 2; ++i) {
    Image shot = h->capture(i);
    ASSERT_EQ(shot.width, 640) << "output " << i;
    EXPECT_EQ(shot.at(320, 240), shot.at(5, 5)) << "output " << i;
  }
}

}  // namespace
}  // namespace baton::test
