#include "protocols/linux_drm_syncobj.hpp"

#include <algorithm>
#include <cstring>

#include "linux-drm-syncobj-v1-server-protocol.h"
#include "protocols/syncobj_surface.hpp"
#include "sync/sync_file.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

namespace {

LinuxDrmSyncobj* manager_of(wl_resource* resource) {
  return static_cast<LinuxDrmSyncobj*>(wl_resource_get_user_data(resource));
}
SyncobjSurface* surface_of(wl_resource* resource) {
  return static_cast<SyncobjSurface*>(wl_resource_get_user_data(resource));
}
uint64_t point_of(uint32_t hi, uint32_t lo) { return (static_cast<uint64_t>(hi) << 32) | lo; }

void destroy_resource(wl_client*, wl_resource* resource) { wl_resource_destroy(resource); }

const struct wp_linux_drm_syncobj_timeline_v1_interface kTimelineImpl = {.destroy =
                                                                             destroy_resource};

// An inert surface object (its wl_surface is gone) answers every request but
// destroy with an error.
SyncobjSurface* live_surface(wl_resource* resource) {
  SyncobjSurface* surface = surface_of(resource);
  if (surface == nullptr)
    wl_resource_post_error(resource, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_SURFACE,
                           "the wl_surface has been destroyed");
  return surface;
}

const struct wp_linux_drm_syncobj_surface_v1_interface kSurfaceImpl = {
    .destroy = destroy_resource,
    .set_acquire_point =
        [](wl_client*, wl_resource* resource, wl_resource* timeline, uint32_t hi, uint32_t lo) {
          if (SyncobjSurface* s = live_surface(resource))
            s->set_acquire(timeline, point_of(hi, lo));
        },
    .set_release_point =
        [](wl_client*, wl_resource* resource, wl_resource* timeline, uint32_t hi, uint32_t lo) {
          if (SyncobjSurface* s = live_surface(resource))
            s->set_release(timeline, point_of(hi, lo));
        },
};

const struct wp_linux_drm_syncobj_manager_v1_interface kManagerImpl = {
    .destroy = destroy_resource,
    .get_surface =
        [](wl_client*, wl_resource* manager, uint32_t id, wl_resource* surface) {
          manager_of(manager)->get_surface(manager, id, surface);
        },
    .import_timeline =
        [](wl_client*, wl_resource* manager, uint32_t id, int32_t fd) {
          manager_of(manager)->import_timeline(manager, id, UniqueFd(fd));
        },
};

void bind_manager(wl_client* client, void* data, uint32_t version, uint32_t id) {
  wl_resource* resource = wl_resource_create(client, &wp_linux_drm_syncobj_manager_v1_interface,
                                             static_cast<int>(version), id);
  if (resource == nullptr) {
    wl_client_post_no_memory(client);
    return;
  }
  wl_resource_set_implementation(resource, &kManagerImpl, data, nullptr);
}

}  // namespace

Result<std::unique_ptr<LinuxDrmSyncobj>> LinuxDrmSyncobj::create(wl_display* display, int drm_fd,
                                                                 ReleaseTracker& releases) {
  if (Status usable = sync::check_timeline_support(drm_fd); !usable) return usable.error();
  auto drm = UniqueFd::duplicate_of(drm_fd);
  if (!drm) return drm.error();
  std::unique_ptr<LinuxDrmSyncobj> self(
      new LinuxDrmSyncobj(display, std::make_shared<const UniqueFd>(std::move(*drm)), releases));
  if (self->global_ == nullptr) return failure("wl_global_create", "out of memory");
  return self;
}

LinuxDrmSyncobj::LinuxDrmSyncobj(wl_display* display, std::shared_ptr<const UniqueFd> drm,
                                 ReleaseTracker& releases)
    : drm_(std::move(drm)), releases_(releases) {
  global_ =
      wl_global_create(display, &wp_linux_drm_syncobj_manager_v1_interface, 1, this, bind_manager);
}

LinuxDrmSyncobj::~LinuxDrmSyncobj() {
  surfaces_.clear();
  if (global_ != nullptr) wl_global_destroy(global_);
}

SyncobjSurface* LinuxDrmSyncobj::surface_for(wlr_surface* surface) const {
  return SyncobjSurface::find(*this, surface);
}

PendingCommit LinuxDrmSyncobj::pending_commit(wlr_surface* surface) {
  SyncobjSurface* explicit_sync = surface_for(surface);
  if (explicit_sync == nullptr) return {};
  if (!explicit_sync->check_pending()) return {PendingCommit::Sync::rejected, nullptr};
  return {PendingCommit::Sync::points, &explicit_sync->pending()};
}

void LinuxDrmSyncobj::get_surface(wl_resource* manager, uint32_t id, wl_resource* surface_res) {
  wlr_surface* surface = wlr_surface_from_resource(surface_res);
  if (surface_for(surface) != nullptr) {
    wl_resource_post_error(manager, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_SURFACE_EXISTS,
                           "this wl_surface already has a syncobj surface");
    return;
  }
  wl_resource* resource = wl_resource_create(wl_resource_get_client(manager),
                                             &wp_linux_drm_syncobj_surface_v1_interface,
                                             wl_resource_get_version(manager), id);
  if (resource == nullptr) {
    wl_resource_post_no_memory(manager);
    return;
  }
  auto shadow = std::make_unique<SyncobjSurface>(*this, resource, surface);
  wl_resource_set_implementation(resource, &kSurfaceImpl, shadow.get(), [](wl_resource* r) {
    SyncobjSurface* s = surface_of(r);
    if (s != nullptr) s->manager().surface_destroyed(*s);
  });
  surfaces_.push_back(std::move(shadow));
}

void LinuxDrmSyncobj::import_timeline(wl_resource* manager, uint32_t id, UniqueFd fd) {
  wl_client* client = wl_resource_get_client(manager);
  int& held = timelines_per_client_[client];
  if (held >= kMaxTimelinesPerClient) {
    wl_client_post_implementation_error(client, "more than %d timelines imported at once",
                                        kMaxTimelinesPerClient);
    return;
  }
  auto timeline = sync::Timeline::import_fd(drm_, fd);
  if (!timeline) {
    wl_resource_post_error(manager, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_INVALID_TIMELINE,
                           "not a DRM syncobj: %s", timeline.error().describe().c_str());
    return;
  }
  wl_resource* resource = wl_resource_create(wl_resource_get_client(manager),
                                             &wp_linux_drm_syncobj_timeline_v1_interface,
                                             wl_resource_get_version(manager), id);
  if (resource == nullptr) {
    wl_resource_post_no_memory(manager);
    return;
  }
  // The resource's user data holds a share of the timeline until the resource goes.
  auto* shared = new TimelineResource{std::make_shared<sync::Timeline>(std::move(*timeline)), this};
  ++held;
  wl_resource_set_implementation(resource, &kTimelineImpl, shared, [](wl_resource* r) {
    auto* data = static_cast<TimelineResource*>(wl_resource_get_user_data(r));
    if (LinuxDrmSyncobj* manager = data->manager.get())
      manager->timeline_destroyed(wl_resource_get_client(r));
    delete data;
  });
}

void LinuxDrmSyncobj::timeline_destroyed(wl_client* client) {
  auto it = timelines_per_client_.find(client);
  if (it != timelines_per_client_.end() && --it->second <= 0) timelines_per_client_.erase(it);
}

void LinuxDrmSyncobj::surface_destroyed(SyncobjSurface& surface) {
  wl_resource_set_user_data(surface.resource(), nullptr);
  surfaces_.remove_if([&](const auto& s) { return s.get() == &surface; });
}

void LinuxDrmSyncobj::release_when_done(wlr_buffer* buffer, const SyncobjPoints& points) {
  releases_.release_point_when_done(buffer, {points.release_timeline, points.release_point});
}

}  // namespace baton
