#include "handoff/acquire_fence.hpp"

#include <utility>

#include "util/wlr.hpp"

namespace baton {
namespace {

struct AcquireFence {
  wlr_addon addon;  // first: a wlr_addon* is an AcquireFence*
  sync::SyncFile fence;
};

void destroy_addon(wlr_addon* addon);

// Both the addon's interface and its owner: there is one kind of acquire
// fence per buffer, whoever attached it.
const wlr_addon_interface kAcquireFenceAddon = {
    .name = "baton-acquire-fence",
    .destroy = destroy_addon,
};

void destroy_addon(wlr_addon* addon) {
  auto* kept = reinterpret_cast<AcquireFence*>(addon);
  wlr_addon_finish(&kept->addon);
  delete kept;
}

AcquireFence* find(wlr_buffer* buffer) {
  wlr_addon* addon = wlr_addon_find(&buffer->addons, &kAcquireFenceAddon, &kAcquireFenceAddon);
  return reinterpret_cast<AcquireFence*>(addon);
}

}  // namespace

void attach_acquire_fence(wlr_buffer* buffer, sync::SyncFile fence) {
  if (AcquireFence* kept = find(buffer)) {
    kept->fence = std::move(fence);
    return;
  }
  auto* kept = new AcquireFence{{}, std::move(fence)};
  wlr_addon_init(&kept->addon, &buffer->addons, &kAcquireFenceAddon, &kAcquireFenceAddon);
}

Result<std::optional<sync::SyncFile>> acquire_fence_of(wlr_buffer* buffer) {
  AcquireFence* kept = find(buffer);
  if (kept == nullptr) return std::optional<sync::SyncFile>{};
  auto copy = kept->fence.duplicate();
  if (!copy) return copy.error();
  return std::optional<sync::SyncFile>{std::move(*copy)};
}

}  // namespace baton
