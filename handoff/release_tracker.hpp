// Release points, signalled once baton no longer reads a client's buffer:
// when the client buffer holding the commit's texture is gone, the GPU
// finished every read of that texture (woken by a CompletionWatch of the
// reads' device, no polling) and no scanout holds the client's buffer. The
// point itself is a callback: a linux-drm-syncobj timeline point in baton, an
// eventfd in tests.
#pragma once

#include <functional>
#include <list>
#include <memory>
#include <vector>

#include "renderer/vulkan/device/completion_watch.hpp"

struct wl_event_loop;
struct wl_event_source;
struct wlr_buffer;

namespace baton {

class ReleaseWatch;

class ReleaseTracker {
 public:
  explicit ReleaseTracker(wl_event_loop* loop);
  /// Whatever is still held is never read again once the GPU's reads are
  /// over (the renderer outlives this): waits for them, then signals all.
  ~ReleaseTracker();
  ReleaseTracker(const ReleaseTracker&) = delete;
  ReleaseTracker& operator=(const ReleaseTracker&) = delete;

  /// Runs `signal_release` once `buffer` is done with, as above.
  void release_when_done(wlr_buffer* buffer, std::function<void()> signal_release);
  /// Releases not signalled yet (tests).
  [[nodiscard]] size_t pending() const;

 private:
  void buffer_gone(ReleaseWatch& watch);
  /// A watch that signalled by itself (a scanout let its buffer go).
  void forget(ReleaseWatch& watch);
  void wait_for_gpu(ReleaseWatch* watch);
  void retry_unsubmitted();
  vulkan::CompletionWatch* completion_for(const std::shared_ptr<vulkan::Device>& device);

  wl_event_loop* loop_;
  wl_event_source* retry_idle_ = nullptr;
  bool retrying_ = false;                          // inside the idle retry of unsubmitted reads
  std::list<std::unique_ptr<ReleaseWatch>> held_;  // buffers still held
  std::list<std::unique_ptr<ReleaseWatch>> gpu_reading_;  // buffers gone, GPU still reading
  // Buffers gone while a pass that reads them was still being recorded: their
  // point is known once it is submitted, so they are looked at again when
  // the loop goes idle.
  std::list<std::unique_ptr<ReleaseWatch>> unsubmitted_;
  // One per device that reads are pending on (a GPU loss makes a new one).
  std::vector<std::unique_ptr<vulkan::CompletionWatch>> completions_;
};

}  // namespace baton
