// The Wayland side of a test producer: the connection, the globals a dma-buf
// producer binds, one xdg_toplevel and frame callbacks. Every proxy is owned
// (WlPtr), so an early return cleans up.
#pragma once

#include <wayland-client.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "tearing-control-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

namespace baton::testing {

// Destroys a proxy with its protocol's destructor request. (The scanner's
// destroy functions are static inline, so they cannot be template arguments.)
struct WlDestroy {
  void operator()(wl_registry* p) const { wl_registry_destroy(p); }
  void operator()(wl_compositor* p) const { wl_compositor_destroy(p); }
  void operator()(wl_surface* p) const { wl_surface_destroy(p); }
  void operator()(wl_buffer* p) const { wl_buffer_destroy(p); }
  void operator()(xdg_wm_base* p) const { xdg_wm_base_destroy(p); }
  void operator()(xdg_surface* p) const { xdg_surface_destroy(p); }
  void operator()(xdg_toplevel* p) const { xdg_toplevel_destroy(p); }
  void operator()(zwp_linux_dmabuf_v1* p) const { zwp_linux_dmabuf_v1_destroy(p); }
  void operator()(wl_shm* p) const { wl_shm_destroy(p); }
  void operator()(wp_presentation* p) const { wp_presentation_destroy(p); }
  void operator()(wp_tearing_control_manager_v1* p) const {
    wp_tearing_control_manager_v1_destroy(p);
  }
  void operator()(wp_tearing_control_v1* p) const { wp_tearing_control_v1_destroy(p); }
  void operator()(wp_linux_drm_syncobj_manager_v1* p) const {
    wp_linux_drm_syncobj_manager_v1_destroy(p);
  }
  void operator()(wp_linux_drm_syncobj_timeline_v1* p) const {
    wp_linux_drm_syncobj_timeline_v1_destroy(p);
  }
  void operator()(wp_linux_drm_syncobj_surface_v1* p) const {
    wp_linux_drm_syncobj_surface_v1_destroy(p);
  }
};
template <typename T>
using WlPtr = std::unique_ptr<T, WlDestroy>;

using WlBuffer = WlPtr<wl_buffer>;
using SyncobjTimeline = WlPtr<wp_linux_drm_syncobj_timeline_v1>;
using SyncobjSurface = WlPtr<wp_linux_drm_syncobj_surface_v1>;

class WaylandWindow {
 public:
  /// Connects (WAYLAND_DISPLAY), binds globals, makes a toplevel titled
  /// `title` and waits for its first configure. On failure error() says why and display() is null.
  /// `fullscreen`: asked for before the first configure, which then has its size.
  explicit WaylandWindow(const char* title, bool fullscreen = false);
  ~WaylandWindow();
  WaylandWindow(const WaylandWindow&) = delete;
  WaylandWindow& operator=(const WaylandWindow&) = delete;

  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] wl_display* display() const { return display_.get(); }
  [[nodiscard]] wl_surface* surface() const { return surface_.get(); }
  [[nodiscard]] zwp_linux_dmabuf_v1* dmabuf() const { return dmabuf_.get(); }
  [[nodiscard]] wl_shm* shm() const { return shm_.get(); }
  [[nodiscard]] wp_linux_drm_syncobj_manager_v1* syncobj() const { return syncobj_.get(); }
  /// tearing-control's async hint on the surface, from its next commit;
  /// false when the compositor has no wp_tearing_control_manager_v1.
  bool request_tearing();

  /// Commits with a frame callback (and presentation feedback, where the
  /// compositor offers wp_presentation); returns its serial for wait_frame().
  uint32_t commit_with_frame();
  /// What wp_presentation said of commit `serial`: shown (when, in the
  /// presentation clock's nanoseconds) or discarded. Nothing until it said.
  struct Feedback {
    bool presented = false;
    int64_t when_ns = 0;
    int64_t refresh_ns = 0;  // the output's refresh period (0: unknown)
  };
  [[nodiscard]] std::optional<Feedback> feedback(uint32_t serial) const;
  /// Dispatches until commit `serial` has its feedback, up to `timeout`.
  bool wait_feedback(uint32_t serial, std::chrono::milliseconds timeout);
  [[nodiscard]] bool has_presentation() const { return presentation_ != nullptr; }
  /// Dispatches until the frame callback of commit `serial` is done, up to
  /// `timeout`. False on timeout or a dead connection.
  bool wait_frame(uint32_t serial, std::chrono::milliseconds timeout);
  [[nodiscard]] bool frame_done(uint32_t serial) const { return frames_done_ >= serial; }
  /// Dispatches whatever arrives within `timeout` (non-blocking with 0).
  bool dispatch_for(std::chrono::milliseconds timeout);
  /// The size of the last toplevel configure (0: the client picks).
  [[nodiscard]] int32_t width() const { return width_; }
  [[nodiscard]] int32_t height() const { return height_; }
  /// Destroys the toplevel and its wl_surface (the window closes), keeping
  /// the connection.
  void destroy_surface();

  // Registry and xdg callbacks (static trampolines need them public).
  void on_global(wl_registry* registry, uint32_t name, const char* interface, uint32_t version);
  void on_configure(uint32_t serial);
  void on_frame_done();
  void on_feedback(uint32_t serial, Feedback feedback) {
    feedback_[serial] = feedback;
    pending_feedback_.erase(serial);
  }
  struct PendingFeedback {
    WaylandWindow* window = nullptr;
    uint32_t serial = 0;
    struct wp_presentation_feedback* proxy = nullptr;
    PendingFeedback() = default;
    ~PendingFeedback();
    PendingFeedback(const PendingFeedback&) = delete;
    PendingFeedback& operator=(const PendingFeedback&) = delete;
  };
  void on_toplevel_size(int32_t width, int32_t height);

 private:
  struct DisplayDeleter {
    void operator()(wl_display* d) const { wl_display_disconnect(d); }
  };
  std::unique_ptr<wl_display, DisplayDeleter> display_;
  WlPtr<wl_registry> registry_;
  WlPtr<wl_compositor> compositor_;
  WlPtr<xdg_wm_base> wm_base_;
  WlPtr<zwp_linux_dmabuf_v1> dmabuf_;
  WlPtr<wl_shm> shm_;
  WlPtr<wp_linux_drm_syncobj_manager_v1> syncobj_;
  WlPtr<wp_presentation> presentation_;
  WlPtr<wp_tearing_control_manager_v1> tearing_manager_;
  WlPtr<wl_surface> surface_;
  WlPtr<wp_tearing_control_v1> tearing_;
  WlPtr<xdg_surface> xdg_surface_;
  WlPtr<xdg_toplevel> toplevel_;
  bool configured_ = false;
  int32_t width_ = 0, height_ = 0;
  uint32_t frames_requested_ = 0;
  uint32_t frames_done_ = 0;
  std::map<uint32_t, Feedback> feedback_;
  std::map<uint32_t, std::unique_ptr<PendingFeedback>> pending_feedback_;
  std::string error_;
};

}  // namespace baton::testing
