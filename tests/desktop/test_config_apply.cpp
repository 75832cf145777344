// The config file applied to a running server: outputs, keyboards,
// background, startup commands, reload. libinput-only settings (accel and
// its profile, natural scroll, tap) need real libinput devices: the kernel
// suite's input-uinput test drives uinput devices in the guest.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <unistd.h>

#include <fstream>

#include "compositor/desktop/view.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/output/output.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

std::string write_config(const std::string& name, const std::string& text) {
  std::string path = scratch_dir(name) + "/config";
  std::ofstream(path) << text;
  return path;
}

Options options_with(const std::string& path) {
  Options options = headless_options();
  options.config_path = path;
  return options;
}

TEST(ConfigApply, OutputModeRefreshScaleTransformPosition) {
  Harness h(options_with(write_config("output-apply", R"(
[[output]]
name = "*"
mode = "800x600@50"
scale = 2.0
transform = "90"
position = [100, 50]
adaptive_sync = true
)")));
  EXPECT_TRUE(h.server().config_errors().empty());
  wlr_output* output = h.server().outputs()[0]->wlr();
  EXPECT_EQ(output->width, 800);
  EXPECT_EQ(output->height, 600);
  EXPECT_EQ(output->refresh, 50000);
  EXPECT_FLOAT_EQ(output->scale, 2.0f);
  EXPECT_EQ(output->transform, WL_OUTPUT_TRANSFORM_90);
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), output, &box);
  EXPECT_EQ(box.x, 100);
  EXPECT_EQ(box.y, 50);
  EXPECT_EQ(box.width, 300);
  EXPECT_EQ(box.height, 400);
  // The headless backend has no VRR: the wish is dropped, the rest applies.
  EXPECT_FALSE(output->adaptive_sync_status == WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED);
}

// A new output starts in its configured state with one commit: no modeset
// to the preferred mode first, and an output configured off is never lit.
TEST(ConfigApply, ANewOutputStartsInItsConfiguredStateWithOneCommit) {
  const std::string path = write_config("output-first-commit", "");
  Harness h(options_with(path));
  // Headless outputs are numbered in order: the next two get these names.
  const std::string first = h.server().outputs().back()->wlr()->name;
  const int n = std::stoi(first.substr(first.rfind('-') + 1));
  const std::string configured = "HEADLESS-" + std::to_string(n + 1);
  const std::string off = "HEADLESS-" + std::to_string(n + 2);
  std::ofstream(path) << "[[output]]\nname = \"" << configured
                      << "\"\nmode = \"800x600@50\"\nposition = [2000, 0]\n\n"
                      << "[[output]]\nname = \"" << off << "\"\nmode = \"800x600\"\n"
                      << "enabled = false\n";
  ASSERT_TRUE(h.server().reload_config());

  wlr_output* plugged = wlr_headless_add_output(h.server().backend(), 640, 480);
  ASSERT_EQ(plugged->name, configured);
  EXPECT_EQ(plugged->commit_seq, 1U) << "the output was committed before its configured state";
  EXPECT_EQ(plugged->width, 800);
  EXPECT_EQ(plugged->refresh, 50000);
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), plugged, &box);
  EXPECT_EQ(box.x, 2000);

  // Off, with a mode too: wlroots refuses a mode for a disabled output, so
  // the mode must not make the whole state fail (the output would be lit).
  wlr_output* unlit = wlr_headless_add_output(h.server().backend(), 640, 480);
  ASSERT_EQ(unlit->name, off);
  EXPECT_FALSE(unlit->enabled);
  EXPECT_EQ(unlit->commit_seq, 1U) << "the output configured off was lit first";
  EXPECT_TRUE(h.server().config_errors().empty());
  h.sync();
}

TEST(ConfigApply, NamedOutputOverridesWildcardAndDisableWorks) {
  std::string path = write_config("output-named", "");
  Harness h(options_with(path));
  wlr_output* output = h.server().outputs()[0]->wlr();
  std::ofstream(path) << "[[output]]\nname = \"*\"\nscale = 2.0\n\n[[output]]\nname = \""
                      << output->name << "\"\nscale = 1.25\nrefresh = 30\n";
  EXPECT_TRUE(h.server().reload_config());
  EXPECT_FLOAT_EQ(output->scale, 1.25f);
  EXPECT_EQ(output->refresh, 30000);
  std::ofstream(path) << "[[output]]\nname = \"*\"\nenabled = false\n";
  EXPECT_TRUE(h.server().reload_config());
  EXPECT_FALSE(output->enabled);
}

TEST(ConfigApply, KeyboardLayoutAndRepeatAndReload) {
  std::string path = write_config("keyboard", R"(
[[input]]
type = "keyboard"
xkb_layout = "de"
xkb_variant = "nodeadkeys"
xkb_options = "ctrl:swapcaps"
repeat_rate = 40
repeat_delay = 250
)");
  Harness h(options_with(path));
  FakeKeyboard keyboard(h.server());
  wlr_keyboard* kb = wlr_seat_get_keyboard(h.server().seat().wlr());
  ASSERT_NE(kb, nullptr);
  EXPECT_STREQ(xkb_keymap_layout_get_name(kb->keymap, 0), "German (no dead keys)");
  EXPECT_EQ(kb->repeat_info.rate, 40);
  EXPECT_EQ(kb->repeat_info.delay, 250);
  // German layout: the key right of T is z.
  const xkb_keysym_t* syms = nullptr;
  ASSERT_EQ(xkb_keymap_key_get_syms_by_level(kb->keymap, KEY_Y + 8, 0, 0, &syms), 1);
  EXPECT_EQ(syms[0], static_cast<xkb_keysym_t>(XKB_KEY_z));

  std::ofstream(path) << "[[input]]\ntype = \"keyboard\"\nxkb_layout = \"fr\"\n";
  EXPECT_TRUE(h.server().reload_config());
  kb = wlr_seat_get_keyboard(h.server().seat().wlr());
  EXPECT_STREQ(xkb_keymap_layout_get_name(kb->keymap, 0), "French");
  EXPECT_EQ(kb->repeat_info.rate, 25);  // back to the default
}

TEST(ConfigApply, ABadLayoutFallsBackToTheDefault) {
  Harness h(
      options_with(write_config("bad-layout", "[[input]]\nxkb_layout = \"no-such-layout\"\n")));
  FakeKeyboard keyboard(h.server());
  wlr_keyboard* kb = wlr_seat_get_keyboard(h.server().seat().wlr());
  ASSERT_NE(kb->keymap, nullptr);
  EXPECT_STREQ(xkb_keymap_layout_get_name(kb->keymap, 0), "English (US)");
}

TEST(ConfigApply, BackgroundColourAndCommandLineWins) {
  std::string path = write_config("background", "background = \"#804020\"\n");
  {
    Harness h(options_with(path));
    EXPECT_EQ(h.capture().at(5, 5), 0xff804020u);
  }
  Options options = options_with(path);
  options.background = 0x102030;
  options.background_set = true;
  Harness h(options);
  EXPECT_EQ(h.capture().at(5, 5), 0xff102030u);
}

TEST(ConfigApply, RendererAndSwapchainAreStoredForTheRenderer) {
  Harness h(options_with(write_config("renderer", "renderer = \"pixman\"\nswapchain_slots = 2\n")));
  EXPECT_EQ(h.server().config().renderer, RendererChoice::pixman);
  EXPECT_EQ(h.server().config().swapchain_slots, 2);
}

// The config file's renderer is the one the server starts with, unless the
// command line names one.
TEST(ConfigApply, ConfigPicksTheRendererTheCommandLineLeftOpen) {
  std::string vulkan = write_config("renderer-vulkan", "renderer = \"vulkan\"\n");
  std::string pixman = write_config("renderer-pixman", "renderer = \"pixman\"\n");
  {
    Options options = options_with(vulkan);
    options.renderer = RendererChoice::automatic;
    Harness h(options);
    EXPECT_STREQ(h.server().renderer_name(), "vulkan");
  }
  {
    Options options = options_with(pixman);
    options.renderer = RendererChoice::automatic;
    Harness h(options);
    EXPECT_STREQ(h.server().renderer_name(), "pixman");
  }
  Options options = options_with(vulkan);
  options.renderer = RendererChoice::pixman;
  Harness h(options);
  EXPECT_STREQ(h.server().renderer_name(), "pixman");
}

TEST(ConfigApply, StartupCommandsRunOnceAtStart) {
  std::string dir = scratch_dir("startup");
  std::string path = write_config("startup", "startup = [\"echo x >> " + dir + "/ran\"]\n");
  std::string log = dir + "/baton.log";
  auto status =
      run_baton({"--backend", "headless", "-c", path, "-s", "sleep 0.5", "--exit-with-session"},
                log, std::chrono::milliseconds(10000));
  EXPECT_EQ(status, 0) << read_file(log);
  EXPECT_EQ(read_file(dir + "/ran"), "x\n");
}

TEST(ConfigApply, BadLinesAreLoggedWithFileAndLineAndBatonStillRuns) {
  std::string dir = scratch_dir("bad-config");
  std::string path = write_config(
      "bad-config", "swapchain_slots = 3\nrenderer = 7\n[keybindings]\n\"Super+x\" = \"fly\"\n");
  std::string log = dir + "/baton.log";
  auto status =
      run_baton({"--backend", "headless", "-c", path, "-s", "true", "--exit-with-session"}, log,
                std::chrono::milliseconds(10000));
  EXPECT_EQ(status, 0);
  std::string text = read_file(log);
  EXPECT_NE(text.find(path + ":2: 'renderer' must be a string"), std::string::npos) << text;
  EXPECT_NE(text.find(path + ":4: key binding 'Super+x': unknown action 'fly'"), std::string::npos)
      << text;
}

TEST(ConfigApply, UnreadableConfigGivenWithDashCIsFatal) {
  std::string dir = scratch_dir("missing-config");
  auto status = run_baton({"--backend", "headless", "-c", dir + "/nope"}, dir + "/baton.log",
                          std::chrono::milliseconds(10000));
  EXPECT_EQ(status, 1);
}

TEST(ConfigApply, SighupReloads) {
  std::string dir = scratch_dir("sighup");
  std::string path = write_config("sighup", "");
  std::string log = dir + "/baton.log";
  Process baton({baton_exe(), "--backend", "headless", "-c", path}, {}, log);
  ASSERT_TRUE(wait_for_text(log, "running on WAYLAND_DISPLAY", std::chrono::milliseconds(10000)));
  std::ofstream(path) << "bogus = 1\n";
  baton.signal(SIGHUP);
  EXPECT_TRUE(wait_for_text(log, "configuration reloaded", std::chrono::milliseconds(5000)))
      << read_file(log);
  EXPECT_NE(read_file(log).find(path + ":1: unknown setting 'bogus'"), std::string::npos);
  baton.signal(SIGTERM);
  EXPECT_EQ(baton.wait(std::chrono::milliseconds(5000)), 0);
}

// A touchscreen mapped to one of two outputs: the middle of the device is
// the middle of that output. Unmapped, it would be the middle of the whole
// layout (the seam between the outputs, where no window is). An output
// that is not there leaves the device over the whole layout.
Options two_outputs_with_config(const std::string& path) {
  Options options = headless_options(640, 480, 2);
  options.config_path = path;
  return options;
}

/// The output a mapped window is centred on (its 200x150 middle is there).
wlr_output* output_under(Harness& h, const View& view) {
  return wlr_output_layout_output_at(h.server().output_layout(), view.x() + 100, view.y() + 75);
}

/// Maps devices of TYPE to OUTPUT through a reloaded config.
void map_to_output_by_reload(Harness& h, const std::string& path, const char* type,
                             const wlr_output& output) {
  std::ofstream(path) << "[[input]]\ntype = \"" << type << "\"\nmap_to_output = \"" << output.name
                      << "\"\n";
  ASSERT_TRUE(h.server().reload_config());
  h.sync();
}

void tap_middle_of_device(Harness& h, FakeTouch& touch) {
  touch.down_on_device(1, 0.5, 0.5);
  touch.frame();
  touch.up(1);
  touch.frame();
  h.sync();
}

TEST(ConfigApply, ATouchscreenMappedToAnOutputCoversOnlyThatOutput) {
  const std::string path = write_config("touch-mapped", "");
  Harness h(two_outputs_with_config(path));
  FakeTouch touch(h.server());
  Client client(h);
  Window window(client);
  View* view = map_window(h, window, 0xff3050a0);
  ASSERT_NE(view, nullptr);
  // The window is centred on its output, so it covers that output's middle.
  wlr_output* output = output_under(h, *view);
  ASSERT_NE(output, nullptr);
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), output, &box);

  tap_middle_of_device(h, touch);  // unmapped: the seam between the outputs
  EXPECT_TRUE(client.touch_events.empty()) << "the layout's middle is on the window";
  client.touch_events.clear();

  map_to_output_by_reload(h, path, "touch", *output);
  tap_middle_of_device(h, touch);
  ASSERT_FALSE(client.touch_events.empty())
      << "the touch did not reach the window on " << output->name;
  const Client::TouchEvent& down = client.touch_events.front();
  EXPECT_EQ(down.kind, "down");
  EXPECT_EQ(down.surface, window.surface());
  EXPECT_NEAR(down.x, box.x + box.width / 2.0 - view->x(), 1.0);
  EXPECT_NEAR(down.y, box.y + box.height / 2.0 - view->y(), 1.0);

  // The output is unplugged: the window moves to the other one, and the
  // touchscreen covers what is left.
  wlr_output_destroy(output);
  h.run_for(std::chrono::milliseconds(20));
  client.touch_events.clear();
  wlr_box left{};
  wlr_output_layout_get_box(h.server().output_layout(), nullptr, &left);
  touch.down_on_device(1, (view->x() + 100.0 - left.x) / left.width,
                       (view->y() + 75.0 - left.y) / left.height);
  touch.frame();
  touch.up(1);
  touch.frame();
  h.sync();
  ASSERT_FALSE(client.touch_events.empty())
      << "the touchscreen does not cover the remaining output (window at " << view->x() << ","
      << view->y() << ", layout " << left.x << "," << left.y << " " << left.width << "x"
      << left.height << ")";
  EXPECT_EQ(client.touch_events.front().surface, window.surface());
}

TEST(ConfigApply, ATouchscreenMappedToAnAbsentOutputCoversTheLayout) {
  Harness h(with_config("touch-absent",
                        "[[input]]\ntype = \"touch\"\nmap_to_output = \"HEADLESS-9\"\n", 2));
  FakeTouch touch(h.server());
  Client client(h);
  Window window(client);
  View* view = map_window(h, window, 0xff3050a0);
  ASSERT_NE(view, nullptr);
  touch.down_on_device(1, 320.0 / 1280, 0.5);  // (320, 240) in the layout
  touch.frame();
  h.sync();
  ASSERT_FALSE(client.touch_events.empty()) << "the touch did not land on the layout";
  EXPECT_NEAR(client.touch_events.front().x, 320 - view->x(), 1.0);
  touch.up(1);
  touch.frame();
}

// A tablet follows its map_to_output as a touchscreen does: the middle of
// the tablet is the middle of that output (the pen is a mouse here: the
// client speaks no tablet-v2).
TEST(ConfigApply, ATabletMappedToAnOutputCoversOnlyThatOutput) {
  const std::string path = write_config("tablet-mapped", "");
  Harness h(two_outputs_with_config(path));
  FakeTablet tablet(h.server());
  Client client(h);
  Window window(client);
  View* view = map_window(h, window, 0xff3050a0);
  ASSERT_NE(view, nullptr);
  wlr_output* output = output_under(h, *view);
  ASSERT_NE(output, nullptr);
  map_to_output_by_reload(h, path, "tablet", *output);
  tablet.proximity(0.5, 0.5, true);
  h.sync();
  EXPECT_EQ(client.pointer_focus, window.surface())
      << "the middle of the tablet is not the middle of " << output->name;
  EXPECT_NEAR(client.pointer_x, 100, 1.0);
  EXPECT_NEAR(client.pointer_y, 75, 1.0);
}

}  // namespace
}  // namespace baton::test
