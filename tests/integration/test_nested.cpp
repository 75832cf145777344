// baton nested as a client: inside another baton, and inside an X server.
// On the Vulkan renderer, named: its swapchain slots reach the parent as
// wl_shm / MIT-SHM memfds, and `auto` takes pixman where lavapipe is all there is.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstring>
#include <filesystem>

#include "tests/support/poll.hpp"
#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kParentBackground = 0xff202020;
constexpr uint32_t kNestedBackground = 0xff3060a0;

TEST(Nested, BatonInsideBatonShowsItsOutputAndClient) {
  std::string dir = scratch_dir("nested-wayland");
  std::string png = dir + "/parent.png";
  std::string nested = baton_exe() +
                       " --backend wayland --renderer vulkan --background '#3060a0'"
                       " -s weston-simple-shm";
  auto status = run_baton_until_shown(
      {"--backend", "headless", "--renderer", "vulkan", "--headless-size", "1920x1080",
       "--background", "#202020", "-s", nested, "--screenshot", png, "--screenshot-delay", "1000"},
      png,
      [](const Image& shot) {
        return shows_nested_output_with_client(shot, kNestedBackground, kParentBackground);
      },
      dir + "/baton.log", milliseconds(30000));
  ASSERT_EQ(status, 0) << read_file(dir + "/baton.log");
  // The nested baton's output is a window in the parent, with the client
  // it started (weston-simple-shm) inside.
  expect_nested_output_with_client(load_png_or_fail(png), kNestedBackground, kParentBackground);
  // When the parent exits, the nested baton notices and exits too, cleanly
  // (wlroots aborts a process that still listens to a finished backend).
  const std::string closed = "the backend was closed";
  EXPECT_TRUE(wait_for_text(dir + "/baton.log", closed, milliseconds(5000)))
      << read_file(dir + "/baton.log");
  auto after_close = [&] {
    std::string log = read_file(dir + "/baton.log");
    size_t at = log.find(closed);
    return at == std::string::npos ? std::string() : log.substr(at);
  };
  poll_until([&] { return after_close().find("baton exits (status 0)") != std::string::npos; },
             milliseconds(5000), milliseconds(50));
  EXPECT_NE(after_close().find("baton exits (status 0)"), std::string::npos)
      << read_file(dir + "/baton.log");
  EXPECT_EQ(after_close().find("Assertion"), std::string::npos) << read_file(dir + "/baton.log");
}

// An X root window read back with xwd (ZPixmap, 24/32 bpp TrueColor).
Image read_xwd(const std::string& path) {
  std::string data = read_file(path);
  if (data.size() < 100) throw std::runtime_error("xwd output too short");
  auto field = [&](int i) {
    uint32_t v;
    std::memcpy(&v, data.data() + static_cast<ptrdiff_t>(i) * 4, 4);
    return ntohl(v);
  };
  uint32_t header_size = field(0), width = field(4), height = field(5), byte_order = field(7);
  uint32_t bpp = field(11), bytes_per_line = field(12), ncolors = field(19);
  // Xvfb's depth-24 root is packed 24 bpp; rows are padded to bytes_per_line.
  if (bpp != 24 && bpp != 32)
    throw std::runtime_error("unexpected xwd depth " + std::to_string(bpp));
  const uint32_t bytes_per_pixel = bpp / 8;
  size_t offset = header_size + ncolors * 12;
  if (data.size() < offset + static_cast<size_t>(bytes_per_line) * height)
    throw std::runtime_error("xwd output truncated");
  Image image(static_cast<int>(width), static_cast<int>(height));
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const auto* b = reinterpret_cast<const uint8_t*>(
          data.data() + offset + size_t{y} * bytes_per_line + size_t{x} * bytes_per_pixel);
      uint32_t p = 0;
      for (uint32_t i = 0; i < bytes_per_pixel; ++i) {
        uint32_t byte = byte_order == 0 ? b[i] : b[bytes_per_pixel - 1 - i];
        p |= byte << (8 * i);
      }
      image.at(static_cast<int>(x), static_cast<int>(y)) = 0xff000000 | (p & 0xffffff);
    }
  return image;
}

TEST(Nested, BatonInsideAnXServerDrawsIntoItsWindow) {
  std::string dir = scratch_dir("nested-x11");
  // Xvfb picks a free display number and writes it to the displayfd file.
  Process xvfb({"sh", "-c",
                "exec Xvfb -displayfd 3 -screen 0 1600x900x24 -nolisten tcp 3>" + dir + "/display"},
               {}, dir + "/xvfb.log");
  ASSERT_TRUE(wait_for_text(dir + "/display", "\n", milliseconds(10000)))
      << read_file(dir + "/xvfb.log");
  std::string display =
      ":" + read_file(dir + "/display").substr(0, read_file(dir + "/display").find('\n'));

  Process baton(
      {baton_exe(), "--backend", "x11", "--renderer", "vulkan", "--background", "#3060a0", "-s",
       "weston-simple-shm", "--screenshot", dir + "/baton.png", "--screenshot-delay", "1000"},
      {{"DISPLAY", display}, {"WAYLAND_DISPLAY", ""}}, dir + "/baton.log");
  ASSERT_TRUE(wait_for_text(dir + "/baton.log", "written to", milliseconds(20000)))
      << read_file(dir + "/baton.log");

  // What the X server shows, not just what baton rendered.
  Process xwd({"xwd", "-root", "-silent", "-out", dir + "/root.xwd"}, {{"DISPLAY", display}},
              dir + "/xwd.log");
  ASSERT_EQ(xwd.wait(milliseconds(10000)), 0) << read_file(dir + "/xwd.log");
  Image root = read_xwd(dir + "/root.xwd");
  ASSERT_EQ(root.width, 1600);
  // Without a window manager the x11 backend's 1024x768 window sits at the origin.
  Box window = bounding_box(root, kNestedBackground);
  EXPECT_EQ(window.x0, 0);
  EXPECT_EQ(window.y0, 0);
  EXPECT_EQ(window.x1, 1024);
  EXPECT_EQ(window.y1, 768);
  Box client{512 - 125, 384 - 125, 512 + 125, 384 + 125};
  EXPECT_GT(distinct_colours(root, client), 100)
      << "weston-simple-shm is not visible on the X screen";

  // Closing the X server ends the nested session.
  xvfb.signal(SIGTERM);
  EXPECT_TRUE(baton.wait(milliseconds(5000)).has_value()) << read_file(dir + "/baton.log");
}

}  // namespace
}  // namespace baton::test
