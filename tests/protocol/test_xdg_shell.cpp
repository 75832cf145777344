// xdg-shell from a real client's side: configure, ack, map, pixels, unmap.
#include <gtest/gtest.h>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "tests/support/client.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/harness.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;

bool any_view_mapped(Server& server) {
  for (const auto& v : server.windows().views())
    if (v->mapped()) return true;
  return false;
}

TEST(Globals, DesktopProtocolsAreAdvertised) {
  Harness h;
  Client c(h);
  for (const char* name :
       {"wl_compositor", "wl_subcompositor", "wl_shm", "wl_seat", "wl_output",
        "wl_data_device_manager", "xdg_wm_base", "zxdg_output_manager_v1", "wp_presentation",
        "wp_viewporter", "wp_single_pixel_buffer_manager_v1", "wp_fractional_scale_manager_v1"})
    EXPECT_TRUE(c.has_global(name)) << name << " is not advertised";
}

TEST(Globals, DmabufOnlyWhenTheRendererCanImport) {
  Harness h;  // pixman cannot import dma-bufs
  Client c(h);
  EXPECT_FALSE(h.server().advertises_dmabuf());
  EXPECT_FALSE(c.has_global("zwp_linux_dmabuf_v1"));
}

TEST(XdgShell, InitialCommitGetsAConfigure) {
  Harness h;
  Client c(h);
  Window w(c);
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() == 1; }));
  // 0x0: the client picks its own size.
  EXPECT_EQ(w.last_configure().width, 0);
  EXPECT_EQ(w.last_configure().height, 0);
}

// Games and video players ask before their first buffer: the first configure
// already has the output's size, so the first frame covers it (and can be
// scanned out as it is).
TEST(XdgShell, FullscreenAskedBeforeTheFirstCommitIsConfiguredAtTheOutputSize) {
  Harness h;
  Client c(h);
  Window w(c);
  xdg_toplevel_set_fullscreen(w.toplevel(), nullptr);
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() == 1; }));
  EXPECT_EQ(w.last_configure().width, 640);
  EXPECT_EQ(w.last_configure().height, 480);
  w.draw(640, 480, kGreen);
  ASSERT_TRUE(h.run_until([&] {
    return any_view_mapped(h.server()) && h.server().windows().views().front()->fullscreen();
  }));
  Image shown = h.capture();
  EXPECT_EQ(shown.at(0, 0), kGreen);
  EXPECT_EQ(shown.at(639, 479), kGreen);
}

TEST(XdgShell, MapShowsTheBufferCentredAndUnmapRemovesIt) {
  Harness h;
  Client c(h);
  Image empty = h.capture();
  const uint32_t background = empty.at(0, 0);
  ASSERT_NE(background, 0u);

  Window w(c);
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() == 1; }));
  w.draw(200, 150, kRed);
  ASSERT_TRUE(h.run_until([&] { return any_view_mapped(h.server()); }));
  View& view = *h.server().windows().views().front();
  EXPECT_EQ(view.x(), (640 - 200) / 2);
  EXPECT_EQ(view.y(), (480 - 150) / 2);

  Image shown = h.capture();
  EXPECT_EQ(shown.at(view.x(), view.y()), kRed);
  EXPECT_EQ(shown.at(view.x() + 199, view.y() + 149), kRed);
  EXPECT_EQ(shown.at(view.x() - 1, view.y()), background);
  EXPECT_EQ(shown.at(view.x() + 200, view.y() + 149), background);
  auto golden = compare_to_golden(shown, "xdg-toplevel-mapped");
  EXPECT_TRUE(golden.ok) << golden.message;

  w.unmap();
  ASSERT_TRUE(h.run_until([&] { return !any_view_mapped(h.server()); }));
  Image after = h.capture();
  EXPECT_EQ(after.at(320, 240), background);
  EXPECT_EQ(diff_images(after, empty, 0).pixels_over_tolerance, 0);
}

TEST(XdgShell, NewWindowsOpenBesideEachOtherNotOver) {
  Harness h;
  Client c(h);
  Window a(c);
  Window b(c);
  for (Window* w : {&a, &b}) {
    w->initial_commit();
    ASSERT_TRUE(h.run_until([&] { return w->configure_count() == 1; }));
    w->draw(200, 150, w == &a ? kRed : kGreen);
    h.sync();
  }
  ASSERT_EQ(h.server().windows().views().size(), 2u);
  View* first = h.server().windows().views()[0].get();
  View* second = h.server().windows().views()[1].get();
  // Both whole on the 640x480 output, neither covering the other.
  for (View* v : {first, second}) {
    const Rect f = v->frame();
    EXPECT_GE(f.x, 0);
    EXPECT_GE(f.y, 0);
    EXPECT_LE(f.x + f.width, 640);
    EXPECT_LE(f.y + f.height, 480);
  }
  const Rect f1 = first->frame(), f2 = second->frame();
  const bool apart = f1.x + f1.width <= f2.x || f2.x + f2.width <= f1.x ||
                     f1.y + f1.height <= f2.y || f2.y + f2.height <= f1.y;
  EXPECT_TRUE(apart) << "the second window covers the first";
}

TEST(XdgShell, TitleAndAppIdReachTheServer) {
  Harness h;
  Client c(h);
  Window w(c);
  xdg_toplevel_set_title(w.toplevel(), "Hello");
  xdg_toplevel_set_app_id(w.toplevel(), "org.baton.test");
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() == 1; }));
  ASSERT_EQ(h.server().windows().views().size(), 1u);
  EXPECT_EQ(h.server().windows().views().front()->title(), "Hello");
  EXPECT_EQ(h.server().windows().views().front()->app_id(), "org.baton.test");
}

// A client that breaks the protocol gets an error and is disconnected; others
// are not disturbed.
TEST(XdgShell, BufferBeforeConfigureIsAProtocolErrorForThatClientOnly) {
  Harness h;
  Client good(h);
  Client bad(h);
  Window bad_window(bad);
  ShmBuffer buffer(bad.shm, 10, 10, kRed);
  wl_surface_attach(bad_window.surface(), buffer.get(), 0, 0);
  wl_surface_commit(bad_window.surface());
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(bad.display()) != 0; }));
  const wl_interface* iface = nullptr;
  uint32_t id = 0;
  EXPECT_EQ(wl_display_get_protocol_error(bad.display(), &iface, &id),
            XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER);
  ASSERT_NE(iface, nullptr);
  EXPECT_STREQ(iface->name, "xdg_surface");

  Window w(good);
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() == 1; }));
  w.draw(100, 100, kGreen);
  ASSERT_TRUE(h.run_until([&] { return any_view_mapped(h.server()); }));
  EXPECT_EQ(wl_display_get_error(good.display()), 0);
}

TEST(XdgShell, ClientDisconnectDestroysItsWindows) {
  Harness h;
  auto c = std::make_unique<Client>(h);
  auto w = std::make_unique<Window>(*c);
  w->initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w->configure_count() == 1; }));
  w->draw(100, 100, kRed);
  ASSERT_TRUE(h.run_until([&] { return any_view_mapped(h.server()); }));
  wl_display* display = c->display();
  // Destroying them only queues their destroy requests, and the disconnect
  // drops that queue unsent: the server sees the client vanish with its
  // window mapped, as in a crash.
  w.reset();
  c.reset();
  h.disconnect(display);
  ASSERT_TRUE(h.run_until([&] { return h.server().windows().views().empty(); }));
  EXPECT_EQ(h.server().windows().focused(), nullptr);
}

}  // namespace
}  // namespace baton::test
