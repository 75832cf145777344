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
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>

#include "handoff/explicit_sync.hpp"
#include "sync/timeline.hpp"
#include "util/event_source.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"
#include "util/weak.hpp"

struct wl_client;
struct wl_display;
struct wl_global;
struct wl_resource;
struct wlr_buffer;
struct wlr_surface;

namespace baton {

class SyncobjSurface;
class ReleaseWatch;

class LinuxDrmSyncobj;

/// What a wp_linux_drm_syncobj_timeline_v1 resource holds: a share of the
/// timeline (commits keep theirs after the resource goes) and who counts it.
struct TimelineResource {
  std::shared_ptr<sync::Timeline> timeline;
  Weak<LinuxDrmSyncobj> manager;
};

class LinuxDrmSyncobj final : public ExplicitSync, public Weakable<LinuxDrmSyncobj> {
 public:
  /// The global on `drm_fd` (duplicated). An error when the DRM device lacks
  /// timeline syncobjs or DRM_IOCTL_SYNCOBJ_EVENTFD.
  static Result<std::unique_ptr<LinuxDrmSyncobj>> create(wl_display* display, int drm_fd);
  ~LinuxDrmSyncobj() override;
  LinuxDrmSyncobj(const LinuxDrmSyncobj&) = delete;
  LinuxDrmSyncobj& operator=(const LinuxDrmSyncobj&) = delete;

  /// The syncobj surface of `surface`, or null when the client made none.
  [[nodiscard]] SyncobjSurface* surface_for(wlr_surface* surface) const;
  [[nodiscard]] PendingCommit pending_commit(wlr_surface* surface) override;

  /// Signals `points`' release point once `buffer` (the client buffer that
  /// holds the commit's texture) is released and the GPU finished reading
  /// its texture; at once when null.
  void release_when_done(wlr_buffer* buffer, const SyncobjPoints& points);

  // Request handlers (the C trampolines in the .cpp call them).
  void get_surface(wl_resource* manager, uint32_t id, wl_resource* surface);
  void import_timeline(wl_resource* manager, uint32_t id, UniqueFd fd);
  void surface_destroyed(SyncobjSurface& surface);
  void timeline_destroyed(wl_client* client);

  /// Imported timelines one client may hold at once.
  static constexpr int kMaxTimelinesPerClient = 256;

 private:
  LinuxDrmSyncobj(wl_display* display, std::shared_ptr<const UniqueFd> drm);
  void buffer_gone(ReleaseWatch& watch);
  void poll_gpu_reads();

  // The Vulkan timeline semaphore has no fd to watch without a helper thread
  // (exporting one needs a submission of its own); 1 ms polling runs only
  // while a release waits on the GPU, which is rarely more than a frame.
  static constexpr int kPollMs = 1;

  std::shared_ptr<const UniqueFd> drm_;  // shared by every imported Timeline
  wl_global* global_ = nullptr;
  std::map<wl_client*, int> timelines_per_client_;
  std::list<std::unique_ptr<SyncobjSurface>> surfaces_;
  std::list<std::unique_ptr<ReleaseWatch>> releases_;     // buffers still held
  std::list<std::unique_ptr<ReleaseWatch>> gpu_reading_;  // buffers gone, GPU still reading
  std::unique_ptr<EventSource> poll_;                     // polls gpu_reading_
};

}  // namespace baton
