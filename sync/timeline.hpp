// Timeline: a DRM timeline syncobj, owned. A 64-bit counter whose points
// carry fences; linux-drm-syncobj-v1 clients send one as an fd with an
// acquire and a release point.
//
// A syncobj handle is only valid on the DRM file it was made on, so a Timeline
// holds a share of that fd: it can never outlive it. Timelines of one device
// share one duplicate (a client's thousand timelines cost baton no fds).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "sync/sync_file.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::sync {

/// Whether `drm_fd`'s device has timeline syncobjs and lets a waiter take an
/// eventfd for a point (DRM_IOCTL_SYNCOBJ_EVENTFD, kernel 6.6+).
[[nodiscard]] Status check_timeline_support(int drm_fd);
/// DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL on a syncobj someone else owns (the
/// output's wlroots timeline): `point` of `handle` on `drm_fd` signals now.
[[nodiscard]] Status signal_point(int drm_fd, uint32_t handle, uint64_t point);

class Timeline {
 public:
  /// DRM_IOCTL_SYNCOBJ_CREATE on `drm_fd` (any node of a driver with
  /// DRM_CAP_SYNCOBJ_TIMELINE).
  static Result<Timeline> create(int drm_fd);
  /// DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE: adopts a syncobj fd sent by a client.
  static Result<Timeline> import_fd(int drm_fd, const UniqueFd& syncobj_fd);
  /// The same on a DRM file shared with other Timelines.
  static Result<Timeline> import_fd(std::shared_ptr<const UniqueFd> drm,
                                    const UniqueFd& syncobj_fd);

  Timeline(Timeline&& other) noexcept;
  Timeline& operator=(Timeline&& other) noexcept;
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;
  ~Timeline();

  /// DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD: an fd another process can import.
  Result<UniqueFd> export_fd() const;

  /// Signals `point` from the CPU (DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL).
  Status signal(uint64_t point);
  /// Makes `point` carry the fence of `sync_file` (through a binary syncobj).
  Status import_sync_file(uint64_t point, const SyncFile& sync_file);
  /// A sync_file of `point`'s fence; fails (ENOENT/EINVAL) while the point
  /// has no fence yet: wait for availability first.
  Result<SyncFile> export_sync_file(uint64_t point) const;
  /// Makes `point` carry the fence at `src_point` of `src` (same device).
  Status transfer_from(uint64_t point, const Timeline& src, uint64_t src_point);

  /// The highest signalled point (DRM_IOCTL_SYNCOBJ_QUERY).
  Result<uint64_t> last_signalled() const;

  enum class WaitFor { signalled, available };
  /// Blocks up to `timeout` for `point`: true when reached, false on timeout.
  Result<bool> wait(uint64_t point, WaitFor what, std::chrono::nanoseconds timeout) const;
  /// DRM_IOCTL_SYNCOBJ_EVENTFD: an eventfd that becomes readable when
  /// `point` is signalled, or merely has a fence (WaitFor::available). The
  /// non-blocking way to wait: put it into the event loop.
  Result<UniqueFd> eventfd(uint64_t point, WaitFor what) const;

  [[nodiscard]] uint32_t handle() const { return handle_; }
  [[nodiscard]] int drm_fd() const { return drm_ ? drm_->get() : -1; }

 private:
  Timeline(std::shared_ptr<const UniqueFd> drm, uint32_t handle)
      : drm_(std::move(drm)), handle_(handle) {}
  void destroy();

  std::shared_ptr<const UniqueFd> drm_;
  uint32_t handle_ = 0;
};

}  // namespace baton::sync
