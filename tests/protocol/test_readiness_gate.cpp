// The readiness gate from a client's side, in-process: commits wait for
// eventfd-backed fences the test signals itself (in baton they are acquire
// points and dma-bufs' implicit fences; the gate cannot tell the difference,
// it waits for an fd to become readable). What the output shows is the oracle.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <deque>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "handoff/commit_wait.hpp"
#include "handoff/readiness_gate.hpp"
#include "tests/support/client.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr long kWindowPixels = 100L * 80;  // every window here is 100x80

// The test's end of one fence.
class EventFence {
 public:
  explicit EventFence(UniqueFd fd) : fd_(std::move(fd)) {}
  void signal() const {
    const uint64_t one = 1;
    ASSERT_EQ(write(fd_.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
  }

 private:
  UniqueFd fd_;
};

// Each buffer commit waits for the next armed fence; with none armed it
// applies at once.
class EventFences final : public CommitWaits {
 public:
  EventFence arm() {
    UniqueFd fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    EXPECT_TRUE(fd);
    UniqueFd gate_end(fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
    armed_.push_back(std::move(gate_end));
    return EventFence(std::move(fd));
  }
  std::optional<CommitWait> wait_of(wlr_surface* surface) override {
    if ((surface->pending.committed & WLR_SURFACE_STATE_BUFFER) == 0 || armed_.empty())
      return std::nullopt;
    CommitWait fence{std::move(armed_.front()), "a test fence", {}};
    armed_.pop_front();
    return fence;
  }

 private:
  std::deque<UniqueFd> armed_;
};

// A server with a second gate on its surfaces, fed by the test's fences.
struct GatedServer {
  Harness h;
  EventFences fences;
  ReadinessGate gate{h.server().event_loop(), h.server().compositor(), fences};
};

// Maps `w` showing `colour`, its top-left corner at (x, y), clear of the
// other windows of a test.
void map_window(Harness& h, Window& w, uint32_t colour, int x = 20, int y = 20) {
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() >= 1; }));
  w.draw(100, 80, colour);
  View* view = nullptr;
  ASSERT_TRUE(h.run_until([&] {
    for (const auto& v : h.server().windows().views())
      if (v->mapped() && v->surface() != nullptr &&
          wl_resource_get_id(v->surface()->resource) ==
              wl_proxy_get_id(reinterpret_cast<wl_proxy*>(w.surface())))
        view = v.get();
    return view != nullptr;
  }));
  view->move_to(x, y);
  ASSERT_TRUE(h.run_until([&] { return count_pixels(h.capture(), colour) >= kWindowPixels; }))
      << "the window did not appear";
}

TEST(ReadinessGate, ACommitWaitsForItsFenceAndTheSurfaceKeepsItsPreviousBuffer) {
  GatedServer s;
  Client c(s.h);
  Window w(c);
  map_window(s.h, w, kRed);

  EventFence fence = s.fences.arm();
  w.draw(100, 80, kBlue);
  s.h.sync();
  s.h.run_for(std::chrono::milliseconds(100));
  EXPECT_EQ(s.gate.held(), 1u);
  Image waiting = s.h.capture();
  EXPECT_EQ(count_pixels(waiting, kRed), kWindowPixels) << "the previous buffer is not shown";
  EXPECT_EQ(count_pixels(waiting, kBlue), 0) << "a buffer was shown before its fence signalled";

  fence.signal();
  ASSERT_TRUE(s.h.run_until([&] { return s.gate.held() == 0; }));
  EXPECT_EQ(s.gate.let_through(), 1u);
  Image ready = s.h.capture();
  EXPECT_EQ(count_pixels(ready, kBlue), kWindowPixels);
  EXPECT_EQ(count_pixels(ready, kRed), 0);
}

TEST(ReadinessGate, ASignalledFenceHoldsNothing) {
  GatedServer s;
  Client c(s.h);
  Window w(c);
  map_window(s.h, w, kRed);
  EventFence fence = s.fences.arm();
  fence.signal();
  w.draw(100, 80, kBlue);
  s.h.sync();
  EXPECT_EQ(s.gate.held(), 0u);
  EXPECT_EQ(s.gate.let_through(), 0u) << "a ready commit went through the hold path";
  EXPECT_EQ(count_pixels(s.h.capture(), kBlue), kWindowPixels);
}

TEST(ReadinessGate, LaterCommitsQueueBehindAHeldOne) {
  GatedServer s;
  Client c(s.h);
  Window w(c);
  map_window(s.h, w, kRed);

  EventFence fence = s.fences.arm();
  w.draw(100, 80, kBlue);   // held
  w.draw(100, 80, kGreen);  // ready, but behind the held one
  s.h.sync();
  s.h.run_for(std::chrono::milliseconds(100));
  Image waiting = s.h.capture();
  EXPECT_EQ(count_pixels(waiting, kRed), kWindowPixels) << "a later commit overtook the held one";
  EXPECT_EQ(count_pixels(waiting, kGreen), 0);

  fence.signal();
  ASSERT_TRUE(s.h.run_until([&] { return count_pixels(s.h.capture(), kGreen) == kWindowPixels; }))
      << "the queued commit did not follow the held one";
  EXPECT_EQ(s.gate.held(), 0u);
}

TEST(ReadinessGate, AHeldSurfaceStallsNoOtherClient) {
  GatedServer s;
  Client slow(s.h), other(s.h);
  Window slow_window(slow), other_window(other);
  map_window(s.h, slow_window, kRed);
  map_window(s.h, other_window, kRed, 300, 20);

  EventFence never = s.fences.arm();
  slow_window.draw(100, 80, kBlue);  // waits for a fence nobody signals
  s.h.sync();
  ASSERT_EQ(s.gate.held(), 1u);
  for (uint32_t colour : {kGreen, kBlue, kGreen}) {
    other_window.draw(100, 80, colour);
    ASSERT_TRUE(s.h.run_until([&] { return count_pixels(s.h.capture(), colour) >= kWindowPixels; }))
        << "the other client's commit waited for the slow one";
  }
  Image shown = s.h.capture();
  EXPECT_EQ(count_pixels(shown, kRed), kWindowPixels) << "the slow window lost its previous buffer";
  EXPECT_EQ(count_pixels(shown, kGreen), kWindowPixels);
}

TEST(ReadinessGate, ASurfaceDestroyedWhileHeldLeavesNothingHeld) {
  GatedServer s;
  Client c(s.h);
  {
    Window w(c);
    map_window(s.h, w, kRed);
    EventFence never = s.fences.arm();
    w.draw(100, 80, kBlue);
    s.h.sync();
    ASSERT_EQ(s.gate.held(), 1u);
  }
  ASSERT_TRUE(s.h.run_until([&] { return s.gate.held() == 0; }));
  // The client goes on as if nothing happened.
  Window again(c);
  map_window(s.h, again, kGreen);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(ReadinessGate, TooManyHeldCommitsIsAProtocolErrorForThatClientOnly) {
  GatedServer s;
  Client greedy(s.h), other(s.h);
  Window greedy_window(greedy), other_window(other);
  map_window(s.h, greedy_window, kRed);
  map_window(s.h, other_window, kRed, 300, 20);

  std::vector<EventFence> never;
  for (size_t i = 0; i <= ReadinessGate::kMaxHeldPerClient; ++i) {
    never.push_back(s.fences.arm());
    greedy_window.draw(100, 80, i % 2 == 0 ? kBlue : kGreen);
  }
  ASSERT_TRUE(s.h.run_until([&] { return wl_display_get_error(greedy.display()) != 0; }))
      << "the client held " << s.gate.held() << " commits and was not stopped";
  // Its surfaces are gone with it, and so are its holds.
  ASSERT_TRUE(s.h.run_until([&] { return s.gate.held() == 0; }));
  other_window.draw(100, 80, kGreen);
  ASSERT_TRUE(s.h.run_until([&] { return count_pixels(s.h.capture(), kGreen) == kWindowPixels; }));
  EXPECT_EQ(wl_display_get_error(other.display()), 0);
}

}  // namespace
}  // namespace baton::test
