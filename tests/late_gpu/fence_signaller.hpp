// The late GPU's exported fences: real kernel fences (vgem's, from a tiny
// vgem buffer, exported with DMA_BUF_IOCTL_EXPORT_SYNC_FILE), signalled by
// this thread once the layer's own timeline shows the batch done. A real
// GPU's driver signals its dma_fence from the completion interrupt; this
// thread is that interrupt. It never asks lavapipe for a SYNC_FD: lavapipe
// makes one by waiting for the whole device inside the export.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

#include "tests/clients/vgem_fence.hpp"
#include "util/result.hpp"

namespace baton::late_gpu {

class FenceSignaller {
 public:
  FenceSignaller(VkDevice device, VkSemaphore timeline, PFN_vkWaitSemaphores wait,
                 PFN_vkGetSemaphoreCounterValue value, UniqueFd vgem);
  /// Signals every fence still pending (the device is going).
  ~FenceSignaller();
  FenceSignaller(const FenceSignaller&) = delete;
  FenceSignaller& operator=(const FenceSignaller&) = delete;

  /// The batch signalling `point` reached the driver.
  void submitted(uint64_t point);
  /// A sync_file that signals once the layer's timeline reaches `point`.
  Result<UniqueFd> fence_for(uint64_t point);

  [[nodiscard]] uint64_t exported() const { return exported_; }
  /// Exported while the batch had not finished: a pending fence.
  [[nodiscard]] uint64_t exported_pending() const { return exported_pending_; }

 private:
  void run();
  uint64_t completed();

  VkDevice device_;
  VkSemaphore timeline_;
  PFN_vkWaitSemaphores wait_;
  PFN_vkGetSemaphoreCounterValue value_;
  UniqueFd vgem_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::multimap<uint64_t, testing::VgemFence> pending_;
  uint64_t submitted_ = 0;
  bool stopping_ = false;
  std::atomic<uint64_t> exported_{0}, exported_pending_{0};
  std::thread thread_;
};

}  // namespace baton::late_gpu
