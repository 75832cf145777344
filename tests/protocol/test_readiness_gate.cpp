// The readiness gate from a client's side, in-process: commits wait for
// eventfd-backed fences the test signals itself (in baton they are acquire
// points and dma-bufs' implicit fences; the gate cannot tell the difference,
// it puts an fd on the hold queue, which waits for it to become readable).
// What the output shows is the oracle.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "fifo-v1-client-protocol.h"
#include "handoff/commit_wait.hpp"
#include "handoff/hold_queue.hpp"
#include "handoff/readiness_gate.hpp"
#include "protocols/fifo.hpp"
#include "tests/support/client.hpp"
#include "tests/support/client_log.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/held_files.hpp"
#include "tests/support/process.hpp"
#include "util/clock.hpp"
#include "util/log.hpp"
#include "util/owned.hpp"
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

// A server with a second gate on its surfaces' hold queue, fed by the
// test's fences.
struct GatedServer {
  Harness h;
  EventFences fences;
  ReadinessGate gate{h.server().hold_queue(), fences};
  HoldQueue& queue() { return h.server().hold_queue(); }
  [[nodiscard]] size_t held() { return queue().held(HoldReason::fence); }
  [[nodiscard]] uint64_t let_through() { return queue().cleared(HoldReason::fence); }
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
  EXPECT_EQ(s.held(), 1u);
  Image waiting = s.h.capture();
  EXPECT_EQ(count_pixels(waiting, kRed), kWindowPixels) << "the previous buffer is not shown";
  EXPECT_EQ(count_pixels(waiting, kBlue), 0) << "a buffer was shown before its fence signalled";

  fence.signal();
  ASSERT_TRUE(s.h.run_until([&] { return s.held() == 0; }));
  EXPECT_EQ(s.let_through(), 1u);
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
  EXPECT_EQ(s.held(), 0u);
  EXPECT_EQ(s.let_through(), 0u) << "a ready commit went through the hold path";
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
  EXPECT_EQ(s.held(), 0u);
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
  ASSERT_EQ(s.held(), 1u);
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
    ASSERT_EQ(s.held(), 1u);
  }
  ASSERT_TRUE(s.h.run_until([&] { return s.held() == 0; }));
  // The client goes on as if nothing happened.
  Window again(c);
  map_window(s.h, again, kGreen);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// A fence that does not signal is logged once per held commit, after a
// second (tests/vm/clients_test.sh greps the line), while the surface keeps
// its previous buffer.
TEST(ReadinessGate, AStuckFenceIsLoggedOnceForEachHeldCommitAfterASecond) {
  GatedServer s;
  Client c(s.h);
  Window w(c);
  map_window(s.h, w, kRed);
  UniqueFd log_file(memfd_create("baton-log", MFD_CLOEXEC));
  ASSERT_TRUE(log_file);
  log::also_to(log_file.get());
  struct StopLogging {
    ~StopLogging() { log::also_to(-1); }
  } stop_logging;
  auto stuck_lines = [&] {
    const std::string text = read_file("/proc/self/fd/" + std::to_string(log_file.get()));
    size_t n = 0;
    for (size_t at = text.find("buffer not ready after 1000 ms"); at != std::string::npos;
         at = text.find("buffer not ready after 1000 ms", at + 1))
      ++n;
    return n;
  };
  const int64_t start = monotonic_ns();
  EventFence first = s.fences.arm();
  w.draw(100, 80, kBlue);
  EventFence second = s.fences.arm();
  w.draw(100, 80, kGreen);
  s.h.sync();
  ASSERT_EQ(s.held(), 2u);
  s.h.run_for(std::chrono::milliseconds(300));
  if (monotonic_ns() - start < 1'000'000'000) {
    EXPECT_EQ(stuck_lines(), 0u) << "logged early";
  }
  ASSERT_TRUE(s.h.run_until([&] { return stuck_lines() == 2; }))
      << stuck_lines() << " stuck fences logged of 2";
  s.h.run_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(stuck_lines(), 2u) << "a stuck fence was logged more than once";
  EXPECT_EQ(count_pixels(s.h.capture(), kRed), kWindowPixels);
}

// A client's wp_fifo_manager_v1 (the last one advertised).
Owned<wp_fifo_manager_v1, wp_fifo_manager_v1_destroy> bind_fifo(Harness& h, Client& c) {
  Owned<wl_registry, wl_registry_destroy> registry(wl_display_get_registry(c.display()));
  wp_fifo_manager_v1* fifo = nullptr;
  static const wl_registry_listener listener = {
      [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
        if (std::string_view(iface) == wp_fifo_manager_v1_interface.name)
          *static_cast<wp_fifo_manager_v1**>(data) = static_cast<wp_fifo_manager_v1*>(
              wl_registry_bind(r, name, &wp_fifo_manager_v1_interface, 1));
      },
      [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(registry, &listener, &fifo);
  h.sync();
  return Owned<wp_fifo_manager_v1, wp_fifo_manager_v1_destroy>(fifo);
}

// The one place a held commit dies: a surface destroyed with commits held by
// their fences and by a fifo barrier, one of them by both, leaves nothing
// held, every buffer released, and no fd open that was not open before.
TEST(HoldQueue, ASurfaceDestroyedWithCommitsHeldByFenceAndFifoReleasesEverything) {
  GatedServer s;
  Client c(s.h);
  auto fifo_manager = bind_fifo(s.h, c);
  ASSERT_NE(fifo_manager.get(), nullptr) << "wp_fifo_manager_v1 is not advertised";
  const std::multiset<std::string> fds_before = open_fds();
  {
    std::vector<std::unique_ptr<ShmBuffer>> buffers;
    for (uint32_t colour : {kRed, kBlue, kGreen})
      buffers.push_back(std::make_unique<ShmBuffer>(c.shm, 32, 32, colour));
    wl_surface* surface = wl_compositor_create_surface(c.compositor);
    wp_fifo_v1* fifo = wp_fifo_manager_v1_get_fifo(fifo_manager, surface);
    auto commit = [&](const ShmBuffer& buffer) {
      wl_surface_attach(surface, buffer.get(), 0, 0);
      wl_surface_damage_buffer(surface, 0, 0, 32, 32);
      wl_surface_commit(surface);
    };
    EventFence first = s.fences.arm();
    EventFence second = s.fences.arm();
    wp_fifo_v1_set_barrier(fifo);
    commit(*buffers[0]);  // held by its fence; sets the barrier when it applies
    wp_fifo_v1_wait_barrier(fifo);
    commit(*buffers[1]);  // held by its fence and by the barrier
    wp_fifo_v1_wait_barrier(fifo);
    commit(*buffers[2]);  // held by the barrier
    s.h.sync();
    HoldQueue& queue = s.queue();
    ASSERT_EQ(queue.held(), 3u);
    EXPECT_EQ(queue.held(HoldReason::fence), 2u);
    EXPECT_EQ(queue.held(HoldReason::fifo_barrier), 2u);
    EXPECT_EQ(queue.cost(s.h.server_client(c.display())).commits, 3u);
    for (const auto& buffer : buffers) EXPECT_FALSE(buffer->released());

    wp_fifo_v1_destroy(fifo);
    wl_surface_destroy(surface);
    s.h.sync();
    EXPECT_EQ(queue.held(), 0u);
    EXPECT_EQ(queue.cost(s.h.server_client(c.display())).commits, 0u);
    EXPECT_EQ(s.h.server().fifo().held(), 0u);
    ASSERT_TRUE(s.h.run_until([&] {
      return std::all_of(buffers.begin(), buffers.end(),
                         [](const auto& buffer) { return buffer->released(); });
    })) << "a buffer of a held commit was not released with its surface";
  }  // the client's buffers and its ends of the fences go
  s.h.sync();
  EXPECT_EQ(added(fds_before, open_fds()), "") << "fds left open by the held commits";
  // The client goes on as if nothing happened.
  Window again(c);
  map_window(s.h, again, kGreen);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// The fd bound: each fence baton waits for costs it two fds (its own and the
// event loop's copy), so a client whose commits wait for more fences than
// the budget allows gets an implementation error naming the bound; another
// client goes on. (One shm buffer for all: it counts once.)
TEST(HoldQueue, AClientPastItsFdBoundGetsAnErrorNamingItWhileAnotherGoesOn) {
  rlimit fds{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &fds), 0);  // raised to the hard limit by the server
  GatedServer s;
  const size_t bound = s.queue().budget().fds;
  if (fds.rlim_max < 4 * bound)
    GTEST_SKIP() << "UNTESTED HERE: the hard fd limit " << fds.rlim_max
                 << " is too low for this process to hold " << 3 * bound << " fds";
  Client greedy(s.h), other(s.h);
  Window greedy_window(greedy), other_window(other);
  map_window(s.h, greedy_window, kRed);
  map_window(s.h, other_window, kRed, 300, 20);
  ShmBuffer buffer(greedy.shm, 100, 80, kBlue);
  wl_client* client = s.h.server_client(greedy.display());
  std::vector<EventFence> never;
  auto hold_one = [&] {
    never.push_back(s.fences.arm());
    wl_surface_attach(greedy_window.surface(), buffer.get(), 0, 0);
    wl_surface_commit(greedy_window.surface());
  };
  // Each held commit adds two fds: bound / 2 of them reach the bound.
  for (size_t i = 0; i < bound && s.queue().cost(client).fds + 2 <= bound; ++i) {
    hold_one();
    s.h.sync();
    ASSERT_EQ(wl_display_get_error(greedy.display()), 0)
        << "disconnected within its bound, at " << s.queue().cost(client).fds << " fds";
  }
  ASSERT_GE(s.queue().cost(client).fds + 2, bound) << "fences held cost no fds";
  ClientLogCapture log_capture;
  hold_one();  // past it
  ASSERT_TRUE(s.h.run_until([&] { return wl_display_get_error(greedy.display()) != 0; }))
      << "the client held " << s.held() << " commits and was not stopped";
  const std::string named = std::to_string(bound) + " fds";
  EXPECT_NE(ClientLogCapture::captured().find(named), std::string::npos)
      << "the error does not name the bound (" << named << "): " << ClientLogCapture::captured();
  // Its surfaces are gone with it, and so are its holds.
  ASSERT_TRUE(s.h.run_until([&] { return s.held() == 0; }));
  other_window.draw(100, 80, kGreen);
  ASSERT_TRUE(s.h.run_until([&] { return count_pixels(s.h.capture(), kGreen) == kWindowPixels; }));
  EXPECT_EQ(wl_display_get_error(other.display()), 0);
}

}  // namespace
}  // namespace baton::test
