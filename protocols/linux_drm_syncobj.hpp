// linux-drm-syncobj-v1, implemented by baton: clients hand over timeline
// syncobjs and, per buffer commit, an acquire point (when the buffer may be
// read) and a release point (signalled by baton once it no longer reads).
//
// wlroots has this global too, but latches a commit once its acquire point
// merely has a fence; the readiness gate needs the acquire point of the
// commit being made, so baton keeps the per-commit points itself
// (wlr_surface_synced). Waiting for the acquire point is the ReadinessGate's
// job, not this class's. A client may hold at most kMaxTimelinesPerClient
// imported timelines: more is a protocol error, so no client can make baton
// hold unbounded kernel objects.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "handoff/explicit_sync.hpp"
#include "handoff/release_tracker.hpp"
#include "sync/timeline.hpp"
#include "util/event_source.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"
#include "util/weak.hpp"

struct wl_client;
struct wl_display;
struct wl_event_loop;
struct wl_event_source;
struct wl_global;
struct wl_resource;
struct wlr_buffer;
struct wlr_surface;

namespace baton {

class SyncobjSurface;
class LinuxDrmSyncobj;

/// What a wp_linux_drm_syncobj_timeline_v1 resource holds: a share of the
/// timeline (commits keep theirs after the resource goes) and who counts it.
struct TimelineResource {
  std::shared_ptr<sync::Timeline> timeline;
  Weak<LinuxDrmSyncobj> manager;
};

class LinuxDrmSyncobj final : public ExplicitSync, public Weakable<LinuxDrmSyncobj> {
 public:
  /// The global on `drm_fd` (duplicated); `releases` pays the release
  /// points (it outlives this). An error when the DRM device lacks timeline
  /// syncobjs or DRM_IOCTL_SYNCOBJ_EVENTFD.
  static Result<std::unique_ptr<LinuxDrmSyncobj>> create(wl_display* display, int drm_fd,
                                                         ReleaseTracker& releases);
  ~LinuxDrmSyncobj() override;
  LinuxDrmSyncobj(const LinuxDrmSyncobj&) = delete;
  LinuxDrmSyncobj& operator=(const LinuxDrmSyncobj&) = delete;

  /// The syncobj surface of `surface`, or null when the client made none.
  [[nodiscard]] SyncobjSurface* surface_for(wlr_surface* surface) const;
  [[nodiscard]] PendingCommit pending_commit(wlr_surface* surface) override;

  /// Hands `points`' release point to the hand-off, paid once `buffer` (the
  /// client buffer that holds the commit's texture) is done with; at once
  /// when null.
  void release_when_done(wlr_buffer* buffer, const SyncobjPoints& points);

  // Request handlers (the C trampolines in the .cpp call them).
  void get_surface(wl_resource* manager, uint32_t id, wl_resource* surface);
  void import_timeline(wl_resource* manager, uint32_t id, UniqueFd fd);
  void surface_destroyed(SyncobjSurface& surface);
  void timeline_destroyed(wl_client* client);

  /// Imported timelines one client may hold at once.
  static constexpr int kMaxTimelinesPerClient = 256;

 private:
  LinuxDrmSyncobj(wl_display* display, std::shared_ptr<const UniqueFd> drm,
                  ReleaseTracker& releases);
  std::shared_ptr<const UniqueFd> drm_;  // shared by every imported Timeline
  wl_global* global_ = nullptr;
  std::map<wl_client*, int> timelines_per_client_;
  std::list<std::unique_ptr<SyncobjSurface>> surfaces_;
  ReleaseTracker& releases_;
};

}  // namespace baton
