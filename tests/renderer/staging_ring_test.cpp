// The staging ring under a steady frame loop: stretches still read by the GPU
// are never handed out again, the loop stays near the front of the ring, and
// a burst of big first uploads does not grow it (later small updates would
// walk its cold pages).
#include "renderer/vulkan/texture/staging_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace baton::vulkan {
namespace {

constexpr VkDeviceSize kUpload = 16384;  // one 64x64 ARGB patch

struct RingFixture : ::testing::Test {
  void SetUp() override {
    auto created = Device::create({});
    if (!created) GTEST_SKIP() << "UNTESTED HERE: no Vulkan device: " << created.error().describe();
    device = std::move(*created);
    ring = std::make_unique<StagingRing>(*device);
  }
  std::shared_ptr<Device> device;
  std::unique_ptr<StagingRing> ring;
};

TEST_F(RingFixture, InFlightStretchesAreNeverHandedOutAgain) {
  constexpr int kUploadsPerFrame = 4, kFramesInFlight = 3;
  struct Live {
    uint64_t point;
    VkBuffer buffer;
    VkDeviceSize offset;
  };
  std::vector<Live> live;
  VkDeviceSize highest = 0;
  VkBuffer steady = VK_NULL_HANDLE;
  for (uint64_t point = 1; point <= 1200; ++point) {
    for (int i = 0; i < kUploadsPerFrame; ++i) {
      auto allocated = ring->allocate(kUpload);
      ASSERT_TRUE(allocated.ok()) << allocated.error().describe();
      StagingRing::Span span = *allocated;
      ASSERT_NE(span.data, nullptr);
      for (const Live& l : live) {
        if (l.buffer != span.buffer) continue;
        ASSERT_TRUE(span.offset + kUpload <= l.offset || l.offset + kUpload <= span.offset)
            << "frame " << point << " got bytes the GPU still reads";
      }
      live.push_back({point, span.buffer, span.offset});
      if (point == 10) steady = span.buffer;
      if (point > 10) {
        EXPECT_EQ(span.buffer, steady) << "the ring grew in a steady loop";
        highest = std::max(highest, span.offset + kUpload);
      }
    }
    ring->commit(point);
    // The GPU finishes each frame kFramesInFlight frames later.
    if (point > kFramesInFlight) {
      const uint64_t done = point - kFramesInFlight;
      ring->reclaim(done);
      std::erase_if(live, [&](const Live& l) { return l.point <= done; });
    }
  }
  // In flight are 4 frames of 64 KiB; the ring is 8 MiB. Staying near the
  // front keeps the pages that uploads write warm.
  EXPECT_LE(highest, VkDeviceSize(4 * (kFramesInFlight + 1) * kUploadsPerFrame) * kUpload)
      << "the steady loop walks the whole ring";
}

TEST_F(RingFixture, BigFirstUploadsDoNotGrowTheRing) {
  const VkBuffer before = ring->allocate(kUpload)->buffer;
  ring->commit(1);
  // 32 new 1280x720 windows at once.
  std::vector<VkBuffer> big;
  for (int i = 0; i < 32; ++i) {
    auto allocated = ring->allocate(VkDeviceSize{1280} * 720 * 4);
    ASSERT_TRUE(allocated.ok()) << allocated.error().describe();
    StagingRing::Span span = *allocated;
    ASSERT_NE(span.data, nullptr);
    span.data[1280 * 720 * 4 - 1] = 1;  // all of it is writable
    big.push_back(span.buffer);
  }
  ring->commit(2);
  EXPECT_EQ(std::count(big.begin(), big.end(), before), 0) << "a big upload went into the ring";
  const VkBuffer after = ring->allocate(kUpload)->buffer;
  EXPECT_EQ(after, before) << "the ring was replaced by a bigger one";
  ring->commit(3);
  ring->reclaim(3);
}

}  // namespace
// The compute path stages in device-local memory where the device has it:
// spans must still be writable and the ring must still wrap in a loop.
TEST_F(RingFixture, DeviceLocalPlacementHandsOutWritableSpans) {
  ring->set_placement(HostBuffer::Placement::device_local);
  VkBuffer first = VK_NULL_HANDLE;
  for (uint64_t point = 1; point <= 600; ++point) {
    auto allocated = ring->allocate(kUpload);
    ASSERT_TRUE(allocated.ok()) << allocated.error().describe();
    StagingRing::Span span = *allocated;
    ASSERT_NE(span.data, nullptr);
    std::fill_n(span.data, kUpload, static_cast<unsigned char>(point));
    if (first == VK_NULL_HANDLE) first = span.buffer;
    EXPECT_EQ(span.buffer, first) << "the ring grew in a steady loop";
    ring->commit(point);
    if (point > 3) ring->reclaim(point - 3);
  }
}

}  // namespace baton::vulkan
