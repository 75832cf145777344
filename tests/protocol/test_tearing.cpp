// tearing-control-v1: a fullscreen client's async hint is accepted and, where
// policy allows it, requested of the output; it takes effect only on
// backends that can flip without vblank (DRM with async page flips), which
// the headless backend cannot: there it stays requested but not active.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "tearing-control-v1-client-protocol.h"
#include "tests/support/client.hpp"
#include "tests/support/harness.hpp"
#include "util/owned.hpp"

namespace baton::test {
namespace {

// The client's tearing objects: the hint holds while they live, so a test
// keeps them (declared after its Client) until it has looked.
struct TearingObjects {
  Owned<wl_registry, wl_registry_destroy> registry;
  Owned<wp_tearing_control_manager_v1, wp_tearing_control_manager_v1_destroy> manager;
  Owned<wp_tearing_control_v1, wp_tearing_control_v1_destroy> tearing;
};

void bind_tearing_manager(Harness& h, Client& c, TearingObjects& g) {
  g.registry = decltype(g.registry)(wl_display_get_registry(c.display()));
  static const wl_registry_listener listener = {
      [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
        if (std::strcmp(iface, wp_tearing_control_manager_v1_interface.name) == 0)
          static_cast<TearingObjects*>(data)->manager =
              decltype(TearingObjects::manager)(static_cast<wp_tearing_control_manager_v1*>(
                  wl_registry_bind(r, name, &wp_tearing_control_manager_v1_interface, 1)));
      },
      [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(g.registry, &listener, &g);
  h.sync();
  ASSERT_NE(g.manager.get(), nullptr) << "wp_tearing_control_manager_v1 is not advertised";
}

void run_fullscreen_async_client(Harness& h, Client& c, Window& w, TearingObjects& g) {
  bind_tearing_manager(h, c, g);
  if (g.manager.get() == nullptr) return;
  g.tearing = decltype(g.tearing)(
      wp_tearing_control_manager_v1_get_tearing_control(g.manager, w.surface()));
  wp_tearing_control_v1_set_presentation_hint(g.tearing,
                                              WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC);
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() >= 1; }));
  w.draw(320, 240, 0xff204080);
  ASSERT_TRUE(h.run_until([&] {
    return !h.server().windows().views().empty() && h.server().windows().views().front()->mapped();
  }));
  xdg_toplevel_set_fullscreen(w.toplevel(), nullptr);
  ASSERT_TRUE(h.run_until([&] { return w.last_configure().width == 640; }))
      << "no fullscreen configure";
  w.draw(640, 480, 0xff204080);
  ASSERT_TRUE(h.run_until([&] { return h.server().windows().views().front()->fullscreen(); }));
  // A few redraws, as a game does.
  for (int i = 0; i < 3; ++i) {
    w.draw(640, 480, 0xff204080 + static_cast<uint32_t>(i));
    h.run_for(std::chrono::milliseconds(20));
  }
}

TEST(Tearing, AsyncHintOfAFullscreenSurfaceIsRequestedButHeadlessCannotTear) {
  Harness h;
  Client c(h);
  Window w(c);
  TearingObjects tearing;
  run_fullscreen_async_client(h, c, w, tearing);
  Output& output = *h.server().outputs().front();
  EXPECT_TRUE(output.tearing_requested());
  EXPECT_FALSE(output.tearing_active()) << "the headless backend has no vblank to skip";
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// Once its surface is destroyed, the client's tearing object is inert:
// setting a hint on it must be ignored. wlroots 0.19.2 wrote through a null
// pointer there (found by the protocol fuzzer; fixed in
// tools/sources/wlroots/0014-tearing-control-inert-hint.patch), taking every
// client down.
TEST(Tearing, AHintAfterItsSurfaceIsGoneIsIgnored) {
  Harness h;
  Client c(h);
  TearingObjects tearing;
  bind_tearing_manager(h, c, tearing);
  ASSERT_NE(tearing.manager.get(), nullptr);
  wl_surface* surface = wl_compositor_create_surface(c.compositor);
  tearing.tearing = decltype(tearing.tearing)(
      wp_tearing_control_manager_v1_get_tearing_control(tearing.manager, surface));
  wl_surface_destroy(surface);
  wp_tearing_control_v1_set_presentation_hint(tearing.tearing,
                                              WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC);
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0) << "an inert object's request is no error";

  Client other(h);
  Window w(other);
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() >= 1; }));
  w.draw(320, 240, 0xff00ff00);
  EXPECT_TRUE(h.run_until([&] {
    return !h.server().windows().views().empty() && h.server().windows().views().front()->mapped();
  })) << "baton stopped mapping windows";
}

TEST(Tearing, PolicyOffIgnoresTheHint) {
  Options options = headless_options();
  options.tearing = TearingPolicy::off;
  Harness h(options);
  Client c(h);
  Window w(c);
  TearingObjects tearing;
  run_fullscreen_async_client(h, c, w, tearing);
  EXPECT_FALSE(h.server().outputs().front()->tearing_requested());
}

}  // namespace
}  // namespace baton::test

namespace baton::test {
namespace {

std::string config_file(const std::string& text) {
  std::string path =
      std::string(BATON_BUILD_DIR) + "/tearing-" + std::to_string(text.size()) + ".toml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

TEST(Tearing, ConfigDeniesAnApplication) {
  Options options = headless_options();
  options.config_path = config_file("[games]\nno_tearing_apps = [\"org.baton.game\"]\n");
  Harness h(options);
  Client c(h);
  Window w(c);
  xdg_toplevel_set_app_id(w.toplevel(), "org.baton.game");
  TearingObjects tearing;
  run_fullscreen_async_client(h, c, w, tearing);
  EXPECT_FALSE(h.server().outputs().front()->tearing_requested());
}

TEST(Tearing, ConfigTurnsItOffForAnOutput) {
  Options options = headless_options();
  options.config_path = config_file("[[output]]\nname = \"*\"\ntearing = false\n");
  Harness h(options);
  Client c(h);
  Window w(c);
  TearingObjects tearing;
  run_fullscreen_async_client(h, c, w, tearing);
  EXPECT_FALSE(h.server().outputs().front()->tearing_requested());
}

}  // namespace
}  // namespace baton::test
