#include "renderer/vulkan/pass/render_done.hpp"

#include "renderer/vulkan/device/completion_watch.hpp"
#include "renderer/vulkan/device/device.hpp"
#include "sync/timeline.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {
namespace {

// A reference on a wlroots timeline for as long as a callback may signal it.
struct TimelineRef {
  explicit TimelineRef(wlr_drm_syncobj_timeline* t) : timeline(wlr_drm_syncobj_timeline_ref(t)) {}
  ~TimelineRef() { wlr_drm_syncobj_timeline_unref(timeline); }
  TimelineRef(const TimelineRef&) = delete;
  TimelineRef& operator=(const TimelineRef&) = delete;
  wlr_drm_syncobj_timeline* timeline;
};

}  // namespace

Result<VkSemaphore> RenderDone::signal_semaphore() {
  const Device::Features& features = device_.features();
  if (!features.sync_fd_export || features.sync_fd_export_waits) return VkSemaphore{VK_NULL_HANDLE};
  if (!semaphore_) {
    VkExportSemaphoreCreateInfo exportable{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportable.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exportable};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    if (Status s = device_.check(vkCreateSemaphore(device_.get(), &info, nullptr, &semaphore),
                                 "vkCreateSemaphore (render-done)");
        !s)
      return s.error();
    semaphore_ = UniqueSemaphore(device_.get(), semaphore);
  }
  armed_ = true;
  return semaphore_.get();
}

Result<UniqueFd> RenderDone::export_fence() {
  if (!armed_) return UniqueFd();
  armed_ = false;
  VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  info.semaphore = semaphore_.get();
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  int fd = -1;
  if (Status s = device_.check(device_.get_semaphore_fd(device_.get(), &info, &fd),
                               "vkGetSemaphoreFdKHR (render-done)");
      !s) {
    // Its signal is still pending: a fresh one for the next pass.
    semaphore_ = UniqueSemaphore();
    return s.error();
  }
  // Exporting a SYNC_FD resets the semaphore: it is ready for the next pass.
  return UniqueFd(fd);
}

Status RenderDone::hand_over(UniqueFd fence, uint64_t point, wlr_drm_syncobj_timeline* timeline,
                             uint64_t signal_point, CompletionWatch* watch) {
  if (fence) {
    if (wlr_drm_syncobj_timeline_import_sync_file(timeline, signal_point, fence.get())) return {};
    return failure("render-done", "it could not be imported into the output's timeline");
  }
  if (watch == nullptr)
    return failure("render-done", "nothing can signal it (no event loop watches the GPU)");
  auto ref = std::make_shared<TimelineRef>(timeline);
  // Also runs when the device was lost: nothing of the pass will run then,
  // and a point never signalled would hold the output forever.
  watch->when_done(point, [ref, signal_point] {
    if (Status signalled =
            sync::signal_point(ref->timeline->drm_fd, ref->timeline->handle, signal_point);
        !signalled)
      LOG_ERROR("vulkan: signalling render-done on the output's timeline: %s",
                signalled.error().describe().c_str());
  });
  return {};
}

}  // namespace baton::vulkan
