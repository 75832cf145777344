// CompletionWatch: callbacks run from the event loop once the device's
// timeline reaches their point, not before, in point order; the loop is never
// blocked and nothing polls. The "GPU" here is the host signalling the
// timeline semaphore, as a finished submission would.
#include "renderer/vulkan/device/completion_watch.hpp"

#include <gtest/gtest.h>
#include <wayland-server-core.h>

#include <chrono>
#include <functional>
#include <vector>

#include "renderer/vulkan/device/device.hpp"

namespace baton::vulkan {
namespace {

using Clock = std::chrono::steady_clock;

struct Watch : ::testing::Test {
  void SetUp() override {
    auto created = Device::create({});
    if (!created) GTEST_SKIP() << "UNTESTED HERE: no Vulkan device: " << created.error().describe();
    device = std::move(*created);
    loop = wl_event_loop_create();
    auto made = CompletionWatch::of(device, loop);
    ASSERT_TRUE(made) << made.error().describe();
    watch = std::move(*made);
  }
  void TearDown() override {
    watch.reset();
    if (loop != nullptr) wl_event_loop_destroy(loop);
  }
  // What the GPU does when it finishes a submission.
  void gpu_finishes(uint64_t point) const {
    VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    signal.semaphore = device->timeline();
    signal.value = point;
    ASSERT_EQ(vkSignalSemaphore(device->get(), &signal), VK_SUCCESS);
  }
  // Dispatches the loop (blocking in poll, as a compositor does) for `ms`.
  void run_for(int ms) const {
    const auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < end) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
      wl_event_loop_dispatch(loop, static_cast<int>(left.count()) + 1);
    }
  }
  // Dispatches until `done` holds, 10 s at most (the worker thread may be
  // slow to run on a busy machine): whether it held.
  bool run_until(const std::function<bool()>& done) const {
    const auto end = Clock::now() + std::chrono::seconds(10);
    while (!done() && Clock::now() < end) wl_event_loop_dispatch(loop, 100);
    return done();
  }
  std::shared_ptr<Device> device;
  wl_event_loop* loop = nullptr;
  std::shared_ptr<CompletionWatch> watch;
};

TEST_F(Watch, CallbacksWaitForTheirPointAndRunInOrder) {
  std::vector<int> ran;
  watch->when_done(3, [&] { ran.push_back(3); });
  watch->when_done(1, [&] { ran.push_back(1); });
  watch->when_done(2, [&] { ran.push_back(2); });
  run_for(100);
  EXPECT_TRUE(ran.empty()) << "ran before the GPU reached any point";
  gpu_finishes(2);
  run_until([&] { return ran.size() >= 2; });
  run_for(50);  // nothing more may run
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
  gpu_finishes(3);
  run_until([&] { return ran.size() >= 3; });
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(watch->pending(), 0U);
}

TEST_F(Watch, AnEarlierPointAddedWhileWaitingForALaterOneIsNotStuckBehindIt) {
  bool late = false, early = false;
  watch->when_done(10, [&] { late = true; });
  run_for(50);  // the worker now waits for 10
  watch->when_done(4, [&] { early = true; });
  gpu_finishes(4);
  EXPECT_TRUE(run_until([&] { return early; }));
  EXPECT_FALSE(late);
}

TEST_F(Watch, APointAlreadyReachedRunsFromTheLoopNotFromTheCall) {
  gpu_finishes(5);
  bool ran = false;
  watch->when_done(5, [&] { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_TRUE(run_until([&] { return ran; }));
}

TEST_F(Watch, TheLoopIsWokenNotPolled) {
  // Nothing awaited: the loop sleeps the whole time (no timer fires).
  const auto start = Clock::now();
  EXPECT_EQ(wl_event_loop_dispatch(loop, 200), 0);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(190));
  // A point reached wakes it at once.
  bool ran = false;
  watch->when_done(7, [&] { ran = true; });
  gpu_finishes(7);
  const auto woken = Clock::now();
  wl_event_loop_dispatch(loop, 10000);
  EXPECT_TRUE(ran);
  // Woken, not timed out (10 s), however busy the machine.
  EXPECT_LT(Clock::now() - woken, std::chrono::milliseconds(5000));
}

TEST_F(Watch, ALostDeviceRunsEverythingAndDroppedWatchesRunNothing) {
  bool ran = false;
  watch->when_done(100, [&] { ran = true; });
  device->mark_lost();
  watch->when_done(101, [] {});
  EXPECT_TRUE(run_until([&] { return ran; }))
      << "a lost device's work never finishes: its waiters must not wait forever";
  bool dropped_ran = false;
  watch->when_done(200, [&] { dropped_ran = true; });
  watch.reset();
  run_for(50);
  EXPECT_FALSE(dropped_ran);
}

TEST_F(Watch, OneDeviceHasOneWatchWhileItIsHeld) {
  auto again = CompletionWatch::of(device, loop);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->get(), watch.get()) << "a second watch (and worker thread) for one device";
  watch.reset();
  again->reset();
  auto fresh = CompletionWatch::of(device, loop);
  ASSERT_TRUE(fresh);
  bool ran = false;
  (*fresh)->when_done(1, [&] { ran = true; });
  gpu_finishes(1);
  EXPECT_TRUE(run_until([&] { return ran; })) << "a watch made after the last went works";
  fresh->reset();
}

}  // namespace
}  // namespace baton::vulkan
