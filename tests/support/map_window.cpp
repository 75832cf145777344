#include "tests/support/map_window.hpp"

#include <gtest/gtest.h>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"
#include "util/wlr.hpp"

namespace baton::test {

View* find_view(Harness& h, const Window& window) {
  auto* surface = reinterpret_cast<wl_proxy*>(window.surface());
  uint32_t id = wl_proxy_get_id(surface);
  wl_client* client = h.server_client(wl_proxy_get_display(surface));
  for (const auto& v : h.server().windows().views()) {
    if (!v->mapped() || wl_resource_get_id(v->surface()->resource) != id) continue;
    if (client != nullptr && wl_resource_get_client(v->surface()->resource) != client) continue;
    return v.get();
  }
  return nullptr;
}

View* map_window(Harness& h, Window& window, uint32_t argb, int width, int height) {
  window.initial_commit();
  EXPECT_TRUE(h.run_until([&] { return window.configure_count() >= 1; }));
  window.draw(width, height, argb);
  View* found = nullptr;
  EXPECT_TRUE(h.run_until([&] { return (found = find_view(h, window)) != nullptr; }));
  return found;
}

}  // namespace baton::test
