#include "tests/late_gpu/fence_signaller.hpp"

#include <algorithm>
#include <cstdio>

namespace baton::late_gpu {
namespace {

// How long one wait on the driver may take before the thread looks at its
// list again (a newer submission, or the device going).
constexpr uint64_t kWaitSliceNs = 50'000'000;

}  // namespace

FenceSignaller::FenceSignaller(VkDevice device, VkSemaphore timeline, PFN_vkWaitSemaphores wait,
                               PFN_vkGetSemaphoreCounterValue value, UniqueFd vgem)
    : device_(device),
      timeline_(timeline),
      wait_(wait),
      value_(value),
      vgem_(std::move(vgem)),
      thread_([this] { run(); }) {}

FenceSignaller::~FenceSignaller() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
  // What is left signals as its VgemFence goes (its destructor).
}

void FenceSignaller::submitted(uint64_t point) {
  {
    std::lock_guard lock(mutex_);
    submitted_ = std::max(submitted_, point);
  }
  changed_.notify_all();
}

uint64_t FenceSignaller::completed() {
  uint64_t value = 0;
  if (value_(device_, timeline_, &value) != VK_SUCCESS) return UINT64_MAX;  // lost: let all go
  return value;
}

Result<UniqueFd> FenceSignaller::fence_for(uint64_t point) {
  auto pending = testing::make_pending_fence(vgem_.get());
  if (!pending) return pending.error();
  ++exported_;
  UniqueFd fd = pending->sync_file.release();
  if (completed() >= point) {
    if (Status s = pending->fence.signal(); !s) return s.error();
    return fd;
  }
  ++exported_pending_;
  {
    std::lock_guard lock(mutex_);
    pending_.emplace(point, std::move(pending->fence));
  }
  changed_.notify_all();
  return fd;
}

void FenceSignaller::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // Wait on the driver only for work it has: a timeline wait for a value
    // not yet submitted would wait for the queue thread too.
    changed_.wait(lock, [&] {
      return stopping_ || (!pending_.empty() && pending_.begin()->first <= submitted_);
    });
    if (stopping_) return;
    const uint64_t point = pending_.begin()->first;
    lock.unlock();
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &point;
    const VkResult waited = wait_(device_, &info, kWaitSliceNs);
    const uint64_t done = waited == VK_SUCCESS || waited == VK_TIMEOUT ? completed() : UINT64_MAX;
    lock.lock();
    while (!pending_.empty() && pending_.begin()->first <= done) {
      if (Status s = pending_.begin()->second.signal(); !s)
        std::fprintf(stderr, "late-gpu: %s\n", s.error().describe().c_str());
      pending_.erase(pending_.begin());
    }
  }
}

}  // namespace baton::late_gpu
