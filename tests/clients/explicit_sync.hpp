// The explicit-sync side of a test producer: an acquire and a release
// timeline on virtio-gpu's render node, imported into the compositor through
// linux-drm-syncobj-v1, and the window's syncobj surface.
#pragma once

#include <optional>
#include <string>

#include "sync/timeline.hpp"
#include "tests/clients/wayland_window.hpp"

namespace baton::testing {

struct ExplicitSync {
  std::optional<sync::Timeline> acquire, release;
  SyncobjTimeline wl_acquire, wl_release;
  SyncobjSurface surface;
};

/// Fills `out` for `window`. Returns why it failed, or an empty string.
/// Acquire and release points live on separate timelines: a timeline's points
/// are ordered, so on a shared one a later acquire point would make an
/// unsignalled release point look signalled.
std::string make_explicit_sync(WaylandWindow& window, ExplicitSync& out);

}  // namespace baton::testing
