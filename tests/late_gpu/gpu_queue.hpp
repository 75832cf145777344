// One queue of the late GPU: submissions run in order on a thread of their
// own, as a GPU's command processor runs them, and reach the driver under
// it (lavapipe) only after the waits the application asked for have
// signalled and the per-submission delay has passed. Holding the work
// itself, not only its fences, is what makes every completion the
// application can see (timeline values, fence status, query results,
// exported sync_files) come after the delay.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "util/unique_fd.hpp"

namespace baton::late_gpu {

/// One VkSubmitInfo as the layer hands it to the driver.
struct Batch {
  std::vector<VkCommandBuffer> command_buffers;
  std::vector<VkSemaphore> waits;
  std::vector<uint64_t> wait_values;
  std::vector<VkPipelineStageFlags> wait_stages;
  /// sync_files the application imported into semaphores it waits on: the
  /// queue thread waits for them (a GPU waits for its in-fences itself).
  std::vector<UniqueFd> fence_waits;
  std::vector<VkSemaphore> signals;
  std::vector<uint64_t> signal_values;
  VkFence fence = VK_NULL_HANDLE;
  /// The value of the layer's own timeline this batch signals (it is among
  /// `signals`): what the layer's exported fences wait for.
  uint64_t point = 0;
};

class GpuQueue {
 public:
  /// On the queue thread, `reading` runs once a batch's waits and delay are
  /// over, just before it goes to the driver (where a GPU starts to read
  /// its inputs); `submitted` runs after, with the batch's point.
  GpuQueue(VkQueue queue, PFN_vkQueueSubmit driver_submit, std::chrono::milliseconds delay,
           std::function<void()> reading, std::function<void(uint64_t)> submitted);
  /// Runs what is queued, then stops.
  ~GpuQueue();
  GpuQueue(const GpuQueue&) = delete;
  GpuQueue& operator=(const GpuQueue&) = delete;

  void push(std::vector<Batch> batches);
  /// Returns once every batch pushed so far has reached the driver.
  void drain();
  /// The first error the driver returned for a batch (VK_SUCCESS if none):
  /// a real GPU reports it late too (device lost).
  [[nodiscard]] VkResult status();
  /// The driver's queue, held for `use` (queues are externally synchronised).
  void with_driver_queue(const std::function<void(VkQueue)>& use);

  /// Imported fences the queue thread waited for, and how many of them were
  /// still pending when it started to wait.
  [[nodiscard]] uint64_t fence_waits() const { return fence_waits_; }
  [[nodiscard]] uint64_t pending_fence_waits() const { return pending_fence_waits_; }

 private:
  void run();
  void wait_for(const UniqueFd& fence);

  VkQueue queue_;
  PFN_vkQueueSubmit driver_submit_;
  std::chrono::milliseconds delay_;
  std::function<void()> reading_;
  std::function<void(uint64_t)> submitted_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> batches_;
  uint64_t pushed_ = 0, handed_over_ = 0;
  bool stopping_ = false;
  VkResult status_ = VK_SUCCESS;
  std::mutex driver_queue_;
  std::atomic<uint64_t> fence_waits_{0}, pending_fence_waits_{0};
  std::thread thread_;
};

}  // namespace baton::late_gpu
