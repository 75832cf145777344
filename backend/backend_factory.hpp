// Picks and creates the wlroots backend baton runs on.
#pragma once

#include <string>

#include "util/result.hpp"

struct wl_event_loop;
struct wlr_backend;
struct wlr_session;

namespace baton {

enum class BackendChoice { automatic, headless, wayland, x11, drm };

struct OutputSize {
  int width = 1280;
  int height = 720;
  int refresh_mhz = 60000;
};

/// What the backend factory needs to know (compositor/config/ fills it in
/// from the command line).
struct BackendOptions {
  BackendChoice backend = BackendChoice::automatic;
  /// Headless and nested outputs made at start.
  int outputs = 1;
  OutputSize headless_size;
};

[[nodiscard]] const char* backend_name(BackendChoice choice);

struct CreatedBackend {
  wlr_backend* backend = nullptr;
  wlr_session* session = nullptr;  // only for DRM
  BackendChoice kind = BackendChoice::headless;
};

/// Resolves `auto` from the environment: nested when WAYLAND_DISPLAY or
/// DISPLAY is set, DRM when started on a VT with a GPU, headless otherwise.
[[nodiscard]] BackendChoice resolve_backend(BackendChoice requested);

/// Creates the backend and its initial outputs (headless and nested ones;
/// DRM outputs come from the hardware). An error says why it failed, and
/// what to do about it.
[[nodiscard]] Result<CreatedBackend> create_backend(wl_event_loop* loop,
                                                    const BackendOptions& options);

}  // namespace baton
