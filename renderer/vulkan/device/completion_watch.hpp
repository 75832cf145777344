// Callbacks on the event loop once the GPU reached a point of the device's
// timeline: no polling, and the loop never blocks.
//
// A worker thread waits on the timeline semaphore (vkWaitSemaphores, which
// takes no fd the loop could watch) together with a wake semaphore, and
// makes an eventfd readable when the earliest awaited point is reached; the
// loop then runs every callback whose point passed. What the frame path
// uses where it would otherwise wait on the CPU or poll.
//
// One per device and event loop: the renderer (render-done, slots, client
// buffers it locks) and the release points' reads watch share it, one
// worker thread between them. It lives while either holds it.
#pragma once

#include <vulkan/vulkan.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "util/event_source.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

struct wl_event_loop;

namespace baton::vulkan {

class Device;

class CompletionWatch {
 public:
  /// The watch of `device`'s timeline on `loop`: the one already made for
  /// them while someone holds it, else a new one.
  [[nodiscard]] static Result<std::shared_ptr<CompletionWatch>> of(
      const std::shared_ptr<Device>& device, wl_event_loop* loop);
  /// Stops the thread; callbacks still waiting are dropped, not run.
  ~CompletionWatch();
  CompletionWatch(const CompletionWatch&) = delete;
  CompletionWatch& operator=(const CompletionWatch&) = delete;

  /// Runs `done` from the event loop once the GPU finished `point`, or the
  /// device was lost (nothing of its work will run then). A point already
  /// reached runs on the loop's next dispatch, never inside this call.
  void when_done(uint64_t point, std::function<void()> done);
  /// Callbacks waiting.
  [[nodiscard]] size_t pending() const { return callbacks_.size(); }
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return device_; }

 private:
  CompletionWatch(std::shared_ptr<Device> device, wl_event_loop* loop, VkSemaphore wake,
                  UniqueFd ready);
  void run();       // the worker thread
  void dispatch();  // on the loop: runs what is done
  [[nodiscard]] uint64_t reached() const;
  void interrupt_wait();  // signals wake_; the caller holds mutex_
  void wake_loop();       // makes the eventfd readable

  std::shared_ptr<Device> device_;
  wl_event_loop* loop_;
  VkSemaphore wake_;  // host-signalled to interrupt the worker's wait
  UniqueFd ready_;    // eventfd: the worker's "something is done"
  std::unique_ptr<EventSource> ready_source_;
  std::multimap<uint64_t, std::function<void()>> callbacks_;  // loop thread only

  // Shared with the worker, under mutex_.
  std::mutex mutex_;
  std::condition_variable work_;
  uint64_t target_ = 0;      // earliest point awaited, 0 for none
  uint64_t wake_value_ = 0;  // last value signalled on wake_
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace baton::vulkan
