// The clipboard is shared between Wayland and X11 clients: a Wayland copy
// pastes in X11 (xclip), and an X11 copy pastes in a Wayland client. As a
// user does it: copy in one window, focus the other, paste. (X11 clients
// may touch the clipboard only while an X11 window has focus.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/xwayland.hpp"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;

struct Clipboard {
  Owned<wl_registry, wl_registry_destroy> registry;
  Owned<wl_data_device_manager, wl_data_device_manager_destroy> manager;
  Owned<wl_data_device, wl_data_device_release> device;
  // Every offer the server introduced; `selection` is one of them (or null).
  std::vector<Owned<wl_data_offer, wl_data_offer_destroy>> offers;
  wl_data_offer* selection = nullptr;
  std::string offered_text;  // what our own source hands out
};

class ClipboardTest : public ::testing::Test {
 protected:
  ClipboardTest() : h(options()), keyboard(h.server()), c(h), window(c) {}
  static Options options() {
    Options o = headless_options();
    o.xwayland = XwaylandMode::eager;
    return o;
  }

  void SetUp() override {
    ASSERT_TRUE(h.run_until([&] { return h.server().xwayland() && h.server().xwayland()->ready(); },
                            milliseconds(10000)));
    clip.registry = decltype(clip.registry)(wl_display_get_registry(c.display()));
    static const wl_registry_listener listener = {
        [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
          if (std::strcmp(iface, wl_data_device_manager_interface.name) == 0)
            static_cast<Clipboard*>(data)->manager =
                decltype(Clipboard::manager)(static_cast<wl_data_device_manager*>(
                    wl_registry_bind(r, name, &wl_data_device_manager_interface, 3)));
        },
        [](void*, wl_registry*, uint32_t) {}};
    wl_registry_add_listener(clip.registry, &listener, &clip);
    h.sync();
    ASSERT_NE(clip.manager.get(), nullptr);
    clip.device =
        decltype(clip.device)(wl_data_device_manager_get_data_device(clip.manager, c.seat));
    static const wl_data_device_listener device_listener = {
        [](void* data, wl_data_device*, wl_data_offer* offer) {  // data_offer
          static_cast<Clipboard*>(data)->offers.emplace_back(offer);
        },
        [](void*, wl_data_device*, uint32_t, wl_surface*, wl_fixed_t, wl_fixed_t, wl_data_offer*) {
        },                                                                // enter
        [](void*, wl_data_device*) {},                                    // leave
        [](void*, wl_data_device*, uint32_t, wl_fixed_t, wl_fixed_t) {},  // motion
        [](void*, wl_data_device*) {},                                    // drop
        [](void* data, wl_data_device*, wl_data_offer* offer) {
          static_cast<Clipboard*>(data)->selection = offer;
        },
    };
    wl_data_device_add_listener(clip.device, &device_listener, &clip);
    // The selection goes to the client with keyboard focus.
    xdg_toplevel_set_app_id(window.toplevel(), "WaylandClipboardApp");
    window.initial_commit();
    ASSERT_TRUE(h.run_until([&] { return window.configure_count() == 1; }));
    window.draw(100, 100, 0xff336699);
    ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == window.surface(); }));
  }

  /// Maps an X11 window, which takes keyboard focus.
  View* focus_x11_window() {
    const char* exe = std::getenv("BATON_X11_WINDOW");
    if (exe == nullptr) throw std::runtime_error("BATON_X11_WINDOW is not set");
    EXPECT_TRUE(h.server().spawn(std::string(exe) + " --class ClipboardApp").ok());
    View* x11 = nullptr;
    h.run_until(
        [&] {
          for (const auto& v : h.server().windows().views())
            if (v->mapped() && v->app_id() == "ClipboardApp") x11 = v.get();
          return x11 != nullptr && h.server().windows().focused() == x11;
        },
        milliseconds(10000));
    return x11;
  }
  View* wayland_view() {
    for (const auto& v : h.server().windows().views())
      if (v->app_id() == "WaylandClipboardApp") return v.get();
    return nullptr;
  }

  Harness h;
  FakeKeyboard keyboard;
  Client c;
  Window window;
  Clipboard clip;
};

TEST_F(ClipboardTest, WaylandCopyPastesInX11) {
  clip.offered_text = "copied on wayland";
  Owned<wl_data_source, wl_data_source_destroy> source(
      wl_data_device_manager_create_data_source(clip.manager));
  static const wl_data_source_listener source_listener = {
      [](void*, wl_data_source*, const char*) {},  // target
      [](void* data, wl_data_source*, const char*, int32_t fd) {
        const std::string& text = static_cast<Clipboard*>(data)->offered_text;
        ssize_t written = write(fd, text.data(), text.size());
        (void)written;
        close(fd);
      },
      [](void*, wl_data_source*) {},  // cancelled
      [](void*, wl_data_source*) {},
      [](void*, wl_data_source*) {},
      [](void*, wl_data_source*, uint32_t) {}};
  wl_data_source_add_listener(source, &source_listener, &clip);
  wl_data_source_offer(source, "text/plain;charset=utf-8");
  wl_data_source_offer(source, "text/plain");
  wl_data_device_set_selection(clip.device, source, c.keyboard_enter_serial);
  h.sync();

  ASSERT_NE(focus_x11_window(), nullptr);
  std::string out = scratch_dir("clipboard-to-x11") + "/pasted.txt";
  EXPECT_TRUE(h.server().spawn("xclip -o -selection clipboard > " + out).ok());
  ASSERT_TRUE(h.run_until([&] { return read_file(out) == clip.offered_text; }, milliseconds(10000)))
      << "xclip pasted '" << read_file(out) << "'";
}

TEST_F(ClipboardTest, X11CopyPastesInWayland) {
  ASSERT_NE(focus_x11_window(), nullptr);
  EXPECT_TRUE(h.server().spawn("printf 'copied on x11' | xclip -i -selection clipboard").ok());
  h.run_for(milliseconds(500));  // xclip takes ownership of CLIPBOARD
  h.server().windows().focus(wayland_view());
  ASSERT_TRUE(h.run_until([&] { return clip.selection != nullptr; }, milliseconds(10000)))
      << "no selection offer reached the focused Wayland client";
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  wl_data_offer_receive(clip.selection, "text/plain;charset=utf-8", fds[1]);
  close(fds[1]);
  std::string pasted;
  bool eof = false;
  h.run_until(
      [&] {
        char buffer[256];
        ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n > 0) pasted.append(buffer, static_cast<size_t>(n));
        if (n == 0) eof = true;
        return eof;
      },
      milliseconds(10000));
  close(fds[0]);
  EXPECT_TRUE(eof);
  EXPECT_EQ(pasted, "copied on x11");
}

}  // namespace
}  // namespace baton::test
