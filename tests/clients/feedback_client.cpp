// baton-feedback-client: what linux-dmabuf v4+ feedback a surface gets,
// windowed and fullscreen.
//
// It binds zwp_linux_dmabuf_v1 (v4 or more), reads the default feedback and
// its surface's feedback, maps a wl_shm window, goes fullscreen, then
// windowed again, and after each step waits for the surface feedback the
// step should bring:
//   --expect scanout DRIVER: fullscreen brings a first tranche flagged
//     scanout, on DRIVER's card, whose pairs are exactly the primary plane's
//     IN_FORMATS (read here from the card with libdrm) that the default
//     feedback also offers (baton offers what it can also composite); the
//     pairs of IN_FORMATS left out are printed. Windowed again: the default.
//   --expect none: the surface feedback never has a scanout tranche
//     (headless and nested outputs), fullscreen or not.
// exit: 0 as expected; 1 otherwise; 77 no linux-dmabuf v4+.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "linux-dmabuf-v1-client-protocol.h"
#include "tests/clients/dmabuf_feedback.hpp"
#include "tests/clients/drm_node.hpp"
#include "util/unique_fd.hpp"
#include "xdg-shell-client-protocol.h"

namespace baton::testing {
namespace {

using namespace std::chrono_literals;
// The primary plane's IN_FORMATS on `driver`'s card, and the card's device.
struct PlaneFormats {
  Pairs pairs;
  dev_t card = 0;
  std::string error;
};

PlaneFormats read_in_formats(std::string_view driver) {
  PlaneFormats out;
  auto card = open_drm_node(driver, NodeKind::primary);
  if (!card) return {{}, 0, "no " + std::string(driver) + " card: " + card.error().describe()};
  struct stat st {};
  fstat(card->get(), &st);
  out.card = st.st_rdev;
  drmSetClientCap(card->get(), DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
  drmModePlaneRes* planes = drmModeGetPlaneResources(card->get());
  if (planes == nullptr) return {{}, 0, "drmModeGetPlaneResources failed"};
  int primaries = 0;
  for (uint32_t i = 0; i < planes->count_planes; ++i) {
    drmModeObjectProperties* props =
        drmModeObjectGetProperties(card->get(), planes->planes[i], DRM_MODE_OBJECT_PLANE);
    if (props == nullptr) continue;
    bool primary = false;
    uint64_t blob_id = 0;
    for (uint32_t p = 0; p < props->count_props; ++p) {
      drmModePropertyRes* prop = drmModeGetProperty(card->get(), props->props[p]);
      if (prop == nullptr) continue;
      if (std::strcmp(prop->name, "type") == 0)
        primary = props->prop_values[p] == DRM_PLANE_TYPE_PRIMARY;
      if (std::strcmp(prop->name, "IN_FORMATS") == 0) blob_id = props->prop_values[p];
      drmModeFreeProperty(prop);
    }
    drmModeFreeObjectProperties(props);
    if (!primary) continue;
    ++primaries;
    drmModePropertyBlobRes* blob =
        drmModeGetPropertyBlob(card->get(), static_cast<uint32_t>(blob_id));
    if (blob == nullptr) {
      out.error = "the primary plane has no IN_FORMATS";
      continue;
    }
    drmModeFormatModifierIterator iter{};
    while (drmModeFormatModifierBlobIterNext(blob, &iter)) out.pairs.emplace(iter.fmt, iter.mod);
    drmModeFreePropertyBlob(blob);
  }
  drmModeFreePlaneResources(planes);
  if (primaries != 1 && out.error.empty())
    out.error = std::to_string(primaries) + " primary planes: this test expects one output";
  return out;
}

class Client {
 public:
  int run(std::optional<std::string> scanout_driver) {
    display_ = wl_display_connect(nullptr);
    if (display_ == nullptr) return fail("cannot connect");
    static const wl_registry_listener kRegistry = {
        .global =
            [](void* data, wl_registry* registry, uint32_t name, const char* interface,
               uint32_t version) {
              auto* self = static_cast<Client*>(data);
              std::string_view i = interface;
              if (i == wl_compositor_interface.name)
                self->compositor_ = static_cast<wl_compositor*>(
                    wl_registry_bind(registry, name, &wl_compositor_interface, 4));
              else if (i == wl_shm_interface.name)
                self->shm_ =
                    static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
              else if (i == xdg_wm_base_interface.name)
                self->wm_base_ = static_cast<xdg_wm_base*>(
                    wl_registry_bind(registry, name, &xdg_wm_base_interface, 1));
              else if (i == zwp_linux_dmabuf_v1_interface.name && version >= 4)
                self->dmabuf_ = static_cast<zwp_linux_dmabuf_v1*>(wl_registry_bind(
                    registry, name, &zwp_linux_dmabuf_v1_interface, std::min(version, 5u)));
            },
        .global_remove = [](void*, wl_registry*, uint32_t) {},
    };
    wl_registry* registry = wl_display_get_registry(display_);
    wl_registry_add_listener(registry, &kRegistry, this);
    wl_display_roundtrip(display_);
    if (dmabuf_ == nullptr) {
      std::printf("feedback-client: SKIP: no zwp_linux_dmabuf_v1 of version 4 or more\n");
      return 77;
    }
    if (compositor_ == nullptr || shm_ == nullptr || wm_base_ == nullptr)
      return fail("missing wl_compositor, wl_shm or xdg_wm_base");
    static const xdg_wm_base_listener kPing = {
        .ping = [](void*, xdg_wm_base* base, uint32_t serial) { xdg_wm_base_pong(base, serial); },
    };
    xdg_wm_base_add_listener(wm_base_, &kPing, nullptr);

    surface_ = wl_compositor_create_surface(compositor_);
    zwp_linux_dmabuf_feedback_v1_add_listener(zwp_linux_dmabuf_v1_get_default_feedback(dmabuf_),
                                              &kFeedbackListener, &default_);
    zwp_linux_dmabuf_feedback_v1_add_listener(
        zwp_linux_dmabuf_v1_get_surface_feedback(dmabuf_, surface_), &kFeedbackListener,
        &surface_feedback_);
    xdg_surface* xdg = xdg_wm_base_get_xdg_surface(wm_base_, surface_);
    static const xdg_surface_listener kXdgSurface = {
        .configure =
            [](void* data, xdg_surface* s, uint32_t serial) {
              xdg_surface_ack_configure(s, serial);
              ++static_cast<Client*>(data)->configures_;
            },
    };
    xdg_surface_add_listener(xdg, &kXdgSurface, this);
    toplevel_ = xdg_surface_get_toplevel(xdg);
    static const xdg_toplevel_listener kToplevel = {
        .configure =
            [](void* data, xdg_toplevel*, int32_t w, int32_t h, wl_array*) {
              auto* self = static_cast<Client*>(data);
              self->width_ = w > 0 ? w : 256;
              self->height_ = h > 0 ? h : 256;
            },
        .close = [](void*, xdg_toplevel*) {},
        .configure_bounds = [](void*, xdg_toplevel*, int32_t, int32_t) {},
        .wm_capabilities = [](void*, xdg_toplevel*, wl_array*) {},
    };
    xdg_toplevel_add_listener(toplevel_, &kToplevel, this);
    xdg_toplevel_set_title(toplevel_, "baton-feedback-client");
    wl_surface_commit(surface_);
    if (!dispatch_until(
            [&] { return configures_ >= 1 && default_.dones >= 1 && surface_feedback_.dones >= 1; },
            30s))
      return fail("no configure or no feedback");
    const Pairs defaults = all_pairs(default_);
    std::printf("feedback-client: default feedback: %zu tranche(s), %zu pairs\n",
                default_.tranches.size(), defaults.size());
    if (surface_feedback_.has_scanout()) return fail("a scanout tranche before the window mapped");
    if (int r = draw(); r != 0) return r;

    // Fullscreen.
    const int before = surface_feedback_.dones;
    const int configured = configures_;
    xdg_toplevel_set_fullscreen(toplevel_, nullptr);
    wl_surface_commit(surface_);
    if (!dispatch_until([&] { return configures_ > configured; }, 30s))
      return fail("no configure for fullscreen");
    if (int r = draw(); r != 0) return r;
    if (!scanout_driver) {
      // Nothing may come: give it a few frames' time.
      dispatch_until([] { return false; }, 3s);
      if (surface_feedback_.has_scanout())
        return fail("a scanout tranche on an output that cannot scan out");
      std::printf("feedback-client: fullscreen: no scanout tranche (%d surface feedbacks)\n",
                  surface_feedback_.dones);
    } else {
      if (!dispatch_until(
              [&] { return surface_feedback_.dones > before && surface_feedback_.has_scanout(); },
              30s))
        return fail("fullscreen brought no scanout tranche within 30 s");
      if (int r = check_scanout(*scanout_driver, defaults); r != 0) return r;
    }

    // Windowed again: the default.
    const int fullscreen_dones = surface_feedback_.dones;
    const int fullscreen_configures = configures_;
    xdg_toplevel_unset_fullscreen(toplevel_);
    wl_surface_commit(surface_);
    if (!dispatch_until([&] { return configures_ > fullscreen_configures; }, 30s))
      return fail("no configure for windowed");
    if (int r = draw(); r != 0) return r;
    if (scanout_driver && !dispatch_until(
                              [&] {
                                return surface_feedback_.dones > fullscreen_dones &&
                                       !surface_feedback_.has_scanout();
                              },
                              30s))
      return fail("windowed again, the scanout tranche stayed");
    if (surface_feedback_.has_scanout()) return fail("windowed, a scanout tranche");
    if (all_pairs(surface_feedback_) != defaults ||
        surface_feedback_.tranches.size() != default_.tranches.size())
      return fail("windowed again, the surface feedback is not the default");
    std::printf("feedback-client: windowed again: the default feedback (%zu pairs)\n",
                defaults.size());
    std::printf("feedback-client: PASS\n");
    return 0;
  }

 private:
  static Pairs all_pairs(const Feedback& f) {
    Pairs out;
    for (const Tranche& t : f.tranches) out.insert(t.pairs.begin(), t.pairs.end());
    return out;
  }

  int check_scanout(const std::string& driver, const Pairs& defaults) {
    const Tranche& scanout = surface_feedback_.tranches[0];
    const PlaneFormats plane = read_in_formats(driver);
    if (!plane.error.empty()) return fail(plane.error);
    Pairs expected, left_out;
    for (const Pair& p : plane.pairs) (defaults.count(p) ? expected : left_out).insert(p);
    std::printf("feedback-client: fullscreen: scanout tranche of %zu pairs:%s\n",
                scanout.pairs.size(), describe(scanout.pairs).c_str());
    std::printf("feedback-client: %s primary plane IN_FORMATS: %zu pairs:%s\n", driver.c_str(),
                plane.pairs.size(), describe(plane.pairs).c_str());
    std::printf("feedback-client: IN_FORMATS pairs the renderer does not import (left out):%s\n",
                describe(left_out).c_str());
    if (scanout.target != plane.card) return fail("the scanout tranche names another device");
    if (scanout.pairs != expected) return fail("the scanout tranche is not IN_FORMATS as imported");
    if (surface_feedback_.tranches.size() < 2 || all_pairs(surface_feedback_) != defaults)
      return fail("the renderer's tranche does not follow the scanout tranche");
    std::printf("feedback-client: the scanout tranche equals IN_FORMATS%s\n",
                left_out.empty() ? "" : " less the pairs left out");
    return 0;
  }

  // A new wl_shm buffer of the configured size, committed with a frame callback.
  int draw() {
    const int32_t stride = width_ * 4;
    const size_t size = static_cast<size_t>(stride) * static_cast<size_t>(height_);
    UniqueFd memfd(memfd_create("feedback-client", MFD_CLOEXEC));
    if (!memfd || ftruncate(memfd.get(), static_cast<off_t>(size)) != 0)
      return fail("memfd for a wl_shm buffer");
    wl_shm_pool* pool = wl_shm_create_pool(shm_, memfd.get(), static_cast<int32_t>(size));
    wl_buffer* buffer =
        wl_shm_pool_create_buffer(pool, 0, width_, height_, stride, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    wl_surface_attach(surface_, buffer, 0, 0);
    wl_surface_damage_buffer(surface_, 0, 0, width_, height_);
    bool done = false;
    static const wl_callback_listener kFrame = {
        .done =
            [](void* data, wl_callback* cb, uint32_t) {
              *static_cast<bool*>(data) = true;
              wl_callback_destroy(cb);
            },
    };
    wl_callback_add_listener(wl_surface_frame(surface_), &kFrame, &done);
    wl_surface_commit(surface_);
    if (!dispatch_until([&] { return done; }, 60s)) return fail("a frame was never shown");
    return 0;  // the buffer stays with the connection
  }

  bool dispatch_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= end) return false;
      wl_display_flush(display_);
      pollfd p{wl_display_get_fd(display_), POLLIN, 0};
      if (poll(&p, 1, 50) > 0 && wl_display_dispatch(display_) < 0) return false;
      if (wl_display_dispatch_pending(display_) < 0) return false;
    }
    return true;
  }

  int fail(const std::string& why) {
    std::printf("feedback-client: FAIL: %s\n", why.c_str());
    return 1;
  }

  wl_display* display_ = nullptr;
  wl_compositor* compositor_ = nullptr;
  wl_shm* shm_ = nullptr;
  xdg_wm_base* wm_base_ = nullptr;
  zwp_linux_dmabuf_v1* dmabuf_ = nullptr;
  wl_surface* surface_ = nullptr;
  xdg_toplevel* toplevel_ = nullptr;
  Feedback default_, surface_feedback_;
  int configures_ = 0;
  int32_t width_ = 256, height_ = 256;
};

}  // namespace
}  // namespace baton::testing

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::optional<std::string> driver;
  if (argc == 4 && std::string_view(argv[1]) == "--expect" &&
      std::string_view(argv[2]) == "scanout")
    driver = argv[3];
  else if (!(argc == 3 && std::string_view(argv[1]) == "--expect" &&
             std::string_view(argv[2]) == "none")) {
    std::fprintf(stderr, "usage: %s --expect scanout DRIVER | --expect none\n", argv[0]);
    return 2;
  }
  return baton::testing::Client().run(driver);
}
