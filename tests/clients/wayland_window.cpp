#include "tests/clients/wayland_window.hpp"

#include <poll.h>

#include <cerrno>
#include <cstring>

#include "tests/support/poll.hpp"

namespace baton::testing {
namespace {

const wl_registry_listener kRegistryListener = {
    .global =
        [](void* data, wl_registry* registry, uint32_t name, const char* interface,
           uint32_t version) {
          static_cast<WaylandWindow*>(data)->on_global(registry, name, interface, version);
        },
    .global_remove = [](void*, wl_registry*, uint32_t) {},
};

const xdg_wm_base_listener kWmBaseListener = {
    .ping = [](void*, xdg_wm_base* base, uint32_t serial) { xdg_wm_base_pong(base, serial); },
};

const xdg_surface_listener kXdgSurfaceListener = {
    .configure = [](void* data, xdg_surface*,
                    uint32_t serial) { static_cast<WaylandWindow*>(data)->on_configure(serial); },
};

const xdg_toplevel_listener kToplevelListener = {
    .configure =
        [](void* data, xdg_toplevel*, int32_t width, int32_t height, wl_array*) {
          static_cast<WaylandWindow*>(data)->on_toplevel_size(width, height);
        },
    .close = [](void*, xdg_toplevel*) {},
    .configure_bounds = [](void*, xdg_toplevel*, int32_t, int32_t) {},
    .wm_capabilities = [](void*, xdg_toplevel*, wl_array*) {},
};

const wl_callback_listener kFrameListener = {
    .done =
        [](void* data, wl_callback* callback, uint32_t) {
          wl_callback_destroy(callback);
          static_cast<WaylandWindow*>(data)->on_frame_done();
        },
};

template <typename T>
T* bind(wl_registry* registry, uint32_t name, const wl_interface* iface, uint32_t version) {
  return static_cast<T*>(wl_registry_bind(registry, name, iface, version));
}

}  // namespace

WaylandWindow::WaylandWindow(const char* title, bool fullscreen) {
  display_.reset(wl_display_connect(nullptr));
  if (!display_) {
    error_ = std::string("wl_display_connect: ") + std::strerror(errno);
    return;
  }
  registry_.reset(wl_display_get_registry(display_.get()));
  wl_registry_add_listener(registry_.get(), &kRegistryListener, this);
  wl_display_roundtrip(display_.get());
  if (!compositor_ || !wm_base_) {
    error_ = "the compositor lacks wl_compositor or xdg_wm_base";
    display_.reset();
    return;
  }
  xdg_wm_base_add_listener(wm_base_.get(), &kWmBaseListener, this);
  surface_.reset(wl_compositor_create_surface(compositor_.get()));
  xdg_surface_.reset(xdg_wm_base_get_xdg_surface(wm_base_.get(), surface_.get()));
  xdg_surface_add_listener(xdg_surface_.get(), &kXdgSurfaceListener, this);
  toplevel_.reset(xdg_surface_get_toplevel(xdg_surface_.get()));
  xdg_toplevel_add_listener(toplevel_.get(), &kToplevelListener, this);
  xdg_toplevel_set_title(toplevel_.get(), title);
  if (fullscreen) xdg_toplevel_set_fullscreen(toplevel_.get(), nullptr);
  wl_surface_commit(surface_.get());
  while (!configured_)
    if (wl_display_dispatch(display_.get()) < 0) {
      error_ = "the connection died before the first configure";
      display_.reset();
      return;
    }
}

WaylandWindow::~WaylandWindow() {
  // Proxies go before the display they live on.
  pending_feedback_.clear();
  tearing_.reset();
  tearing_manager_.reset();
  toplevel_.reset();
  xdg_surface_.reset();
  surface_.reset();
  presentation_.reset();
  syncobj_.reset();
  dmabuf_.reset();
  wm_base_.reset();
  compositor_.reset();
  registry_.reset();
}

void WaylandWindow::destroy_surface() {
  tearing_.reset();
  toplevel_.reset();
  xdg_surface_.reset();
  surface_.reset();
  wl_display_flush(display_.get());
}

void WaylandWindow::on_global(wl_registry* registry, uint32_t name, const char* interface,
                              uint32_t version) {
  std::string_view iface = interface;
  if (iface == wl_compositor_interface.name && version >= 4)
    compositor_.reset(bind<wl_compositor>(registry, name, &wl_compositor_interface, 4));
  else if (iface == xdg_wm_base_interface.name)
    wm_base_.reset(bind<xdg_wm_base>(registry, name, &xdg_wm_base_interface, 1));
  else if (iface == zwp_linux_dmabuf_v1_interface.name && version >= 3)
    dmabuf_.reset(bind<zwp_linux_dmabuf_v1>(registry, name, &zwp_linux_dmabuf_v1_interface, 3));
  else if (iface == wl_shm_interface.name)
    shm_.reset(bind<wl_shm>(registry, name, &wl_shm_interface, 1));
  else if (iface == wp_linux_drm_syncobj_manager_v1_interface.name)
    syncobj_.reset(bind<wp_linux_drm_syncobj_manager_v1>(
        registry, name, &wp_linux_drm_syncobj_manager_v1_interface, 1));
  else if (iface == wp_presentation_interface.name)
    presentation_.reset(bind<wp_presentation>(registry, name, &wp_presentation_interface, 1));
  else if (iface == wp_tearing_control_manager_v1_interface.name)
    tearing_manager_.reset(bind<wp_tearing_control_manager_v1>(
        registry, name, &wp_tearing_control_manager_v1_interface, 1));
}

void WaylandWindow::on_configure(uint32_t serial) {
  xdg_surface_ack_configure(xdg_surface_.get(), serial);
  configured_ = true;
}

void WaylandWindow::on_frame_done() { ++frames_done_; }

void WaylandWindow::on_toplevel_size(int32_t width, int32_t height) {
  width_ = width;
  height_ = height;
}

WaylandWindow::PendingFeedback::~PendingFeedback() {
  if (proxy != nullptr) wp_presentation_feedback_destroy(proxy);
}

namespace {
// Answers the window; that destroys `pending`.
void answer(void* pending, WaylandWindow::Feedback feedback) {
  auto* p = static_cast<WaylandWindow::PendingFeedback*>(pending);
  p->window->on_feedback(p->serial, feedback);
}

const wp_presentation_feedback_listener kFeedbackListener = {
    .sync_output = [](void*, struct wp_presentation_feedback*, wl_output*) {},
    .presented =
        [](void* data, struct wp_presentation_feedback*, uint32_t sec_hi, uint32_t sec_lo,
           uint32_t nsec, uint32_t refresh, uint32_t, uint32_t, uint32_t) {
          const int64_t sec = (int64_t{sec_hi} << 32) | sec_lo;
          answer(data, {true, sec * 1'000'000'000 + nsec, refresh});
        },
    .discarded =
        [](void* data, struct wp_presentation_feedback*) {
          answer(data, {false, 0});
        },
};
}  // namespace

uint32_t WaylandWindow::commit_with_frame() {
  wl_callback* callback = wl_surface_frame(surface_.get());
  wl_callback_add_listener(callback, &kFrameListener, this);
  const uint32_t serial = ++frames_requested_;
  if (presentation_) {
    auto pending = std::make_unique<PendingFeedback>();
    pending->window = this;
    pending->serial = serial;
    pending->proxy = wp_presentation_feedback(presentation_.get(), surface_.get());
    wp_presentation_feedback_add_listener(pending->proxy, &kFeedbackListener, pending.get());
    pending_feedback_[serial] = std::move(pending);
  }
  wl_surface_commit(surface_.get());
  wl_display_flush(display_.get());
  return serial;
}

std::optional<WaylandWindow::Feedback> WaylandWindow::feedback(uint32_t serial) const {
  auto it = feedback_.find(serial);
  if (it == feedback_.end()) return std::nullopt;
  return it->second;
}

bool WaylandWindow::wait_feedback(uint32_t serial, std::chrono::milliseconds timeout) {
  return test::poll_until([&] { return feedback(serial).has_value(); }, timeout,
                          [this] { return dispatch_for(std::chrono::milliseconds(10)); });
}

bool WaylandWindow::dispatch_for(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (wl_display_dispatch_pending(display_.get()) < 0) return false;
    wl_display_flush(display_.get());
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{wl_display_get_fd(display_.get()), POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (r < 0 && errno != EINTR) return false;
    if (r > 0 && wl_display_dispatch(display_.get()) < 0) return false;
    if (r == 0) return true;
  }
}

bool WaylandWindow::wait_frame(uint32_t serial, std::chrono::milliseconds timeout) {
  // Each step waits for the next event (10 ms at most) and dispatches it.
  return test::poll_until([&] { return frame_done(serial); }, timeout,
                          [this] {
                            pollfd p{wl_display_get_fd(display_.get()), POLLIN, 0};
                            wl_display_flush(display_.get());
                            int r = poll(&p, 1, 10);
                            if (r < 0 && errno != EINTR) return false;
                            return r <= 0 || wl_display_dispatch(display_.get()) >= 0;
                          });
}

bool WaylandWindow::request_tearing() {
  if (!tearing_manager_ || !surface_) return false;
  if (!tearing_)
    tearing_.reset(
        wp_tearing_control_manager_v1_get_tearing_control(tearing_manager_.get(), surface_.get()));
  wp_tearing_control_v1_set_presentation_hint(tearing_.get(),
                                              WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC);
  return true;
}

}  // namespace baton::testing
