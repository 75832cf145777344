#include "tests/support/fake_syncobj.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <xf86drm.h>

#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace baton::test {
namespace {

// One syncobj as the kernel keeps it. Point 0 is the binary payload (one
// fence, replaced by each transfer into it); other points are the timeline:
// a point is available once it or a later one has a fence, and signalled
// once the payload reaches it.
struct Syncobj {
  struct Waiter {
    UniqueFd eventfd;
    uint64_t point;
    bool available_only;
  };
  // When this syncobj's `point` signals, `to`'s `to_point` does (a transfer
  // of a fence that had not signalled yet).
  struct Link {
    std::weak_ptr<Syncobj> to;
    uint64_t to_point;
    uint64_t point;
  };
  enum class Binary { no_fence, pending, signalled };

  Binary binary = Binary::no_fence;
  uint64_t payload = 0;
  std::set<uint64_t> pending;  // timeline points with a fence not signalled yet
  std::vector<Waiter> waiters;
  std::vector<Link> links;

  [[nodiscard]] bool available(uint64_t point) const {
    if (point == 0) return binary != Binary::no_fence;
    return payload >= point || (!pending.empty() && *pending.rbegin() >= point);
  }
  [[nodiscard]] bool signalled(uint64_t point) const {
    return point == 0 ? binary == Binary::signalled : payload >= point;
  }
};

// The model's state. libdrm's calls are free functions that the program
// defines in libdrm's place, so what they act on can only be reached from
// here: one object for the process, as the kernel's device would be.
struct Device {
  UniqueFd node;  // what fake_drm_device_path() opens
  struct stat node_stat {};
  uint32_t next_handle = 1;
  std::map<uint32_t, std::shared_ptr<Syncobj>> handles;
  // Syncobj fds handed to clients, by inode (a memfd each), until the input
  // that made them ends.
  std::map<ino_t, std::shared_ptr<Syncobj>> exported;
  std::vector<std::weak_ptr<Syncobj>> made_this_input;
  // A sync file holds its fence, not the syncobj it came from: the binary
  // syncobjs behind sync files that have not signalled stay until the
  // input ends (the fuzzer's GPU acts no more after that).
  std::vector<std::shared_ptr<Syncobj>> sync_files_pending;
};

Device& device() {
  static Device the_device;
  return the_device;
}

bool same_file(int fd, const struct stat& other) {
  struct stat st {};
  return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == other.st_dev && st.st_ino == other.st_ino;
}

bool is_fake(int fd) {
  const Device& d = device();
  return d.node && same_file(fd, d.node_stat);
}

int fail(int error) {
  errno = error;
  return -1;
}

std::shared_ptr<Syncobj> lookup(uint32_t handle) {
  auto it = device().handles.find(handle);
  return it == device().handles.end() ? nullptr : it->second;
}

uint32_t add_handle(std::shared_ptr<Syncobj> syncobj) {
  Device& d = device();
  const uint32_t handle = d.next_handle++;
  d.handles.emplace(handle, std::move(syncobj));
  return handle;
}

void signal_point(const std::shared_ptr<Syncobj>& first, uint64_t first_point);

// Wakes the waiters and follows the links that `syncobj`'s new state
// satisfies. Links may lead on: a work list, not recursion.
void settle(Syncobj& syncobj, std::vector<std::pair<std::shared_ptr<Syncobj>, uint64_t>>& next) {
  std::erase_if(syncobj.waiters, [&](Syncobj::Waiter& w) {
    const bool met = w.available_only ? syncobj.available(w.point) : syncobj.signalled(w.point);
    if (met) (void)eventfd_write(w.eventfd.get(), 1);
    return met;
  });
  std::erase_if(syncobj.links, [&](Syncobj::Link& link) {
    if (!syncobj.signalled(link.point)) return false;
    if (auto to = link.to.lock()) next.emplace_back(std::move(to), link.to_point);
    return true;
  });
}

void give_fence(Syncobj& syncobj, uint64_t point) {
  if (point == 0) {
    syncobj.binary = Syncobj::Binary::pending;
  } else if (point > syncobj.payload) {
    syncobj.pending.insert(point);
  }
}

void signal_point(const std::shared_ptr<Syncobj>& first, uint64_t first_point) {
  std::vector<std::pair<std::shared_ptr<Syncobj>, uint64_t>> work{{first, first_point}};
  while (!work.empty()) {
    auto [syncobj, point] = std::move(work.back());
    work.pop_back();
    if (point == 0) {
      syncobj->binary = Syncobj::Binary::signalled;
    } else {
      syncobj->payload = std::max(syncobj->payload, point);
      syncobj->pending.erase(syncobj->pending.begin(), syncobj->pending.upper_bound(point));
    }
    settle(*syncobj, work);
  }
}

void wake_available(const std::shared_ptr<Syncobj>& syncobj) {
  std::vector<std::pair<std::shared_ptr<Syncobj>, uint64_t>> next;
  settle(*syncobj, next);
  for (auto& [to, point] : next) signal_point(to, point);
}

// libdrm's own definition of `name`, for fds that are not the fake's.
template <typename Function>
Function libdrm(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

}  // namespace

std::string fake_drm_device_path() {
  Device& d = device();
  if (!d.node) {
    d.node = UniqueFd(memfd_create("baton-fuzz-fake-drm", MFD_CLOEXEC));
    if (!d.node || fstat(d.node.get(), &d.node_stat) != 0) return "/nonexistent/fake-drm";
  }
  return "/proc/self/fd/" + std::to_string(d.node.get());
}

UniqueFd fake_timeline_fd() {
  Device& d = device();
  UniqueFd fd(memfd_create("baton-fuzz-syncobj", MFD_CLOEXEC));
  struct stat st {};
  if (!fd || fstat(fd.get(), &st) != 0) return {};
  auto syncobj = std::make_shared<Syncobj>();
  d.exported[st.st_ino] = syncobj;
  d.made_this_input.push_back(syncobj);
  return fd;
}

size_t fake_timelines_this_input() { return device().made_this_input.size(); }

namespace {

void gpu_act(const std::shared_ptr<Syncobj>& syncobj, uint64_t point, bool signal) {
  if (signal) {
    signal_point(syncobj, point);
  } else {
    give_fence(*syncobj, point);
    wake_available(syncobj);
  }
}

}  // namespace

void fake_gpu_acts(size_t which, uint64_t point, bool signal) {
  Device& d = device();
  if (d.made_this_input.empty()) return;
  if (auto syncobj = d.made_this_input[which % d.made_this_input.size()].lock())
    gpu_act(syncobj, point, signal);
}

FakeTimeline::FakeTimeline() : fd_(memfd_create("baton-fake-syncobj", MFD_CLOEXEC)) {
  struct stat st {};
  if (!fd_ || fstat(fd_.get(), &st) != 0) {
    fd_.reset();
    return;
  }
  inode_ = st.st_ino;
  device().exported[st.st_ino] = std::make_shared<Syncobj>();
}

FakeTimeline::~FakeTimeline() {
  if (fd_) device().exported.erase(inode_);
}

void FakeTimeline::gpu_acts(uint64_t point, bool signal) {
  auto it = device().exported.find(inode_);
  if (fd_ && it != device().exported.end()) gpu_act(it->second, point, signal);
}

bool FakeTimeline::signalled(uint64_t point) const {
  auto it = device().exported.find(inode_);
  return fd_ && it != device().exported.end() && it->second->signalled(point);
}

bool fake_point_signalled(size_t which, uint64_t point) {
  const Device& d = device();
  if (which >= d.made_this_input.size()) return false;
  auto syncobj = d.made_this_input[which].lock();
  return syncobj && syncobj->signalled(point);
}

size_t fake_syncobj_handles() { return device().handles.size(); }

void fake_syncobj_input_done() {
  device().exported.clear();
  device().made_this_input.clear();
  device().sync_files_pending.clear();
}

}  // namespace baton::test

// libdrm's syncobj calls, answered by the model for the fake device. They
// fail as the ioctls do: -1 and errno (the timeline wait: -errno).
using baton::UniqueFd;
using baton::test::Syncobj;
using namespace baton::test;  // NOLINT(google-build-using-namespace): the C definitions below

extern "C" {

int drmGetCap(int fd, uint64_t capability, uint64_t* value) {
  if (!is_fake(fd)) return libdrm<decltype(&drmGetCap)>("drmGetCap")(fd, capability, value);
  if (capability != DRM_CAP_SYNCOBJ && capability != DRM_CAP_SYNCOBJ_TIMELINE) return fail(EINVAL);
  *value = 1;
  return 0;
}

int drmSyncobjCreate(int fd, uint32_t flags, uint32_t* handle) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjCreate)>("drmSyncobjCreate")(fd, flags, handle);
  auto syncobj = std::make_shared<Syncobj>();
  if ((flags & DRM_SYNCOBJ_CREATE_SIGNALED) != 0) syncobj->binary = Syncobj::Binary::signalled;
  *handle = add_handle(std::move(syncobj));
  return 0;
}

int drmSyncobjDestroy(int fd, uint32_t handle) {
  if (!is_fake(fd)) return libdrm<decltype(&drmSyncobjDestroy)>("drmSyncobjDestroy")(fd, handle);
  return device().handles.erase(handle) == 1 ? 0 : fail(EINVAL);
}

int drmSyncobjFDToHandle(int fd, int obj_fd, uint32_t* handle) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjFDToHandle)>("drmSyncobjFDToHandle")(fd, obj_fd, handle);
  struct stat st {};
  if (fstat(obj_fd, &st) != 0) return fail(EBADF);
  auto it = device().exported.find(st.st_ino);
  // Any fd that is not a syncobj's: the kernel's answer.
  if (it == device().exported.end() || !S_ISREG(st.st_mode)) return fail(EINVAL);
  *handle = add_handle(it->second);
  return 0;
}

int drmSyncobjHandleToFD(int fd, uint32_t handle, int* obj_fd) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjHandleToFD)>("drmSyncobjHandleToFD")(fd, handle, obj_fd);
  auto syncobj = lookup(handle);
  if (!syncobj) return fail(ENOENT);
  UniqueFd out(memfd_create("baton-fuzz-syncobj", MFD_CLOEXEC));
  struct stat st {};
  if (!out || fstat(out.get(), &st) != 0) return -1;
  device().exported[st.st_ino] = std::move(syncobj);
  *obj_fd = out.release();
  return 0;
}

int drmSyncobjImportSyncFile(int fd, uint32_t handle, int sync_file_fd) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjImportSyncFile)>("drmSyncobjImportSyncFile")(fd, handle,
                                                                                   sync_file_fd);
  // The model has no sync files of its own to take in.
  return fail(EINVAL);
}

int drmSyncobjExportSyncFile(int fd, uint32_t handle, int* sync_file_fd) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjExportSyncFile)>("drmSyncobjExportSyncFile")(fd, handle,
                                                                                   sync_file_fd);
  auto syncobj = lookup(handle);
  if (!syncobj) return fail(ENOENT);
  if (syncobj->binary == Syncobj::Binary::no_fence) return fail(EINVAL);
  // A sync file stands in as an eventfd: readable once the fence signalled,
  // as a sync file polls.
  UniqueFd out(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  UniqueFd kept(out ? fcntl(out.get(), F_DUPFD_CLOEXEC, 0) : -1);
  if (!kept) return -1;
  syncobj->waiters.push_back({std::move(kept), 0, false});
  wake_available(syncobj);
  if (!syncobj->signalled(0)) {
    auto& pending = device().sync_files_pending;
    std::erase_if(pending, [](const auto& s) { return s->signalled(0); });
    pending.push_back(syncobj);
  }
  *sync_file_fd = out.release();
  return 0;
}

int drmSyncobjTimelineSignal(int fd, const uint32_t* handles, uint64_t* points,
                             uint32_t handle_count) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjTimelineSignal)>("drmSyncobjTimelineSignal")(
        fd, handles, points, handle_count);
  std::vector<std::shared_ptr<Syncobj>> found;
  for (uint32_t i = 0; i < handle_count; ++i) {
    found.push_back(lookup(handles[i]));
    if (!found.back()) return fail(ENOENT);
  }
  for (uint32_t i = 0; i < handle_count; ++i) signal_point(found[i], points[i]);
  return 0;
}

int drmSyncobjTimelineWait(int fd, uint32_t* handles, uint64_t* points, unsigned num_handles,
                           int64_t timeout_nsec, unsigned flags, uint32_t* first_signaled) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjTimelineWait)>("drmSyncobjTimelineWait")(
        fd, handles, points, num_handles, timeout_nsec, flags, first_signaled);
  // Never blocks: what has not happened by now will not happen during the
  // wait, since only this thread moves the model on.
  for (unsigned i = 0; i < num_handles; ++i) {
    auto syncobj = lookup(handles[i]);
    if (!syncobj) return -(errno = ENOENT);
    const bool met = (flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE) != 0
                         ? syncobj->available(points[i])
                         : syncobj->signalled(points[i]);
    if (!met) {
      if ((flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT) == 0 && !syncobj->available(points[i]))
        return -(errno = EINVAL);
      return -(errno = ETIME);
    }
  }
  if (first_signaled != nullptr) *first_signaled = 0;
  return 0;
}

int drmSyncobjQuery(int fd, uint32_t* handles, uint64_t* points, uint32_t handle_count) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjQuery)>("drmSyncobjQuery")(fd, handles, points, handle_count);
  for (uint32_t i = 0; i < handle_count; ++i) {
    auto syncobj = lookup(handles[i]);
    if (!syncobj) return fail(ENOENT);
    points[i] = syncobj->payload;
  }
  return 0;
}

int drmSyncobjTransfer(int fd, uint32_t dst_handle, uint64_t dst_point, uint32_t src_handle,
                       uint64_t src_point, uint32_t flags) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjTransfer)>("drmSyncobjTransfer")(
        fd, dst_handle, dst_point, src_handle, src_point, flags);
  auto to = lookup(dst_handle);
  auto from = lookup(src_handle);
  if (!to || !from) return fail(ENOENT);
  if (!from->available(src_point)) return fail(EINVAL);  // no fence to move
  if (from->signalled(src_point)) {
    signal_point(to, dst_point);
    return 0;
  }
  give_fence(*to, dst_point);
  from->links.push_back({to, dst_point, src_point});
  wake_available(to);
  return 0;
}

int drmSyncobjEventfd(int fd, uint32_t handle, uint64_t point, int ev_fd, uint32_t flags) {
  if (!is_fake(fd))
    return libdrm<decltype(&drmSyncobjEventfd)>("drmSyncobjEventfd")(fd, handle, point, ev_fd,
                                                                     flags);
  auto syncobj = lookup(handle);
  if (!syncobj) return fail(ENOENT);
  UniqueFd kept(fcntl(ev_fd, F_DUPFD_CLOEXEC, 0));
  if (!kept) return -1;
  syncobj->waiters.push_back(
      {std::move(kept), point, (flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE) != 0});
  wake_available(syncobj);
  return 0;
}

}  // extern "C"
