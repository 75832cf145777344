// A fake DRM device with timeline syncobjs, so that a test's or the
// fuzzer's server offers linux-drm-syncobj-v1 on a machine without DRM (this
// one, CI's).
//
// The program defines libdrm's syncobj calls (drmSyncobj*, drmGetCap) itself:
// on the fake device's fds they act on an in-process model of the kernel's
// syncobjs (points that get a fence, then signal; eventfd waiters; transfers
// that signal one point when another does); on any other fd they go on to
// libdrm. Clients send "syncobj fds" the model made; the test or the fuzzer
// plays the client's GPU, giving points fences and signalling them.
//
// What this covers: baton's protocol handling (import, points, surfaces,
// errors), the readiness gate holding and letting through commits on acquire
// points, and release points signalled or moved on. What it cannot: the
// kernel's own checks; those run in the guest (tests/vm/).
#pragma once

#include <cstdint>
#include <string>

#include "util/unique_fd.hpp"

namespace baton::test {

/// A path that opens the fake device (for Options::drm_device).
std::string fake_drm_device_path();

/// A new timeline syncobj, as a client exports it to send it; empty on failure.
UniqueFd fake_timeline_fd();

/// How many timelines fake_timeline_fd made since the last input ended.
size_t fake_timelines_this_input();

/// The client's GPU on the `which`-th timeline made this input (modulo their
/// count): `point` gets a fence, and with `signal` it signals too.
void fake_gpu_acts(size_t which, uint64_t point, bool signal);

/// Whether `point` of the `which`-th timeline made this input has signalled
/// (what the client's own waits would see); false when there is none.
bool fake_point_signalled(size_t which, uint64_t point);

/// A timeline one client owns for as long as it lives (the soak's members,
/// which come and go for minutes): the model forgets it when this goes;
/// what baton imported of it lives on through baton's handles.
class FakeTimeline {
 public:
  FakeTimeline();
  ~FakeTimeline();
  FakeTimeline(const FakeTimeline&) = delete;
  FakeTimeline& operator=(const FakeTimeline&) = delete;

  /// The syncobj fd to send (import_timeline); empty on failure.
  [[nodiscard]] const UniqueFd& fd() const { return fd_; }
  /// The client's GPU: `point` gets a fence, and with `signal` it signals.
  void gpu_acts(uint64_t point, bool signal);
  [[nodiscard]] bool signalled(uint64_t point) const;

 private:
  UniqueFd fd_;
  uint64_t inode_ = 0;
};

/// Syncobj handles open on the fake device now (baton's imported timelines
/// and its short-lived binary syncobjs): what a leak of them would grow.
size_t fake_syncobj_handles();

/// An input (a test) ended and its clients hung up: their syncobj fds are gone, so the
/// model forgets them (what baton imported lives on through its handles).
void fake_syncobj_input_done();

}  // namespace baton::test
