// The staging ring under a steady frame loop: stretches still read by the GPU
// are never handed out again, and the ring keeps reusing its front instead of
// walking all of its memory (cold pages cost a fault or TLB miss per upload).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "renderer/vulkan/staging_ring.hpp"

namespace baton::vulkan {
namespace {

TEST(StagingRing, InFlightStretchesNeverOverlapAndTheFrontIsReused) {
  Device::Created created = Device::create({});
  if (!created.device) GTEST_SKIP() << "UNTESTED HERE: no Vulkan device: " << created.error;
  StagingRing ring(*created.device);
  constexpr VkDeviceSize kUpload = 16384;  // one 64x64 ARGB patch
  constexpr int kUploadsPerFrame = 4, kFramesInFlight = 3;
  struct Live {
    uint64_t point;
    VkBuffer buffer;
    VkDeviceSize offset;
  };
  std::vector<Live> live;
  VkDeviceSize highest = 0;
  for (uint64_t point = 1; point <= 400; ++point) {
    for (int i = 0; i < kUploadsPerFrame; ++i) {
      StagingRing::Span span = ring.allocate(kUpload);
      ASSERT_NE(span.data, nullptr);
      for (const Live& l : live) {
        if (l.buffer != span.buffer) continue;
        EXPECT_TRUE(span.offset + kUpload <= l.offset || l.offset + kUpload <= span.offset)
            << "frame " << point << " got bytes the GPU still reads";
      }
      live.push_back({point, span.buffer, span.offset});
      if (point > 20) highest = std::max(highest, span.offset + kUpload);
    }
    ring.commit(point);
    // The GPU finishes each frame kFramesInFlight frames later.
    if (point > kFramesInFlight) {
      const uint64_t done = point - kFramesInFlight;
      ring.reclaim(done);
      std::erase_if(live, [&](const Live& l) { return l.point <= done; });
    }
  }
  // What is in flight is 4 frames of 64 KiB; the ring itself is 8 MiB.
  EXPECT_LE(highest, VkDeviceSize(2 * (kFramesInFlight + 1) * kUploadsPerFrame) * kUpload)
      << "the steady loop walks the whole ring";
}

}  // namespace
}  // namespace baton::vulkan
