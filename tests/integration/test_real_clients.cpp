// Clients nobody here wrote map windows under headless baton, and baton's
// screenshot shows their pixels.
#include <gtest/gtest.h>

#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kBackground = 0xff292e38;

Image screenshot_with(const std::string& name, const std::string& command, int delay_ms,
                      const std::map<std::string, std::string>& env = {}) {
  std::string dir = scratch_dir(name);
  std::string png = dir + "/screenshot.png";
  auto status = run_baton(
      {"--backend", "headless", "--headless-size", "1280x720", "-s", command, "--screenshot", png,
       "--screenshot-delay", std::to_string(delay_ms), "--exit-after-screenshot"},
      dir + "/baton.log", milliseconds(30000), env);
  EXPECT_EQ(status, 0) << read_file(dir + "/baton.log");
  return load_png_or_fail(png);
}

TEST(RealClients, WestonSimpleShmIsOnScreen) {
  Image shot = screenshot_with("weston-simple-shm", "weston-simple-shm", 300);
  ASSERT_EQ(shot.width, 1280);
  ASSERT_EQ(shot.height, 720);
  EXPECT_EQ(shot.at(0, 0), kBackground);
  // weston-simple-shm draws a 250x250 window of moving colour rings, centred.
  Box window{640 - 125, 360 - 125, 640 + 125, 360 + 125};
  EXPECT_GT(count_other_pixels(shot, kBackground, window), 250L * 250 * 9 / 10);
  EXPECT_GT(distinct_colours(shot, window), 100);
  EXPECT_EQ(count_other_pixels(shot, kBackground, {0, 0, 1280, 200}), 0);
}

TEST(RealClients, FootTerminalShowsText) {
  Image shot = screenshot_with("foot", "foot sh -c 'echo baton foot test; sleep 30'", 1500,
                               {{"LC_ALL", "C.UTF-8"}, {"HOME", scratch_dir("foot-home")}});
  // foot's window: its dark background plus light glyphs.
  long window_pixels = count_other_pixels(shot, kBackground);
  EXPECT_GT(window_pixels, 200000) << "no foot window on screen";
  long bright = 0;
  for (uint32_t p : shot.pixels) {
    uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
    bright += (r > 160 && g > 160 && b > 160);
  }
  EXPECT_GT(bright, 100) << "foot's window shows no text";
}

}  // namespace
}  // namespace baton::test
