#include "protocols/syncobj_surface.hpp"

#include <new>

#include "handoff/acquire_fence.hpp"
#include "linux-drm-syncobj-v1-server-protocol.h"
#include "util/log.hpp"

namespace baton {
namespace {

// A commit that will never be shown (its surface died while it was held, or a
// later commit replaced it before it applied) still owes its producer the
// release point: baton never read its buffer, so the point follows the
// acquire point, on the GPU (the acquire fence is moved into the release
// point), or at once when the acquire point has no fence yet.
void release_unshown(SyncobjPoints& points) {
  if (!points.release_timeline) return;
  Status released = failure("release", "no acquire point");
  if (points.acquire_timeline)
    released = points.release_timeline->transfer_from(
        points.release_point, *points.acquire_timeline, points.acquire_point);
  if (!released) {
    if (Status s = points.release_timeline->signal(points.release_point); !s)
      LOG_ERROR("linux-drm-syncobj: release point of an unshown commit: %s",
                s.error().describe().c_str());
  }
  points.release_timeline.reset();
}

void init_points(void* state) { new (state) SyncobjPoints(); }
void finish_points(void* state) {
  auto* points = static_cast<SyncobjPoints*>(state);
  release_unshown(*points);
  points->~SyncobjPoints();
}
void move_points(void* dst, void* src) {
  // Each commit carries only the points set for it: the source is left empty.
  // What the destination still holds was never shown (an applied commit
  // hands its release point on in SyncobjSurface::applied).
  auto* to = static_cast<SyncobjPoints*>(dst);
  release_unshown(*to);
  *to = std::move(*static_cast<SyncobjPoints*>(src));
  *static_cast<SyncobjPoints*>(src) = SyncobjPoints();
}

const wlr_surface_synced_impl kSyncedImpl = {
    .state_size = sizeof(SyncobjPoints),
    .init_state = init_points,
    .finish_state = finish_points,
    .move_state = move_points,
};

// The surface goes: its destroy signal (which frees the SyncobjSurface and
// with it the addon) runs before wlroots finishes the addons, so this only
// unhooks.
const wlr_addon_interface kAddonImpl = {
    .name = "baton_syncobj_surface",
    .destroy =
        [](wlr_addon* addon) {
          wlr_addon_finish(addon);
          // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): Addon starts with it
          reinterpret_cast<SyncobjSurface::Addon*>(addon)->owner = nullptr;
        },
};

std::shared_ptr<sync::Timeline> timeline_of(wl_resource* timeline) {
  return static_cast<TimelineResource*>(wl_resource_get_user_data(timeline))->timeline;
}

}  // namespace

SyncobjSurface::SyncobjSurface(LinuxDrmSyncobj& manager, wl_resource* resource,
                               wlr_surface* surface)
    : manager_(manager), resource_(resource), surface_(surface) {
  // Cannot fail here: wlroots allocates only for cached states, and a new
  // syncobj surface on a surface with a held commit gets that too.
  if (!wlr_surface_synced_init(&synced_, surface, &kSyncedImpl, pending_storage_,
                               current_storage_)) {
    new (pending_storage_) SyncobjPoints();
    new (current_storage_) SyncobjPoints();
    synced_.surface = nullptr;
    wl_resource_post_no_memory(resource);
    return;
  }
  addon_.owner = this;
  wlr_addon_init(&addon_.base, &surface->addons, &manager_, &kAddonImpl);
  commit_.connect(&surface->events.commit, [this](void*) { applied(); });
  surface_destroy_.connect(&surface->events.destroy, [this](void*) {
    // The resource stays with the client, inert, until it destroys it.
    wl_resource_set_user_data(resource_, nullptr);
    manager_.surface_destroyed(*this);
  });
}

SyncobjSurface* SyncobjSurface::find(const LinuxDrmSyncobj& manager, wlr_surface* surface) {
  wlr_addon* addon = wlr_addon_find(&surface->addons, &manager, &kAddonImpl);
  return addon != nullptr ? reinterpret_cast<Addon*>(addon)->owner : nullptr;
}

SyncobjSurface::~SyncobjSurface() {
  if (addon_.owner != nullptr) wlr_addon_finish(&addon_.base);
  commit_.disconnect();
  surface_destroy_.disconnect();
  if (synced_.surface != nullptr) {
    wlr_surface_synced_finish(&synced_);
  } else {
    pending_->~SyncobjPoints();
    current_->~SyncobjPoints();
  }
}

void SyncobjSurface::set_acquire(wl_resource* timeline, uint64_t point) {
  pending_->acquire_timeline = timeline_of(timeline);
  pending_->acquire_point = point;
}

void SyncobjSurface::set_release(wl_resource* timeline, uint64_t point) {
  pending_->release_timeline = timeline_of(timeline);
  pending_->release_point = point;
}

bool SyncobjSurface::check_pending() {
  const SyncobjPoints& p = *pending_;
  const bool attaches = (surface_->pending.committed & WLR_SURFACE_STATE_BUFFER) != 0 &&
                        surface_->pending.buffer != nullptr;
  auto reject = [this](uint32_t code, const char* why) {
    wlr_surface_reject_pending(surface_, resource_, code, "%s", why);
    return false;
  };
  if (!attaches && p.acquire_timeline)
    return reject(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER,
                  "acquire point set on a commit without a buffer");
  if (!attaches && p.release_timeline)
    return reject(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER,
                  "release point set on a commit without a buffer");
  if (!attaches) return true;
  if (!p.acquire_timeline)
    return reject(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_ACQUIRE_POINT,
                  "buffer committed without an acquire point");
  if (!p.release_timeline)
    return reject(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_RELEASE_POINT,
                  "buffer committed without a release point");
  if (p.acquire_timeline == p.release_timeline && p.acquire_point >= p.release_point)
    return reject(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_CONFLICTING_POINTS,
                  "the acquire point is not before the release point on the same timeline");
  wlr_dmabuf_attributes attribs{};
  if (!wlr_buffer_get_dmabuf(surface_->pending.buffer, &attribs))
    return reject(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_UNSUPPORTED_BUFFER,
                  "explicit sync needs a dma-buf buffer");
  return true;
}

void SyncobjSurface::applied() {
  // surface->buffer holds the texture imported from this commit's dma-buf;
  // baton reads the client's memory until it goes. A dma-buf wlroots could
  // not import leaves the previous commit's texture there: this commit's
  // buffer is then never read, and is released at once.
  wlr_client_buffer* shown = surface_->buffer;
  const bool imported = shown != nullptr && shown->source == surface_->current.buffer;
  wlr_buffer* in_use = imported ? &shown->base : nullptr;
  // A scanout takes the client's own buffer (the source) where it can.
  if (in_use != nullptr && current_->acquire_timeline)
    keep_acquire_fence(shown->source != nullptr ? shown->source : in_use);
  if (!current_->release_timeline) return;
  manager_.release_when_done(in_use, *current_);
  // Handed on: the current state no longer owes it.
  current_->release_timeline.reset();
}

void SyncobjSurface::keep_acquire_fence(wlr_buffer* buffer) {
  // Latched by the readiness gate, the point has signalled: nothing to keep.
  // Latched once it merely had a fence (gate off), a scanout of the buffer
  // must wait for it.
  auto fence = current_->acquire_timeline->export_sync_file(current_->acquire_point);
  if (!fence) return;  // no fence to wait for
  if (auto done = fence->signalled(); done && *done) return;
  attach_acquire_fence(buffer, std::move(*fence));
}

}  // namespace baton
