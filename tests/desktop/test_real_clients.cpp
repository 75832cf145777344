// Real desktop tools nobody here wrote, against an in-process baton:
// wl-clipboard (data-control, primary selection), grim (screencopy),
// wlr-randr and kanshi (output management), swaybg and waybar (layer shell).
// They run as children of the server and connect to its socket while the
// test pumps the event loop.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;

bool have(const char* program) {
  std::string cmd = std::string("command -v ") + program + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

#define REQUIRE_PROGRAM(p)             \
  if (!have(p))                        \
  GTEST_SKIP() << "SKIPPED LOUDLY: " p \
                  " is not installed " \
                  "(tools/deps.d/tests/desktop-clients.list)"

/// Runs `command` under the server and waits until `done_file` exists.
bool run_client(Harness& h, const std::string& command, const std::string& done_file,
                milliseconds timeout = milliseconds(30000)) {
  EXPECT_TRUE(h.server().spawn(command + "; touch " + done_file).ok());
  return h.run_until([&] { return access(done_file.c_str(), F_OK) == 0; }, timeout);
}

TEST(RealClients, WlClipboardCopiesBetweenClients) {
  REQUIRE_PROGRAM("wl-copy");
  Harness h;
  std::string dir = scratch_dir("wl-clipboard");
  // wl-copy stays running to serve the selection; wl-paste reads it.
  EXPECT_TRUE(h.server().spawn("wl-copy 'hello from baton'").ok());
  EXPECT_TRUE(h.server().spawn("echo -n primary text | wl-copy --primary").ok());
  // Until both have set their selection (a busy machine starts them slowly).
  ASSERT_TRUE(h.run_until(
      [&] {
        const wlr_seat* seat = h.server().seat().wlr();
        return seat->selection_source != nullptr && seat->primary_selection_source != nullptr;
      },
      milliseconds(30000)));
  ASSERT_TRUE(run_client(h, "wl-paste -n > " + dir + "/clip.txt", dir + "/done1"));
  ASSERT_TRUE(run_client(h, "wl-paste --primary -n > " + dir + "/primary.txt", dir + "/done2"));
  EXPECT_EQ(read_file(dir + "/clip.txt"), "hello from baton");
  EXPECT_EQ(read_file(dir + "/primary.txt"), "primary text");
}

TEST(RealClients, GrimScreenshotEqualsBatonsOwn) {
  REQUIRE_PROGRAM("grim");
  Harness h;
  Client c(h);
  Window a(c);
  a.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return a.configure_count() >= 1; }));
  a.draw(220, 160, 0xffc03050);
  ASSERT_TRUE(h.run_until([&] {
    return !h.server().windows().views().empty() && h.server().windows().views()[0]->mapped();
  }));
  Image ours = h.capture();
  std::string dir = scratch_dir("grim");
  ASSERT_TRUE(run_client(h, "grim " + dir + "/grim.png", dir + "/done"));
  Image theirs = load_png_or_fail(dir + "/grim.png");
  ASSERT_EQ(theirs.width, ours.width);
  ASSERT_EQ(theirs.height, ours.height);
  long different = 0;
  for (size_t i = 0; i < ours.pixels.size(); ++i)
    different += (ours.pixels[i] | 0xff000000) != theirs.pixels[i];
  EXPECT_EQ(different, 0);
  EXPECT_EQ(count_pixels(theirs, 0xffc03050), 220L * 160);
}

TEST(RealClients, WlrRandrListsAndChangesModeScaleAndTransform) {
  REQUIRE_PROGRAM("wlr-randr");
  Harness h;
  std::string dir = scratch_dir("wlr-randr");
  ASSERT_TRUE(run_client(h, "wlr-randr > " + dir + "/list.txt", dir + "/done1"));
  std::string list = read_file(dir + "/list.txt");
  wlr_output* output = h.server().outputs()[0]->wlr();
  std::string name = output->name;  // headless outputs are numbered per process
  EXPECT_NE(list.find(name), std::string::npos) << list;
  EXPECT_NE(list.find("640x480"), std::string::npos) << list;

  ASSERT_TRUE(run_client(h,
                         "wlr-randr --output " + name +
                             " --custom-mode 800x600 --scale 2 --transform 90 "
                             "> " +
                             dir + "/set.txt 2>&1",
                         dir + "/done2"));
  EXPECT_EQ(output->width, 800) << read_file(dir + "/set.txt");
  EXPECT_EQ(output->height, 600);
  EXPECT_FLOAT_EQ(output->scale, 2.0f);
  EXPECT_EQ(output->transform, WL_OUTPUT_TRANSFORM_90);
  // Layout size: rotated and scaled.
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), output, &box);
  EXPECT_EQ(box.width, 300);
  EXPECT_EQ(box.height, 400);
  ASSERT_TRUE(run_client(h, "wlr-randr > " + dir + "/list2.txt", dir + "/done3"));
  std::string after = read_file(dir + "/list2.txt");
  EXPECT_NE(after.find("800x600"), std::string::npos) << after;
  EXPECT_NE(after.find("Transform: 90"), std::string::npos) << after;
}

// wlr-randr may ask for any int32 position. One past the layout's reach
// (kLayoutReach) is refused whole, and the output stays where it was (at
// 2147483600, x + width overflowed int in wlroots' layout and scene: UBSan
// stopped there); a far but reachable one applies.
TEST(RealClients, WlrRandrCannotPlaceAnOutputPastTheLayoutsReach) {
  REQUIRE_PROGRAM("wlr-randr");
  Harness h;
  std::string dir = scratch_dir("wlr-randr-reach");
  wlr_output* output = h.server().outputs()[0]->wlr();
  const std::string name = output->name;
  ASSERT_TRUE(run_client(h,
                         "wlr-randr --output " + name + " --pos 2147483600,0 > " + dir +
                             "/far.txt 2>&1; echo $? > " + dir + "/far.rc",
                         dir + "/done1"));
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), output, &box);
  EXPECT_EQ(box.x, 0) << "the output was placed past the layout's reach";
  EXPECT_NE(read_file(dir + "/far.rc"), "0\n") << "wlr-randr was told it applied";
  ASSERT_TRUE(run_client(
      h, "wlr-randr --output " + name + " --pos 100000,-2000 > " + dir + "/near.txt 2>&1",
      dir + "/done2"));
  wlr_output_layout_get_box(h.server().output_layout(), output, &box);
  EXPECT_EQ(box.x, 100000) << read_file(dir + "/near.txt");
  EXPECT_EQ(box.y, -2000);
}

TEST(RealClients, KanshiAppliesItsProfile) {
  REQUIRE_PROGRAM("kanshi");
  Harness h;
  wlr_output* output = h.server().outputs()[0]->wlr();
  std::string dir = scratch_dir("kanshi");
  std::string config = dir + "/kanshi.conf";
  {
    std::ofstream out(config);
    // No mode: kanshi only picks listed modes and headless outputs list none.
    out << "profile {\n  output " << output->name << " position 10,20 scale 2 transform 180\n}\n";
  }
  Result<pid_t> pid = h.server().spawn("exec kanshi -c " + config);
  ASSERT_TRUE(pid.ok());
  EXPECT_TRUE(h.run_until([&] { return output->scale == 2.0f; }, milliseconds(30000)));
  EXPECT_EQ(output->transform, WL_OUTPUT_TRANSFORM_180);
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), output, &box);
  EXPECT_EQ(box.x, 10);
  EXPECT_EQ(box.y, 20);
  kill(*pid, SIGTERM);
}

TEST(RealClients, SwaybgPaintsTheBackgroundLayer) {
  REQUIRE_PROGRAM("swaybg");
  Harness h;
  Client c(h);
  Window a(c);
  a.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return a.configure_count() >= 1; }));
  a.draw(200, 150, 0xffff0000);
  // KNOWN GAP: swaybg scales a 1x1 single-pixel buffer to the output with
  // a viewport, and under the pixman renderer the result is too dark and
  // position-dependent (#336699 reads back as #0f1f2f at (600,20), #0c1926
  // in the corner) -- a renderer-side sampling problem, not layer-shell.
  // So this checks that the wallpaper covers the background, not its colour.
  EXPECT_TRUE(h.server().spawn("exec swaybg --color '#336699'").ok());
  constexpr uint32_t kBatonBackground = 0xff292e38;
  ASSERT_TRUE(h.run_until([&] { return count_pixels(h.capture(), kBatonBackground) == 0; },
                          milliseconds(30000)));
  Image shot = h.capture();
  uint32_t p = shot.at(600, 20);
  EXPECT_TRUE(((p >> 16) & 0xff) < ((p >> 8) & 0xff) && ((p >> 8) & 0xff) < (p & 0xff))
      << std::hex << p;
  // A wallpaper stays under the windows.
  EXPECT_EQ(count_pixels(h.capture(), 0xffff0000), 200L * 150);
}

TEST(RealClients, WaybarReservesItsZoneAndIsDrawn) {
  REQUIRE_PROGRAM("waybar");
  Harness h;
  std::string dir = scratch_dir("waybar");
  // A bar 30 px high at the top, in a colour nothing else uses.
  std::ofstream(dir + "/config") << R"({
  "layer": "top", "position": "top", "height": 30,
  "modules-left": ["custom/name"], "modules-center": [], "modules-right": [],
  "custom/name": { "format": "baton" }
})";
  std::ofstream(dir + "/style.css")
      << "* { font-family: sans-serif; font-size: 12px; min-height: 0; }\n"
         "window#waybar { background-color: #ff8000; color: #000000; }\n";
  constexpr uint32_t kBar = 0xffff8000;
  Result<pid_t> pid = h.server().spawn("exec waybar -c " + dir + "/config -s " + dir +
                                       "/style.css > " + dir + "/log 2>&1");
  ASSERT_TRUE(pid.ok());
  wlr_output* output = h.server().outputs()[0]->wlr();
  ASSERT_TRUE(h.run_until([&] { return h.server().layer_shell().usable_area(output).y == 30; },
                          milliseconds(30000)))
      << "waybar reserved no 30 px zone; its log:\n"
      << read_file(dir + "/log");
  // Its pixels: the bar's colour across the top, but for its text.
  ASSERT_TRUE(h.run_until(
      [&] {
        return count_pixels(h.capture(), kBar, {0, 0, 640, 30}) > 640 * 30 * 8 / 10;
      },
      milliseconds(30000)))
      << "waybar's bar is not on the screen; its log:\n"
      << read_file(dir + "/log");
  EXPECT_EQ(count_pixels(h.capture(), kBar, {0, 30, 640, 480}), 0);

  // A window that asks to be maximized starts below the bar.
  Client c(h);
  Window a(c);
  xdg_toplevel_set_maximized(a.toplevel());
  a.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return a.configure_count() >= 1; }));
  a.draw(200, 150, 0xff2060c0);
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == 640; }));
  EXPECT_EQ(a.last_configure().height, 450);
  a.draw(640, 450, 0xff2060c0);
  View* view = nullptr;
  ASSERT_TRUE(h.run_until([&] {
    for (const auto& v : h.server().windows().views())
      if (v->mapped()) view = v.get();
    return view != nullptr;
  }));
  h.sync();
  ASSERT_TRUE(view->maximized());
  EXPECT_EQ(view->frame().y, 30);
  Image shot = h.capture();
  EXPECT_EQ(count_pixels(shot, 0xff2060c0, {0, 30, 640, 480}), 640L * 450);
  EXPECT_GT(count_pixels(shot, kBar, {0, 0, 640, 30}), 640 * 30 * 8 / 10);

  // When waybar goes, so does its zone.
  kill(*pid, SIGTERM);
  EXPECT_TRUE(h.run_until([&] { return h.server().layer_shell().usable_area(output).y == 0; },
                          milliseconds(30000)));
}

// slurp as xdg-desktop-portal-wlr runs it to ask which output to share
// (`slurp -f %o -or`): an overlay on each output, and the output clicked is
// the one it prints. Each overlay is configured once: slurp 1.4 (Debian 12's)
// draws a frame per configure and, given one while its last frame is
// pending, leaves a frame callback behind that crashes it on exit (fixed in
// slurp 1.5); baton no longer re-sends an unchanged size when a surface maps.
TEST(RealClients, SlurpPicksTheClickedOutputAndIsConfiguredOncePerOverlay) {
  REQUIRE_PROGRAM("slurp");
  Harness h(headless_options(640, 480, 2));
  Client c(h);
  VirtualPointer pointer(h, c);
  std::string dir = scratch_dir("slurp");
  for (int x : {960, 320}) {
    const Output* clicked = h.server().output_set().at(x, 240);
    ASSERT_NE(clicked, nullptr);
    pointer.move_to(x, 240, 1280, 480);
    std::remove((dir + "/done").c_str());
    // Its output, its protocol log, its exit status, then a mark that it ended.
    std::string command = "WAYLAND_DEBUG=1 slurp -f %o -or > ";
    for (const char* tail : {"/out 2> ", "/log; echo $? > ", "/rc; touch ", "/done"})
      command.append(dir).append(tail);
    ASSERT_TRUE(h.server().spawn(command).ok());
    // Until both overlays are up, then a click where the pointer stands.
    ASSERT_TRUE(h.run_until(
        [&] {
          int mapped = 0;
          for (const auto& s : h.server().layer_shell().surfaces()) mapped += s->mapped() ? 1 : 0;
          return mapped == 2;
        },
        milliseconds(30000)))
        << read_file(dir + "/log");
    pointer.button(BTN_LEFT, true);
    pointer.button(BTN_LEFT, false);
    ASSERT_TRUE(h.run_until([&] { return access((dir + "/done").c_str(), F_OK) == 0; },
                            milliseconds(30000)));
    const std::string log = read_file(dir + "/log");
    EXPECT_EQ(read_file(dir + "/rc"), "0\n") << log;
    EXPECT_EQ(read_file(dir + "/out"), clicked->wlr()->name);
    // What slurp was sent, as it logged it: one configure per overlay.
    const std::regex configure(R"(zwlr_layer_surface_v1[@#][0-9]+\.configure\()");
    const auto count = std::distance(std::sregex_iterator(log.begin(), log.end(), configure),
                                     std::sregex_iterator());
    EXPECT_EQ(count, 2) << "configure events in slurp's WAYLAND_DEBUG log";
  }
}

TEST(RealClients, ChildrenGetTheSessionEnvironment) {
  Harness h;
  std::string dir = scratch_dir("session-env");
  ASSERT_TRUE(run_client(
      h, "echo \"$WAYLAND_DISPLAY $XDG_CURRENT_DESKTOP $XDG_SESSION_TYPE\" > " + dir + "/env",
      dir + "/done"));
  EXPECT_EQ(read_file(dir + "/env"), h.server().socket_name() + " baton:wlroots wayland\n");
}

// fcitx5 (its Wayland input-method frontend, zwp_input_method_v2) with its
// Korean engine composes what the user types into foot's text-input-v3:
// the keys go through the seat's own keyboard path, fcitx5 grabs them,
// composes g k s r m f into 한글 and commits it, and passes Enter on
// through its virtual keyboard; `cat` in foot writes the line to a file.
TEST(RealClients, Fcitx5ComposesKoreanIntoFoot) {
  REQUIRE_PROGRAM("fcitx5");
  REQUIRE_PROGRAM("foot");
  if (access("/usr/share/fcitx5/addon/hangul.conf", F_OK) != 0)
    GTEST_SKIP() << "SKIPPED LOUDLY: fcitx5-hangul is not installed "
                    "(tools/deps.d/tests/desktop-clients.list)";
  Harness h;
  FakeKeyboard keyboard(h.server());
  const std::string dir = scratch_dir("fcitx5");
  const std::string config = dir + "/config";
  std::filesystem::create_directories(config + "/fcitx5");
  // Korean (2-set) the only input method, active from the start.
  std::ofstream(config + "/fcitx5/profile") << "[Groups/0]\nName=Default\nDefault Layout=us\n"
                                               "DefaultIM=hangul\n\n"
                                               "[Groups/0/Items/0]\nName=keyboard-us\nLayout=\n\n"
                                               "[Groups/0/Items/1]\nName=hangul\nLayout=\n\n"
                                               "[GroupOrder]\n0=Default\n";
  std::ofstream(config + "/fcitx5/config") << "[Behavior]\nActiveByDefault=True\n";
  const std::string env = "HOME=" + dir + " XDG_CONFIG_HOME=" + config + " XDG_DATA_HOME=" + dir +
                          "/data LC_ALL=C.UTF-8 ";
  Result<pid_t> fcitx5 = h.server().spawn(
      env + "exec fcitx5 --disable=all --enable=wayland,waylandim,hangul,keyboard > " + dir +
      "/fcitx5.log 2>&1");
  ASSERT_TRUE(fcitx5.ok());
  ASSERT_TRUE(h.run_until([&] { return h.server().seat().input_method().connected(); },
                          milliseconds(30000)))
      << "fcitx5 never bound zwp_input_method_v2 (see " << dir << "/fcitx5.log)";
  const std::string typed = dir + "/typed";
  Result<pid_t> foot = h.server().spawn(env + "exec foot sh -c 'stty -echo; cat > " + typed + "'");
  ASSERT_TRUE(foot.ok());
  ASSERT_TRUE(
      h.run_until([&] { return h.server().seat().input_method().active(); }, milliseconds(30000)))
      << "foot's text input never activated the input method";
  h.run_for(milliseconds(300));
  for (uint32_t key : {KEY_G, KEY_K, KEY_S, KEY_R, KEY_M, KEY_F, KEY_ENTER}) {
    keyboard.tap(key);
    h.run_for(milliseconds(50));
    // Mid-composition, for a person to look at: 한 committed, ㄱ in preedit.
    if (key == KEY_R) (void)write_png(dir + "/composing.png", h.capture());
  }
  EXPECT_TRUE(h.run_until([&] { return read_file(typed) == "한글\n"; }, milliseconds(30000)))
      << "foot got '" << read_file(typed) << "'";
  kill(*foot, SIGTERM);
  kill(*fcitx5, SIGTERM);
}

}  // namespace
}  // namespace baton::test
