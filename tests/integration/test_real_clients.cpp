// Clients nobody here wrote map windows under headless baton, and baton's
// screenshot shows their pixels.
#include <gtest/gtest.h>

#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kBackground = 0xff292e38;

// The screenshot once it shows what `shown` looks for (or the last after 30 s).
Image screenshot_with(const std::string& name, const std::string& command,
                      const std::function<bool(const Image&)>& shown,
                      const std::map<std::string, std::string>& env = {}) {
  std::string dir = scratch_dir(name);
  std::string png = dir + "/screenshot.png";
  auto status = run_baton_until_shown({"--backend", "headless", "--headless-size", "1280x720", "-s",
                                       command, "--screenshot", png, "--screenshot-delay", "300"},
                                      png, shown, dir + "/baton.log", milliseconds(30000), env);
  EXPECT_EQ(status, 0) << read_file(dir + "/baton.log");
  return load_png_or_fail(png);
}

// weston-simple-shm draws a 250x250 window of moving colour rings, centred.
const Box kShmWindow{640 - 125, 360 - 125, 640 + 125, 360 + 125};

long bright_pixels(const Image& shot) {
  long bright = 0;
  for (uint32_t p : shot.pixels) {
    uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
    bright += (r > 160 && g > 160 && b > 160);
  }
  return bright;
}

TEST(RealClients, WestonSimpleShmIsOnScreen) {
  Image shot = screenshot_with("weston-simple-shm", "weston-simple-shm", [](const Image& s) {
    return distinct_colours(s, kShmWindow) > 100;
  });
  ASSERT_EQ(shot.width, 1280);
  ASSERT_EQ(shot.height, 720);
  EXPECT_EQ(shot.at(0, 0), kBackground);
  EXPECT_GT(count_other_pixels(shot, kBackground, kShmWindow), 250L * 250 * 9 / 10);
  EXPECT_GT(distinct_colours(shot, kShmWindow), 100);
  EXPECT_EQ(count_other_pixels(shot, kBackground, {0, 0, 1280, 200}), 0);
}

TEST(RealClients, FootTerminalShowsText) {
  // foot's window: its dark background plus light glyphs.
  Image shot = screenshot_with("foot", "foot sh -c 'echo baton foot test; sleep 30'",
                               [](const Image& s) {
                                 return count_other_pixels(s, kBackground) > 200000 &&
                                        bright_pixels(s) > 100;
                               },
                               {{"LC_ALL", "C.UTF-8"}, {"HOME", scratch_dir("foot-home")}});
  EXPECT_GT(count_other_pixels(shot, kBackground), 200000) << "no foot window on screen";
  EXPECT_GT(bright_pixels(shot), 100) << "foot's window shows no text";
}

}  // namespace
}  // namespace baton::test
