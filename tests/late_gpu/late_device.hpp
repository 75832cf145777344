// One VkDevice seen through the late GPU layer. It owns the payloads of
// SYNC_FD semaphores, which the driver under it never sees:
// - a semaphore the application made exportable as SYNC_FD is dropped from
//   the batches that signal it; its export is a vgem fence that signals when
//   the batch has finished (FenceSignaller), pending as a real GPU's is;
// - a sync_file imported into a semaphore is waited for by the queue thread
//   before the batch that waits on it goes to the driver (GpuQueue), not on
//   the application's thread inside vkQueueSubmit.
// Every batch also signals the layer's own timeline with its point.
#pragma once

#include <vulkan/vulkan.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "tests/late_gpu/fence_signaller.hpp"
#include "tests/late_gpu/gpu_queue.hpp"
#include "tests/late_gpu/tile_flags_images.hpp"
#include "util/unique_fd.hpp"

namespace baton::late_gpu {

/// The driver's entry points the layer calls.
struct DriverDevice {
  VkDevice device = VK_NULL_HANDLE;
  PFN_vkGetDeviceProcAddr get_proc = nullptr;
  PFN_vkDestroyDevice destroy = nullptr;
  PFN_vkQueueSubmit queue_submit = nullptr;
  PFN_vkQueueWaitIdle queue_wait_idle = nullptr;
  PFN_vkDeviceWaitIdle device_wait_idle = nullptr;
  PFN_vkCreateSemaphore create_semaphore = nullptr;
  PFN_vkDestroySemaphore destroy_semaphore = nullptr;
  PFN_vkWaitSemaphores wait_semaphores = nullptr;
  PFN_vkGetSemaphoreCounterValue semaphore_value = nullptr;
};

class LateDevice {
 public:
  /// Needs vgem (its fences) and timeline semaphores enabled on `driver`.
  /// With `tile_flags`, the device has the two-plane RGB images too.
  static Result<std::unique_ptr<LateDevice>> create(const DriverDevice& driver,
                                                    std::chrono::milliseconds delay,
                                                    const ImageCalls* tile_flags);
  /// Lets queued work run, then says what it did on stderr.
  ~LateDevice();
  LateDevice(const LateDevice&) = delete;
  LateDevice& operator=(const LateDevice&) = delete;

  [[nodiscard]] const DriverDevice& driver() const { return driver_; }
  /// The two-plane RGB images, or null where they are off.
  [[nodiscard]] TileFlagsImages* tile_flags() { return tile_flags_.get(); }

  VkResult create_semaphore(const VkSemaphoreCreateInfo* info, const VkAllocationCallbacks* alloc,
                            VkSemaphore* semaphore);
  void destroy_semaphore(VkSemaphore semaphore, const VkAllocationCallbacks* alloc);
  VkResult submit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence);
  VkResult export_sync_file(const VkSemaphoreGetFdInfoKHR* info, int* fd);
  VkResult import_sync_file(const VkImportSemaphoreFdInfoKHR* info);
  VkResult queue_wait_idle(VkQueue queue);
  VkResult device_wait_idle();

 private:
  LateDevice(const DriverDevice& driver, std::chrono::milliseconds delay, VkSemaphore timeline)
      : driver_(driver), delay_(delay), timeline_(timeline) {}
  GpuQueue& queue_of(VkQueue queue);
  Batch translate(const VkSubmitInfo& submit);

  DriverDevice driver_;
  std::chrono::milliseconds delay_;
  VkSemaphore timeline_;
  std::unique_ptr<FenceSignaller> signaller_;
  std::unique_ptr<TileFlagsImages> tile_flags_;

  std::mutex mutex_;
  uint64_t next_point_ = 0;
  uint64_t batches_ = 0;
  std::set<VkSemaphore> exportable_;
  /// Exportable semaphores with a signal pending: the point of that batch.
  std::map<VkSemaphore, uint64_t> signalled_at_;
  /// Semaphores holding an imported sync_file (an invalid fd: imported as
  /// already signalled).
  std::map<VkSemaphore, UniqueFd> imported_;
  std::map<VkQueue, std::unique_ptr<GpuQueue>> queues_;
};

}  // namespace baton::late_gpu
