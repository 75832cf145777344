// baton-lease-client: leases a connector through wp_drm_lease_device_v1 and
// lights it with one colour by its own KMS modeset on the lease fd, as a VR
// runtime drives a headset. Prints, one line each:
//   connector NAME                 each connector the compositor offers
//   shows NAME RRGGBB WxH          the lease was granted and the modeset made
//   finished                       the compositor ended the lease
// Exits 2 when NAME is not offered, 3 when the lease is refused, 4 when the
// connection to the compositor ends while the lease is held, 1 on other
// failures; else after SECONDS (0: at SIGTERM, so that a test on a slow
// machine decides when), releasing the lease.
//
// usage: baton-lease-client NAME RRGGBB SECONDS
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drm-lease-v1-client-protocol.h"
#include "tests/clients/dumb_buffer.hpp"

namespace {

volatile sig_atomic_t g_release = 0;  // set by SIGTERM: end the lease and exit
void on_term(int) { g_release = 1; }

struct Connector {
  wp_drm_lease_connector_v1* proxy = nullptr;
  std::string name;
  uint32_t id = 0;
  bool withdrawn = false;
};

struct State {
  wp_drm_lease_device_v1* device = nullptr;
  std::vector<std::unique_ptr<Connector>> connectors;
  int lease_fd = -1;
  bool finished = false;
};

const wp_drm_lease_connector_v1_listener kConnector = {
    .name = [](void* d, wp_drm_lease_connector_v1*,
               const char* name) { static_cast<Connector*>(d)->name = name; },
    .description = [](void*, wp_drm_lease_connector_v1*, const char*) {},
    .connector_id = [](void* d, wp_drm_lease_connector_v1*,
                       uint32_t id) { static_cast<Connector*>(d)->id = id; },
    .done = [](void*, wp_drm_lease_connector_v1*) {},
    .withdrawn = [](void* d,
                    wp_drm_lease_connector_v1*) { static_cast<Connector*>(d)->withdrawn = true; },
};

const wp_drm_lease_device_v1_listener kDevice = {
    .drm_fd = [](void*, wp_drm_lease_device_v1*, int32_t fd) { close(fd); },
    .connector =
        [](void* d, wp_drm_lease_device_v1*, wp_drm_lease_connector_v1* proxy) {
          auto& c = static_cast<State*>(d)->connectors.emplace_back(std::make_unique<Connector>());
          c->proxy = proxy;
          wp_drm_lease_connector_v1_add_listener(proxy, &kConnector, c.get());
        },
    .done = [](void*, wp_drm_lease_device_v1*) {},
    .released = [](void*, wp_drm_lease_device_v1*) {},
};

const wp_drm_lease_v1_listener kLease = {
    .lease_fd = [](void* d, wp_drm_lease_v1*,
                   int32_t fd) { static_cast<State*>(d)->lease_fd = fd; },
    .finished = [](void* d, wp_drm_lease_v1*) { static_cast<State*>(d)->finished = true; },
};

const wl_registry_listener kRegistry = {
    .global =
        [](void* d, wl_registry* registry, uint32_t name, const char* interface, uint32_t) {
          auto* s = static_cast<State*>(d);
          if (std::strcmp(interface, wp_drm_lease_device_v1_interface.name) == 0 &&
              s->device == nullptr) {
            s->device = static_cast<wp_drm_lease_device_v1*>(
                wl_registry_bind(registry, name, &wp_drm_lease_device_v1_interface, 1));
            wp_drm_lease_device_v1_add_listener(s->device, &kDevice, s);
          }
        },
    .global_remove = [](void*, wl_registry*, uint32_t) {},
};

/// The modeset on the lease: the leased connector's preferred mode on the
/// leased CRTC, scanning out a dumb buffer of `rgb`.
bool light(int fd, uint32_t connector_id, uint32_t rgb,
           std::optional<baton::testing::DumbBuffer>& scanout, std::string& what) {
  drmModeRes* res = drmModeGetResources(fd);
  if (res == nullptr || res->count_crtcs < 1) {
    what = "the lease holds no CRTC";
    return false;
  }
  const uint32_t crtc = res->crtcs[0];
  drmModeFreeResources(res);
  drmModeConnector* conn = drmModeGetConnector(fd, connector_id);
  if (conn == nullptr || conn->count_modes < 1) {
    what = "the leased connector has no mode";
    if (conn != nullptr) drmModeFreeConnector(conn);
    return false;
  }
  drmModeModeInfo mode = conn->modes[0];
  for (int i = 0; i < conn->count_modes; ++i)
    if ((conn->modes[i].type & DRM_MODE_TYPE_PREFERRED) != 0) mode = conn->modes[i];
  drmModeFreeConnector(conn);
  auto buffer = baton::testing::DumbBuffer::create(fd, mode.hdisplay, mode.vdisplay);
  if (!buffer) {
    what = "dumb buffer: " + buffer.error().describe();
    return false;
  }
  buffer->fill(0xff000000 | rgb);
  uint32_t fb = 0;
  if (drmModeAddFB(fd, mode.hdisplay, mode.vdisplay, 24, 32, buffer->stride(), buffer->handle(),
                   &fb) != 0) {
    what = std::string("AddFB: ") + std::strerror(errno);
    return false;
  }
  uint32_t id = connector_id;
  if (drmModeSetCrtc(fd, crtc, fb, 0, 0, &id, 1, &mode) != 0) {
    what = std::string("SetCrtc: ") + std::strerror(errno);
    return false;
  }
  what = std::to_string(mode.hdisplay) + "x" + std::to_string(mode.vdisplay);
  scanout.emplace(std::move(*buffer));  // on screen until the lease ends
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s NAME RRGGBB SECONDS\n", argv[0]);
    return 1;
  }
  const std::string wanted = argv[1];
  const auto rgb = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 16));
  const int seconds = std::atoi(argv[3]);
  setvbuf(stdout, nullptr, _IOLBF, 0);
  struct sigaction term {};
  term.sa_handler = on_term;
  sigaction(SIGTERM, &term, nullptr);
  wl_display* display = wl_display_connect(nullptr);
  if (display == nullptr) {
    std::printf("lease-client: FAIL: no Wayland display\n");
    return 1;
  }
  State state;
  wl_registry* registry = wl_display_get_registry(display);
  wl_registry_add_listener(registry, &kRegistry, &state);
  wl_display_roundtrip(display);
  if (state.device == nullptr) {
    std::printf("lease-client: no wp_drm_lease_device_v1 is advertised\n");
    return 2;
  }
  wl_display_roundtrip(display);
  Connector* target = nullptr;
  for (const auto& c : state.connectors) {
    std::printf("connector %s\n", c->name.c_str());
    if (c->name == wanted && !c->withdrawn) target = c.get();
  }
  if (target == nullptr) {
    std::printf("lease-client: no connector %s is offered\n", wanted.c_str());
    return 2;
  }
  wp_drm_lease_request_v1* request = wp_drm_lease_device_v1_create_lease_request(state.device);
  wp_drm_lease_request_v1_request_connector(request, target->proxy);
  wp_drm_lease_v1* lease = wp_drm_lease_request_v1_submit(request);
  wp_drm_lease_v1_add_listener(lease, &kLease, &state);
  while (state.lease_fd < 0 && !state.finished && wl_display_dispatch(display) >= 0) {
  }
  if (state.lease_fd < 0) {
    std::printf("lease-client: the lease of %s was refused\n", wanted.c_str());
    return 3;
  }
  std::string what;
  std::optional<baton::testing::DumbBuffer> scanout;
  if (!light(state.lease_fd, target->id, rgb, scanout, what)) {
    std::printf("lease-client: FAIL: %s\n", what.c_str());
    return 1;
  }
  std::printf("shows %s %06x %s\n", wanted.c_str(), rgb, what.c_str());
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool connection_lost = false;
  while (!state.finished && g_release == 0 &&
         (seconds == 0 || std::chrono::steady_clock::now() < end)) {
    wl_display_flush(display);
    pollfd pfd{wl_display_get_fd(display), POLLIN, 0};
    if (poll(&pfd, 1, 100) > 0 && wl_display_dispatch(display) < 0) {
      // Said, so that a lease that ends early in a test shows why.
      const wl_interface* interface = nullptr;
      uint32_t id = 0;
      const uint32_t code = wl_display_get_protocol_error(display, &interface, &id);
      std::printf("lease-client: the connection ended early: %s (protocol error %u on %s@%u)\n",
                  std::strerror(wl_display_get_error(display)), code,
                  interface != nullptr ? interface->name : "nothing", id);
      connection_lost = true;
      break;
    }
  }
  if (state.finished) std::printf("finished\n");
  wp_drm_lease_v1_destroy(lease);
  scanout.reset();
  close(state.lease_fd);
  wl_display_roundtrip(display);
  wl_display_disconnect(display);
  return connection_lost ? 4 : 0;
}
