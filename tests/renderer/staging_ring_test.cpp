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

// A client committing faster than the output repaints (vkcube in MAILBOX):
// the uploads of a frame vary from none to dozens. Once the oldest
// stretches are reclaimed after a wrap, the space behind them is free again;
// a ring that only learnt so when it emptied grew to 2 GiB in seven seconds
// in the guest and then failed every upload.
TEST_F(RingFixture, UnevenFramesAfterAWrapDoNotGrowTheRing) {
  constexpr int kFramesInFlight = 2;
  VkBuffer first = VK_NULL_HANDLE;
  uint32_t seed = 12345;
  for (uint64_t point = 1; point <= 3000; ++point) {
    seed = seed * 1103515245 + 12345;
    const int uploads = static_cast<int>((seed >> 16) % 24);
    for (int i = 0; i < uploads; ++i) {
      auto allocated = ring->allocate(kUpload);
      ASSERT_TRUE(allocated.ok()) << allocated.error().describe();
      if (first == VK_NULL_HANDLE) first = allocated->buffer;
      ASSERT_EQ(allocated->buffer, first)
          << "frame " << point << ": the ring grew with at most "
          << VkDeviceSize{kFramesInFlight + 1} * 24 * kUpload / 1024 << " KiB in use";
    }
    ring->commit(point);
    if (point > kFramesInFlight) ring->reclaim(point - kFramesInFlight);
  }
}

// Once the stretches before a wrap are reclaimed, everything from the
// oldest stretch left (at the front) to the end of the ring is free: a burst
// of uploads (many windows damaged at once) fits there without a new buffer.
TEST_F(RingFixture, AfterAWrapTheEndOfTheRingIsFreeAgain) {
  constexpr int kFramesInFlight = 3;
  VkBuffer first = VK_NULL_HANDLE;
  uint64_t point = 1;
  // A steady loop until a frame starts at the front: the ring wrapped
  // between two frames.
  for (bool wrapped = false; !wrapped; ++point) {
    ASSERT_LT(point, 10000u) << "the steady loop never wrapped";
    for (int i = 0; i < 4; ++i) {
      auto allocated = ring->allocate(kUpload);
      ASSERT_TRUE(allocated.ok()) << allocated.error().describe();
      if (first == VK_NULL_HANDLE) first = allocated->buffer;
      wrapped = wrapped || (i == 0 && point > 1 && allocated->offset == 0);
    }
    ring->commit(point);
    // The frames before the one at the front are done, that one is not.
    ring->reclaim(wrapped ? point - 1 : (point > kFramesInFlight ? point - kFramesInFlight : 0));
  }
  // 2 MiB of small uploads in one frame, with 64 KiB still in flight.
  for (int i = 0; i < 128; ++i) {
    auto allocated = ring->allocate(kUpload);
    ASSERT_TRUE(allocated.ok()) << allocated.error().describe();
    ASSERT_EQ(allocated->buffer, first) << "upload " << i << " of the burst grew the ring";
  }
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
