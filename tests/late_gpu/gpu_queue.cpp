#include "tests/late_gpu/gpu_queue.hpp"

#include <poll.h>

#include <cstdio>

namespace baton::late_gpu {
namespace {

// vgem signals its fences by itself after 10 s; a fence still pending after
// this long is a test that lost track of one, said once per fence.
constexpr int kStuckFenceMs = 12'000;

}  // namespace

GpuQueue::GpuQueue(VkQueue queue, PFN_vkQueueSubmit driver_submit, std::chrono::milliseconds delay,
                   std::function<void()> reading, std::function<void(uint64_t)> submitted)
    : queue_(queue),
      driver_submit_(driver_submit),
      delay_(delay),
      reading_(std::move(reading)),
      submitted_(std::move(submitted)),
      thread_([this] { run(); }) {}

GpuQueue::~GpuQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void GpuQueue::push(std::vector<Batch> batches) {
  {
    std::lock_guard lock(mutex_);
    for (Batch& b : batches) batches_.push_back(std::move(b));
    pushed_ += batches.size();
  }
  changed_.notify_all();
}

void GpuQueue::drain() {
  std::unique_lock lock(mutex_);
  const uint64_t target = pushed_;
  changed_.wait(lock, [&] { return handed_over_ >= target; });
}

VkResult GpuQueue::status() {
  std::lock_guard lock(mutex_);
  return status_;
}

void GpuQueue::with_driver_queue(const std::function<void(VkQueue)>& use) {
  std::lock_guard lock(driver_queue_);
  use(queue_);
}

void GpuQueue::wait_for(const UniqueFd& fence) {
  if (!fence) return;  // imported as already signalled (fd -1)
  ++fence_waits_;
  pollfd p{fence.get(), POLLIN, 0};
  if (poll(&p, 1, 0) == 1) return;
  ++pending_fence_waits_;
  if (poll(&p, 1, kStuckFenceMs) != 1)
    std::fprintf(stderr, "late-gpu: an imported fence is still pending after %d ms\n",
                 kStuckFenceMs);
}

void GpuQueue::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !batches_.empty(); });
    if (batches_.empty()) return;  // stopping, and nothing left to run
    Batch batch = std::move(batches_.front());
    batches_.pop_front();
    lock.unlock();

    for (const UniqueFd& fence : batch.fence_waits) wait_for(fence);
    // The work "takes" this long on the GPU before the driver even sees it.
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    reading_();
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = static_cast<uint32_t>(batch.wait_values.size());
    values.pWaitSemaphoreValues = batch.wait_values.data();
    values.signalSemaphoreValueCount = static_cast<uint32_t>(batch.signal_values.size());
    values.pSignalSemaphoreValues = batch.signal_values.data();
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
    info.waitSemaphoreCount = static_cast<uint32_t>(batch.waits.size());
    info.pWaitSemaphores = batch.waits.data();
    info.pWaitDstStageMask = batch.wait_stages.data();
    info.commandBufferCount = static_cast<uint32_t>(batch.command_buffers.size());
    info.pCommandBuffers = batch.command_buffers.data();
    info.signalSemaphoreCount = static_cast<uint32_t>(batch.signals.size());
    info.pSignalSemaphores = batch.signals.data();
    VkResult result = VK_SUCCESS;
    {
      std::lock_guard queue_lock(driver_queue_);
      result = driver_submit_(queue_, 1, &info, batch.fence);
    }
    if (result != VK_SUCCESS)
      std::fprintf(stderr, "late-gpu: the driver refused a batch (VkResult %d)\n", result);

    lock.lock();
    if (status_ == VK_SUCCESS) status_ = result;
    ++handed_over_;
    lock.unlock();
    submitted_(batch.point);
    changed_.notify_all();
    lock.lock();
  }
}

}  // namespace baton::late_gpu
