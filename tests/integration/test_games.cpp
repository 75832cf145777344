// A real Vulkan client: vkcube (vulkan-tools) on lavapipe presents frames
// through baton for several seconds and is on screen.
#include <gtest/gtest.h>

#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kBackground = 0xff292e38;

TEST(Games, VkcubePresentsFramesThroughBaton) {
  std::string dir = scratch_dir("vkcube");
  std::string png = dir + "/screenshot.png";
  // vkcube --c N presents N frames, paced by baton (FIFO), then exits 0.
  auto start = std::chrono::steady_clock::now();
  auto status =
      run_baton({"--backend", "headless", "--headless-size", "1280x720", "--exit-with-session",
                 "-s", "vkcube-wayland --c 240", "--screenshot", png, "--screenshot-delay", "1000"},
                dir + "/baton.log", milliseconds(60000));
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(status, 0) << read_file(dir + "/baton.log");
  // 240 frames at 60 Hz: about four seconds, not unthrottled, not stalled.
  EXPECT_GT(seconds, 3.0);
  EXPECT_LT(seconds, 30.0);
  Image shot = load_png_or_fail(png);
  Box window{640 - 250, 360 - 250, 640 + 250, 360 + 250};  // vkcube's 500x500 window
  EXPECT_EQ(count_pixels(shot, kBackground, window), 0) << "vkcube's window is not on screen";
  EXPECT_GT(distinct_colours(shot, window), 50) << "no cube drawn";
}

}  // namespace
}  // namespace baton::test
