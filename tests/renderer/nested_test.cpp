// baton on the Vulkan renderer nested inside another baton: its swapchain
// slots are memfds the parent takes as wl_shm buffers.
#include <gtest/gtest.h>

#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kParentBackground = 0xff202020;
constexpr uint32_t kNestedBackground = 0xff3060a0;

TEST(NestedVulkan, SlotsReachTheParentAsShmWithTheClientInThem) {
  std::string dir = scratch_dir("nested-vulkan");
  std::string png = dir + "/parent.png";
  std::string nested = baton_exe() +
                       " --backend wayland --renderer vulkan --background '#3060a0'"
                       " -s weston-simple-shm";
  // The parent on pixman: what it shows is exactly the bytes it mapped.
  auto status = run_baton_until_shown(
      {"--backend", "headless", "--renderer", "pixman", "--headless-size", "1920x1080",
       "--background", "#202020", "-s", nested, "--screenshot", png, "--screenshot-delay", "1000"},
      png,
      [](const Image& shot) {
        return shows_nested_output_with_client(shot, kNestedBackground, kParentBackground);
      },
      dir + "/baton.log", milliseconds(30000));
  ASSERT_EQ(status, 0) << read_file(dir + "/baton.log");
  const std::string log = read_file(dir + "/baton.log");
  if (log.find("renderer unavailable") != std::string::npos &&
      log.find("VK_EXT_external_memory_host") != std::string::npos)
    GTEST_SKIP() << "UNTESTED HERE: the Vulkan device cannot import host memory:\n" << log;
  ASSERT_NE(log.find("backend wayland, renderer vulkan"), std::string::npos)
      << "the nested baton did not run on Vulkan:\n"
      << log;
  // weston-simple-shm, composited by the nested baton's Vulkan renderer.
  expect_nested_output_with_client(load_png_or_fail(png), kNestedBackground, kParentBackground);
}

// The nested baton loses its device with its client up: new renderer, new
// memfd slots, and the parent still shows the client.
TEST(NestedVulkan, SurvivesAGpuLossWithTheClientShown) {
  std::string dir = scratch_dir("nested-vulkan-gpu-loss");
  std::string png = dir + "/parent.png";
  std::string nested = "env BATON_TEST_GPU_LOSS_MS=800 " + baton_exe() +
                       " --backend wayland --renderer vulkan --background '#3060a0'"
                       " -s weston-simple-shm";
  const std::string log_path = dir + "/baton.log";
  const Box client{960 - 125, 540 - 125, 960 + 125, 540 + 125};
  // Shown: after the rebuild, the client inside the nested output again.
  auto status = run_baton_until_shown(
      {"--backend", "headless", "--renderer", "pixman", "--headless-size", "1920x1080",
       "--background", "#202020", "-s", nested, "--screenshot", png, "--screenshot-delay", "1500"},
      png,
      [&](const Image& shot) {
        return read_file(log_path).find("renderer: rebuilt on vulkan") != std::string::npos &&
               count_pixels(shot, kNestedBackground, client) == 0 &&
               distinct_colours(shot, client) > 100 &&
               count_pixels(shot, kNestedBackground) > 100000;
      },
      log_path, milliseconds(30000));
  ASSERT_EQ(status, 0) << read_file(dir + "/baton.log");
  const std::string log = read_file(dir + "/baton.log");
  if (log.find("backend wayland, renderer vulkan") == std::string::npos)
    GTEST_SKIP() << "UNTESTED HERE: the nested baton did not start on Vulkan:\n" << log;
  ASSERT_NE(log.find("renderer: rebuilt on vulkan"), std::string::npos)
      << "no rebuild after the simulated loss:\n"
      << log;
  Image shot = load_png_or_fail(png);
  EXPECT_EQ(count_pixels(shot, kNestedBackground, client), 0);
  EXPECT_GT(distinct_colours(shot, client), 100);
  EXPECT_GT(count_pixels(shot, kNestedBackground), 100000) << "the nested output went dark";
}

}  // namespace
}  // namespace baton::test
