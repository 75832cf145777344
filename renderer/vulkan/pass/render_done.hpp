// Render-done, handed to whoever reads the pass's target: the timeline point
// wlroots gives a pass (the output's wait point, which the DRM backend turns
// into the plane's IN_FENCE_FD), and a sync_file for the implicit bridge.
//
// Where the device hands out a pending fence, the pass's submit signals a
// binary semaphore that is exported as a sync_file at once and imported into
// the point before submit returns. Where the export itself would wait for the
// GPU (lavapipe), the loop must not block: the point is signalled from the
// event loop once a CompletionWatch saw the work finish, and the output
// commits only once the point exists (FrameCommitter on the compositor side).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "renderer/vulkan/device/vk_util.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

struct wlr_drm_syncobj_timeline;

namespace baton::vulkan {

class CompletionWatch;
class Device;

class RenderDone {
 public:
  explicit RenderDone(Device& device) : device_(device) {}

  /// The binary semaphore the next submission should signal so its
  /// completion can be exported at once; null where exporting would wait
  /// for the GPU or the device cannot export sync_files.
  [[nodiscard]] Result<VkSemaphore> signal_semaphore();
  /// After the submission of `point` (which signalled signal_semaphore()):
  /// render-done as a sync_file, pending while the GPU works; empty when it
  /// is not exported on this device.
  [[nodiscard]] Result<UniqueFd> export_fence();
  /// Puts render-done of `point` into `timeline` at `signal_point`: the
  /// exported `fence` when there is one, else signalled from the event loop
  /// once `watch` reports the work done. An error: nothing will.
  [[nodiscard]] static Status hand_over(UniqueFd fence, uint64_t point,
                                        wlr_drm_syncobj_timeline* timeline, uint64_t signal_point,
                                        CompletionWatch* watch);

 private:
  Device& device_;
  UniqueSemaphore semaphore_;
  bool armed_ = false;  // a submission will signal semaphore_
};

}  // namespace baton::vulkan
