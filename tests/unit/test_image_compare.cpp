#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/golden.hpp"
#include "util/image.hpp"

namespace {

TEST(Png, RoundTripKeepsEveryPixel) {
  baton::Image image(7, 5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x)
      image.at(x, y) = 0xff000000u | static_cast<uint32_t>(x * 30) << 16 |
                       static_cast<uint32_t>(y * 50) << 8 | 0x12;
  image.at(3, 2) = 0x80402010;  // translucent
  auto path = std::filesystem::path(BATON_BUILD_DIR) / "png-roundtrip.png";
  baton::Status written = baton::write_png(path.string(), image);
  ASSERT_TRUE(written.ok()) << written.error().describe();
  auto read = baton::read_png(path.string());
  ASSERT_TRUE(read.ok()) << read.error().describe();
  baton::Image back = std::move(*read);
  ASSERT_EQ(back.width, 7);
  ASSERT_EQ(back.height, 5);
  EXPECT_EQ(back.pixels, image.pixels);
}

TEST(Png, ReadingAMissingFileIsAnError) {
  auto image = baton::read_png("/nonexistent/x.png");
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.error().describe().find("/nonexistent/x.png"), std::string::npos);
}

TEST(ImageDiff, ToleranceIsPerChannel) {
  baton::Image a(4, 4, 0xff102030);
  baton::Image b = a;
  b.at(1, 1) = 0xff102032;  // +2 in blue
  b.at(2, 2) = 0xff182030;  // +8 in red
  baton::Image diff;
  auto d = baton::test::diff_images(a, b, 2, &diff);
  EXPECT_TRUE(d.size_matches);
  EXPECT_EQ(d.pixels_over_tolerance, 1);
  EXPECT_EQ(d.max_channel_delta, 8);
  EXPECT_EQ(diff.at(2, 2), 0xffff0000u);
  EXPECT_NE(diff.at(1, 1), 0xffff0000u);
  EXPECT_EQ(baton::test::diff_images(a, b, 8).pixels_over_tolerance, 0);
}

TEST(ImageDiff, SizeMismatchIsReported) {
  EXPECT_FALSE(baton::test::diff_images(baton::Image(2, 2), baton::Image(2, 3), 0).size_matches);
}

TEST(Golden, MismatchWritesActualAndDiffImages) {
  // tests/golden/unit-checker.png is a 4x4 black/white checkerboard.
  baton::Image wrong(4, 4, 0xff000000);
  auto result = baton::test::compare_to_golden(wrong, "unit-checker", 0);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.message.find("8 pixels differ"), std::string::npos) << result.message;
  auto out = std::filesystem::path(BATON_BUILD_DIR) / "golden-failures";
  EXPECT_TRUE(std::filesystem::exists(out / "unit-checker.actual.png"));
  EXPECT_TRUE(std::filesystem::exists(out / "unit-checker.diff.png"));

  baton::Image right(4, 4);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) right.at(x, y) = ((x + y) % 2) ? 0xffffffff : 0xff000000;
  EXPECT_TRUE(baton::test::compare_to_golden(right, "unit-checker", 0).ok);
}

}  // namespace
