// The per-surface object of linux-drm-syncobj-v1: the pending acquire and
// release points, moved through wlroots' surface state machinery so that a
// held (cached) commit keeps its own points.
#pragma once

#include <cstdint>

#include "protocols/linux_drm_syncobj.hpp"
#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton {

class SyncobjSurface {
 public:
  SyncobjSurface(LinuxDrmSyncobj& manager, wl_resource* resource, wlr_surface* surface);
  ~SyncobjSurface();
  SyncobjSurface(const SyncobjSurface&) = delete;
  SyncobjSurface& operator=(const SyncobjSurface&) = delete;

  /// Checks the commit being made against the protocol's rules; on a
  /// violation rejects it with a protocol error and returns false.
  bool check_pending();
  /// The points of the commit being made.
  [[nodiscard]] const SyncobjPoints& pending() const { return *pending_; }
  [[nodiscard]] wlr_surface* surface() const { return surface_; }
  [[nodiscard]] wl_resource* resource() const { return resource_; }
  [[nodiscard]] LinuxDrmSyncobj& manager() const { return manager_; }

  /// The syncobj surface `manager` made for `surface`, or null: found on the
  /// surface itself (a wlr_addon), not by a search.
  [[nodiscard]] static SyncobjSurface* find(const LinuxDrmSyncobj& manager, wlr_surface* surface);

  void set_acquire(wl_resource* timeline, uint64_t point);
  void set_release(wl_resource* timeline, uint64_t point);

 private:
  void applied();
  // Keeps the applied commit's acquire fence on `buffer` for a scanout of it.
  void keep_acquire_fence(wlr_buffer* buffer);

  LinuxDrmSyncobj& manager_;
  wl_resource* resource_;
  wlr_surface* surface_;
  wlr_surface_synced synced_{};
  // wlroots zeroes and initialises these itself (placement-new in init_state).
  alignas(SyncobjPoints) unsigned char pending_storage_[sizeof(SyncobjPoints)];
  alignas(SyncobjPoints) unsigned char current_storage_[sizeof(SyncobjPoints)];
  SyncobjPoints* pending_ = reinterpret_cast<SyncobjPoints*>(pending_storage_);
  SyncobjPoints* current_ = reinterpret_cast<SyncobjPoints*>(current_storage_);
  Listener<void> commit_;
  Listener<void> surface_destroy_;

 public:
  // Hung on the surface, keyed by the manager (one per Server).
  struct Addon {
    wlr_addon base;  // first: a wlr_addon* is an Addon*
    SyncobjSurface* owner;
  };

 private:
  Addon addon_{};
};

}  // namespace baton
