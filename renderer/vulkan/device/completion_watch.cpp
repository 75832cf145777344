#include "renderer/vulkan/device/completion_watch.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <limits>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "util/log.hpp"

namespace baton::vulkan {

Result<std::shared_ptr<CompletionWatch>> CompletionWatch::of(const std::shared_ptr<Device>& device,
                                                             wl_event_loop* loop) {
  if (std::shared_ptr<CompletionWatch> shared = device->completion_watch().lock();
      shared && shared->loop_ == loop)
    return shared;
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore wake = VK_NULL_HANDLE;
  if (VkResult r = vkCreateSemaphore(device->get(), &info, nullptr, &wake); r != VK_SUCCESS)
    return failure("vkCreateSemaphore (completion wake)", result_name(r));
  UniqueFd ready(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!ready) {
    vkDestroySemaphore(device->get(), wake, nullptr);
    return last_error("eventfd");
  }
  std::shared_ptr<CompletionWatch> self(new CompletionWatch(device, loop, wake, std::move(ready)));
  self->ready_source_ = EventSource::fd(loop, self->ready_.get(), WL_EVENT_READABLE,
                                        [watch = self.get()](uint32_t) { watch->dispatch(); });
  if (!self->ready_source_) return failure("wl_event_loop_add_fd", "the completion eventfd");
  self->worker_ = std::thread([watch = self.get()] { watch->run(); });
  device->set_completion_watch(self);
  return self;
}

CompletionWatch::CompletionWatch(std::shared_ptr<Device> device, wl_event_loop* loop,
                                 VkSemaphore wake, UniqueFd ready)
    : device_(std::move(device)), loop_(loop), wake_(wake), ready_(std::move(ready)) {}

CompletionWatch::~CompletionWatch() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    interrupt_wait();
  }
  work_.notify_one();
  if (worker_.joinable()) worker_.join();
  vkDestroySemaphore(device_->get(), wake_, nullptr);
}

void CompletionWatch::interrupt_wait() {
  VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  signal.semaphore = wake_;
  signal.value = ++wake_value_;
  vkSignalSemaphore(device_->get(), &signal);
}

void CompletionWatch::wake_loop() {
  const uint64_t one = 1;
  if (write(ready_.get(), &one, sizeof(one)) < 0)
    LOG_ERROR("completion watch: eventfd write failed");
}

uint64_t CompletionWatch::reached() const {
  if (device_->lost()) return std::numeric_limits<uint64_t>::max();
  uint64_t value = 0;
  if (vkGetSemaphoreCounterValue(device_->get(), device_->timeline(), &value) != VK_SUCCESS)
    return std::numeric_limits<uint64_t>::max();  // the device is gone: nothing will run
  return value;
}

void CompletionWatch::when_done(uint64_t point, std::function<void()> done) {
  callbacks_.emplace(point, std::move(done));
  if (device_->lost()) {
    // The worker has stopped waiting: wake the loop directly.
    wake_loop();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    const uint64_t earliest = callbacks_.begin()->first;
    if (target_ == earliest) return;  // already waiting for exactly that
    target_ = earliest;
    // Interrupt a wait for a later point (or none) to wait for this one.
    interrupt_wait();
  }
  work_.notify_one();
}

void CompletionWatch::run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (target_ == 0) {
      work_.wait(lock, [this] { return stop_ || target_ != 0; });
      continue;
    }
    const uint64_t target = target_;
    const uint64_t wake_at = wake_value_ + 1;
    lock.unlock();
    const VkSemaphore semaphores[2] = {device_->timeline(), wake_};
    const uint64_t values[2] = {target, wake_at};
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.flags = VK_SEMAPHORE_WAIT_ANY_BIT;
    info.semaphoreCount = 2;
    info.pSemaphores = semaphores;
    info.pValues = values;
    const VkResult result = vkWaitSemaphores(device_->get(), &info, UINT64_MAX);
    uint64_t value = 0;
    const bool gone =
        result != VK_SUCCESS ||
        vkGetSemaphoreCounterValue(device_->get(), device_->timeline(), &value) != VK_SUCCESS;
    lock.lock();
    if (gone || value >= target) {
      // The loop takes it from here; it sets a new target when it has one.
      if (target_ == target) target_ = 0;
      wake_loop();
      if (gone) {
        // A lost device ends every wait: the loop runs all callbacks.
        work_.wait(lock, [this] { return stop_; });
      }
    }
  }
}

void CompletionWatch::dispatch() {
  uint64_t count = 0;
  if (read(ready_.get(), &count, sizeof(count)) < 0) {
    // Spurious: nothing to take.
  }
  const uint64_t value = reached();
  while (!callbacks_.empty() && callbacks_.begin()->first <= value) {
    auto done = std::move(callbacks_.begin()->second);
    callbacks_.erase(callbacks_.begin());
    done();  // may add callbacks
  }
  std::lock_guard lock(mutex_);
  const uint64_t earliest = callbacks_.empty() ? 0 : callbacks_.begin()->first;
  if (earliest != target_) {
    target_ = earliest;
    interrupt_wait();
    work_.notify_one();
  }
}

}  // namespace baton::vulkan
