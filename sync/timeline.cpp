#include "sync/timeline.hpp"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <xf86drm.h>

#include <cerrno>
#include <ctime>
#include <utility>

namespace baton::sync {
namespace {

// A binary syncobj for the length of one call: the kernel moves sync_files
// in and out of timelines only through binary syncobjs.
class BinarySyncobj {
 public:
  explicit BinarySyncobj(int drm_fd) : drm_fd_(drm_fd) {
    if (drmSyncobjCreate(drm_fd_, 0, &handle_) < 0) error_ = last_error("DRM_IOCTL_SYNCOBJ_CREATE");
  }
  ~BinarySyncobj() {
    if (handle_ != 0) drmSyncobjDestroy(drm_fd_, handle_);
  }
  BinarySyncobj(const BinarySyncobj&) = delete;
  BinarySyncobj& operator=(const BinarySyncobj&) = delete;

  [[nodiscard]] bool ok() const { return handle_ != 0; }
  [[nodiscard]] const Error& error() const { return error_; }
  [[nodiscard]] uint32_t handle() const { return handle_; }

 private:
  int drm_fd_;
  uint32_t handle_ = 0;
  Error error_;
};

// Absolute CLOCK_MONOTONIC deadline in ns, as the syncobj wait ioctls want.
int64_t deadline_after(std::chrono::nanoseconds timeout) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec + timeout.count();
}

}  // namespace

Result<Timeline> Timeline::create(int drm_fd) {
  auto drm = UniqueFd::duplicate_of(drm_fd);
  if (!drm) return drm.error();
  uint32_t handle = 0;
  if (drmSyncobjCreate(drm->get(), 0, &handle) < 0) return last_error("DRM_IOCTL_SYNCOBJ_CREATE");
  return Timeline(std::make_shared<const UniqueFd>(std::move(*drm)), handle);
}

Result<Timeline> Timeline::import_fd(int drm_fd, const UniqueFd& syncobj_fd) {
  auto drm = UniqueFd::duplicate_of(drm_fd);
  if (!drm) return drm.error();
  return import_fd(std::make_shared<const UniqueFd>(std::move(*drm)), syncobj_fd);
}

Result<Timeline> Timeline::import_fd(std::shared_ptr<const UniqueFd> drm,
                                     const UniqueFd& syncobj_fd) {
  uint32_t handle = 0;
  if (drmSyncobjFDToHandle(drm->get(), syncobj_fd.get(), &handle) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE");
  return Timeline(std::move(drm), handle);
}

Timeline::Timeline(Timeline&& other) noexcept
    : drm_(std::move(other.drm_)), handle_(std::exchange(other.handle_, 0)) {}

Timeline& Timeline::operator=(Timeline&& other) noexcept {
  if (this != &other) {
    destroy();
    drm_ = std::move(other.drm_);
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

Timeline::~Timeline() { destroy(); }

void Timeline::destroy() {
  if (handle_ != 0 && drm_) drmSyncobjDestroy(drm_fd(), handle_);
  handle_ = 0;
}

Result<UniqueFd> Timeline::export_fd() const {
  int fd = -1;
  if (drmSyncobjHandleToFD(drm_fd(), handle_, &fd) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD");
  return UniqueFd(fd);
}

Status check_timeline_support(int drm_fd) {
  uint64_t cap = 0;
  if (drmGetCap(drm_fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap) != 0 || cap == 0)
    return failure("DRM_CAP_SYNCOBJ_TIMELINE", "the DRM device has no timeline syncobjs");
  UniqueFd efd(::eventfd(0, EFD_CLOEXEC));
  if (!efd) return last_error("eventfd");
  // Handle 0 never exists: ENOENT means the ioctl itself is known.
  if (drmSyncobjEventfd(drm_fd, 0, 0, efd.get(), 0) == 0 || errno != ENOENT)
    return last_error("DRM_IOCTL_SYNCOBJ_EVENTFD (unsupported)");
  return {};
}

Status signal_point(int drm_fd, uint32_t handle, uint64_t point) {
  if (drmSyncobjTimelineSignal(drm_fd, &handle, &point, 1) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL");
  return {};
}

Status Timeline::signal(uint64_t point) { return signal_point(drm_fd(), handle_, point); }

Status Timeline::import_sync_file(uint64_t point, const SyncFile& sync_file) {
  BinarySyncobj binary(drm_fd());
  if (!binary.ok()) return binary.error();
  if (drmSyncobjImportSyncFile(drm_fd(), binary.handle(), sync_file.fd()) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE(IMPORT_SYNC_FILE)");
  if (drmSyncobjTransfer(drm_fd(), handle_, point, binary.handle(), 0, 0) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_TRANSFER");
  return {};
}

Result<SyncFile> Timeline::export_sync_file(uint64_t point) const {
  BinarySyncobj binary(drm_fd());
  if (!binary.ok()) return binary.error();
  if (drmSyncobjTransfer(drm_fd(), binary.handle(), 0, handle_, point, 0) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_TRANSFER");
  int fd = -1;
  if (drmSyncobjExportSyncFile(drm_fd(), binary.handle(), &fd) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD(EXPORT_SYNC_FILE)");
  return SyncFile(UniqueFd(fd));
}

Status Timeline::transfer_from(uint64_t point, const Timeline& src, uint64_t src_point) {
  if (drmSyncobjTransfer(drm_fd(), handle_, point, src.handle_, src_point, 0) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_TRANSFER");
  return {};
}

Result<uint64_t> Timeline::last_signalled() const {
  uint32_t handle = handle_;
  uint64_t point = 0;
  if (drmSyncobjQuery(drm_fd(), &handle, &point, 1) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_QUERY");
  return point;
}

Result<bool> Timeline::wait(uint64_t point, WaitFor what, std::chrono::nanoseconds timeout) const {
  uint32_t handle = handle_;
  uint32_t flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
  if (what == WaitFor::available) flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
  int r =
      drmSyncobjTimelineWait(drm_fd(), &handle, &point, 1, deadline_after(timeout), flags, nullptr);
  if (r < 0 && errno == ETIME) return false;
  if (r < 0) return last_error("DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT");
  return true;
}

Result<UniqueFd> Timeline::eventfd(uint64_t point, WaitFor what) const {
  UniqueFd efd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!efd) return last_error("eventfd");
  uint32_t flags = what == WaitFor::available ? DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE : 0;
  if (drmSyncobjEventfd(drm_fd(), handle_, point, efd.get(), flags) < 0)
    return last_error("DRM_IOCTL_SYNCOBJ_EVENTFD");
  return efd;
}

}  // namespace baton::sync
