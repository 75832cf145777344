#include <gtest/gtest.h>

#include "compositor/config/factory_options.hpp"
#include "compositor/config/options.hpp"
#include "compositor/output/screenshot_writer.hpp"

namespace {

using baton::BackendChoice;
using Action = baton::ParsedCommandLine::Action;

baton::Result<baton::ParsedCommandLine> parse(std::vector<std::string_view> args) {
  args.insert(args.begin(), "baton");
  return baton::parse_command_line(args);
}

TEST(Options, DefaultsWithNoArguments) {
  auto p = parse({});
  ASSERT_TRUE(p.ok()) << p.error().describe();
  ASSERT_EQ(p->action, Action::run);
  EXPECT_EQ(p->options.backend, BackendChoice::automatic);
  EXPECT_EQ(p->options.outputs, 1);
  EXPECT_EQ(p->options.headless_size.width, 1280);
  EXPECT_EQ(p->options.headless_size.refresh_mhz, 60000);
  EXPECT_FALSE(p->options.screenshot_path);
}

TEST(Options, EveryOptionParses) {
  auto p = parse({"-s",
                  "foot",
                  "--startup=weston-simple-shm",
                  "--exit-with-session",
                  "--backend",
                  "headless",
                  "--renderer=pixman",
                  "--headless-size",
                  "800x600@75",
                  "--outputs",
                  "2",
                  "--screenshot",
                  "/tmp/x.png",
                  "--exit-after-screenshot",
                  "--screenshot-delay",
                  "50",
                  "-c",
                  "/tmp/cfg",
                  "-d",
                  "--socket",
                  "wayland-test",
                  "--background",
                  "#3060a0",
                  "--xwayland",
                  "eager"});
  ASSERT_TRUE(p.ok()) << p.error().describe();
  ASSERT_EQ(p->action, Action::run);
  const auto& o = p->options;
  EXPECT_EQ(o.startup_commands, (std::vector<std::string>{"foot", "weston-simple-shm"}));
  EXPECT_TRUE(o.exit_with_session);
  EXPECT_EQ(o.backend, BackendChoice::headless);
  EXPECT_EQ(o.renderer, baton::RendererChoice::pixman);
  EXPECT_EQ(o.headless_size.width, 800);
  EXPECT_EQ(o.headless_size.height, 600);
  EXPECT_EQ(o.headless_size.refresh_mhz, 75000);
  EXPECT_EQ(o.outputs, 2);
  EXPECT_EQ(o.screenshot_path, "/tmp/x.png");
  EXPECT_TRUE(o.exit_after_screenshot);
  EXPECT_EQ(o.screenshot_delay_ms, 50);
  EXPECT_EQ(o.config_path, "/tmp/cfg");
  EXPECT_EQ(o.socket_name, "wayland-test");
  EXPECT_TRUE(o.debug);
  EXPECT_EQ(o.background, 0x3060a0u);
  EXPECT_EQ(o.xwayland, baton::XwaylandMode::eager);
  EXPECT_EQ(parse({"--renderer", "vulkan"})->options.renderer, baton::RendererChoice::vulkan);
  EXPECT_EQ(parse({"--xwayland", "off"})->options.xwayland, baton::XwaylandMode::off);
  EXPECT_EQ(parse({})->options.compositing, baton::CompositingChoice::automatic);
  EXPECT_EQ(parse({"--compositing", "compute"})->options.compositing,
            baton::CompositingChoice::compute);
  EXPECT_EQ(parse({"--compositing=raster"})->options.compositing, baton::CompositingChoice::raster);
}

TEST(Options, DrmDeviceForExplicitSync) {
  EXPECT_FALSE(parse({})->options.drm_device.has_value());
  EXPECT_EQ(parse({"--drm-device", "/dev/dri/renderD128"})->options.drm_device,
            "/dev/dri/renderD128");
  auto missing = parse({"--drm-device"});
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.error().describe().find("--drm-device"), std::string::npos);
}

TEST(Options, HelpAndVersion) {
  EXPECT_EQ(parse({"--help"})->action, Action::help);
  EXPECT_EQ(parse({"-h"})->action, Action::help);
  EXPECT_EQ(parse({"--version"})->action, Action::version);
  EXPECT_NE(baton::usage_text("baton").find("--headless-size"), std::string::npos);
}

TEST(Options, ErrorsNameTheProblem) {
  auto unknown = parse({"--frobnicate"});
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().describe().find("--frobnicate"), std::string::npos);

  auto backend = parse({"--backend", "fbdev"});
  EXPECT_FALSE(backend.ok());
  EXPECT_NE(backend.error().describe().find("fbdev"), std::string::npos);

  EXPECT_FALSE(parse({"--backend"}).ok());
  EXPECT_FALSE(parse({"--outputs", "0"}).ok());
  EXPECT_FALSE(parse({"--outputs", "two"}).ok());
  EXPECT_FALSE(parse({"--headless-size", "800"}).ok());
  EXPECT_FALSE(parse({"--headless-size", "800x600@"}).ok());
  EXPECT_FALSE(parse({"--headless-size", "-1x600"}).ok());
  EXPECT_FALSE(parse({"--exit-after-screenshot"}).ok());
  EXPECT_FALSE(parse({"--background", "blue"}).ok());
  EXPECT_FALSE(parse({"--background", "#12345"}).ok());
  EXPECT_FALSE(parse({"--background", "12345g"}).ok());
  auto compositing = parse({"--compositing", "rops"});
  EXPECT_FALSE(compositing.ok());
  EXPECT_NE(compositing.error().describe().find("rops"), std::string::npos);
  auto renderer = parse({"--renderer", "gles"});
  EXPECT_FALSE(renderer.ok());
  EXPECT_NE(renderer.error().describe().find("gles"), std::string::npos);
  EXPECT_FALSE(parse({"--xwayland", "sometimes"}).ok());
}

TEST(Options, OutputSizeWithoutRefreshKeepsSixtyHertz) {
  auto size = baton::parse_output_size("1920x1080");
  ASSERT_TRUE(size);
  EXPECT_EQ(size->width, 1920);
  EXPECT_EQ(size->height, 1080);
  EXPECT_EQ(size->refresh_mhz, 60000);
}

TEST(ScreenshotPaths, OneFilePerOutput) {
  using baton::ScreenshotWriter;
  EXPECT_EQ(ScreenshotWriter::path_for_output("/tmp/s.png", 0), "/tmp/s.png");
  EXPECT_EQ(ScreenshotWriter::path_for_output("/tmp/s.png", 1), "/tmp/s-1.png");
  EXPECT_EQ(ScreenshotWriter::path_for_output("/tmp/shot", 2), "/tmp/shot-2");
}

// The factories get the command line's choices, and the config file's where
// the command line said nothing.
TEST(Options, FactoryOptionsPreferTheCommandLine) {
  baton::Config config;
  config.renderer = baton::RendererChoice::vulkan;
  config.swapchain_slots = 2;
  auto p = parse({"--backend", "headless", "--outputs", "2", "--headless-size", "800x600"});
  ASSERT_TRUE(p.ok()) << p.error().describe();
  ASSERT_EQ(p->action, Action::run);
  baton::BackendOptions backend = baton::backend_options(p->options);
  EXPECT_EQ(backend.backend, BackendChoice::headless);
  EXPECT_EQ(backend.outputs, 2);
  EXPECT_EQ(backend.headless_size.width, 800);
  baton::RenderOptions render = baton::render_options(p->options, config);
  EXPECT_EQ(render.renderer, baton::RendererChoice::vulkan);
  EXPECT_EQ(render.swapchain_slots, 2);

  p = parse({"--renderer", "pixman", "--swapchain-slots", "4", "--compositing", "raster"});
  ASSERT_TRUE(p.ok()) << p.error().describe();
  ASSERT_EQ(p->action, Action::run);
  render = baton::render_options(p->options, config);
  EXPECT_EQ(render.renderer, baton::RendererChoice::pixman);
  EXPECT_EQ(render.swapchain_slots, 4);
  EXPECT_EQ(render.compositing, baton::CompositingChoice::raster);
  EXPECT_EQ(baton::render_options(parse({})->options, baton::Config{}).swapchain_slots, 3);
}

}  // namespace
