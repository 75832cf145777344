#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>

#include "backend/refresh_range.hpp"

namespace {

using Edid = std::array<uint8_t, 128>;

// The EDID of the vkms_vrr test panel, byte for byte as in
// tests/vm/vkms/vkms_vrr-variable-refresh.patch (vkms_vrr_edid): EDID 1.4,
// continuous frequencies, its second display descriptor (bytes 72-89) a
// range limits descriptor of 48-144 Hz vertical.
constexpr Edid vrr_edid = {
    0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x59, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x22, 0x01, 0x04, 0xa5, 0x00, 0x00, 0x78, 0x07, 0xee, 0x91, 0xa3, 0x54, 0x4c, 0x99, 0x26,
    0x0f, 0x50, 0x54, 0x20, 0x00, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x64, 0x19, 0x00, 0x40, 0x41, 0x00, 0x26, 0x30, 0x18, 0x88,
    0x36, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0xfd, 0x00, 0x30, 0x90, 0x1e,
    0xa0, 0x1a, 0x01, 0x0a, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x00, 0x00, 0x00, 0xfc, 0x00, 0x76,
    0x6b, 0x6d, 0x73, 0x20, 0x56, 0x52, 0x52, 0x0a, 0x20, 0x20, 0x20, 0x20, 0x00, 0x00, 0x00, 0x10,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7c,
};
// Where the range descriptor's fields lie in vrr_edid.
constexpr size_t range_tag = 72 + 3;
constexpr size_t range_min_vert = 72 + 5;
constexpr size_t range_max_vert = 72 + 6;

// Sets the last byte so that all 128 sum to 0 mod 256, as EDID requires.
void fix_checksum(Edid& edid) {
  const unsigned sum = std::accumulate(edid.begin(), edid.end() - 1, 0U);
  edid.back() = static_cast<uint8_t>((256 - sum % 256) % 256);
}

TEST(RefreshRange, ReadsTheRangeLimitsDescriptor) {
  Edid edid = vrr_edid;
  fix_checksum(edid);
  ASSERT_EQ(edid.back(), vrr_edid.back());  // the patch's checksum was already right
  auto range = baton::refresh_range_from_edid(edid);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->min_hz, 48);
  EXPECT_EQ(range->max_hz, 144);
}

TEST(RefreshRange, NoneWithoutARangeDescriptor) {
  Edid edid = vrr_edid;
  edid[range_tag] = 0x10;  // a dummy descriptor
  fix_checksum(edid);
  EXPECT_FALSE(baton::refresh_range_from_edid(edid).has_value());
}

TEST(RefreshRange, NoneForGarbage) {
  Edid edid{};
  for (size_t i = 0; i < edid.size(); ++i) edid[i] = static_cast<uint8_t>(i * 37 + 11);
  EXPECT_FALSE(baton::refresh_range_from_edid(edid).has_value());
  EXPECT_FALSE(baton::refresh_range_from_edid({}).has_value());
}

TEST(RefreshRange, NoneForAFixedRate) {
  Edid edid = vrr_edid;
  edid[range_min_vert] = 60;
  edid[range_max_vert] = 60;
  fix_checksum(edid);
  EXPECT_FALSE(baton::refresh_range_from_edid(edid).has_value());
}

}  // namespace
