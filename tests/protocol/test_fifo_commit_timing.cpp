// fifo-v1 and commit-timing-v1 from a client's side, in-process: what the
// client learns from presentation-time feedback (presented, with its time
// and refresh sequence, or discarded: replaced by a later commit before any
// frame showed it) and from protocol errors. A hidden surface gets no
// "presented", but each applied commit discards the feedback of the one
// before: the discards are the clock of its commits.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <deque>
#include <vector>

#include "commit-timing-v1-client-protocol.h"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "fifo-v1-client-protocol.h"
#include "handoff/hold_queue.hpp"
#include "protocols/commit_timing.hpp"
#include "protocols/fifo.hpp"
#include "tests/support/client.hpp"
#include "tests/support/client_log.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"
#include "util/signal.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kRefreshNs = 16'666'667;  // headless test outputs run at 60 Hz

int64_t now_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// The client's fifo and commit-timing managers.
struct TimingGlobals {
  Owned<wl_registry, wl_registry_destroy> registry;
  Owned<wp_fifo_manager_v1, wp_fifo_manager_v1_destroy> fifo;
  Owned<wp_commit_timing_manager_v1, wp_commit_timing_manager_v1_destroy> timing;
};

void bind_globals(Harness& h, Client& c, TimingGlobals& g) {
  g.registry = decltype(g.registry)(wl_display_get_registry(c.display()));
  static const wl_registry_listener listener = {
      [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
        auto* globals = static_cast<TimingGlobals*>(data);
        if (std::strcmp(iface, wp_fifo_manager_v1_interface.name) == 0)
          globals->fifo = decltype(TimingGlobals::fifo)(static_cast<wp_fifo_manager_v1*>(
              wl_registry_bind(r, name, &wp_fifo_manager_v1_interface, 1)));
        if (std::strcmp(iface, wp_commit_timing_manager_v1_interface.name) == 0)
          globals->timing =
              decltype(TimingGlobals::timing)(static_cast<wp_commit_timing_manager_v1*>(
                  wl_registry_bind(r, name, &wp_commit_timing_manager_v1_interface, 1)));
      },
      [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(g.registry, &listener, &g);
  h.sync();
  ASSERT_NE(g.fifo.get(), nullptr) << "wp_fifo_manager_v1 is not advertised";
  ASSERT_NE(g.timing.get(), nullptr) << "wp_commit_timing_manager_v1 is not advertised";
}

// What presentation-time said about one commit.
struct Feedback {
  bool presented = false;
  bool discarded = false;
  int64_t when_ns = 0;                               // presented: the presentation time
  uint64_t seq = 0;                                  // presented: the output's refresh counter
  int64_t discarded_ns = 0;                          // discarded: when the client heard it
  struct wp_presentation_feedback* proxy = nullptr;  // until answered
  [[nodiscard]] bool answered() const { return presented || discarded; }
};

// Feedback for each commit, in commit order.
class FeedbackLog {
 public:
  FeedbackLog() = default;
  FeedbackLog(const FeedbackLog&) = delete;
  FeedbackLog& operator=(const FeedbackLog&) = delete;
  // Feedback still unanswered (a hidden surface's last commit) is let go.
  ~FeedbackLog() {
    for (Feedback& f : entries_)
      if (f.proxy != nullptr) wp_presentation_feedback_destroy(f.proxy);
  }
  /// Asks for feedback on the next commit of `surface`.
  void request(Client& c, wl_surface* surface) {
    entries_.emplace_back();
    auto* feedback = wp_presentation_feedback(c.presentation, surface);
    static const wp_presentation_feedback_listener listener = {
        [](void*, struct wp_presentation_feedback*, wl_output*) {},
        [](void* d, struct wp_presentation_feedback* f, uint32_t hi, uint32_t lo, uint32_t nsec,
           uint32_t, uint32_t seq_hi, uint32_t seq_lo, uint32_t) {
          auto* out = static_cast<Feedback*>(d);
          out->presented = true;
          out->when_ns = static_cast<int64_t>((uint64_t{hi} << 32) | lo) * 1'000'000'000 + nsec;
          out->seq = (uint64_t{seq_hi} << 32) | seq_lo;
          out->proxy = nullptr;
          wp_presentation_feedback_destroy(f);
        },
        [](void* d, struct wp_presentation_feedback* f) {
          auto* out = static_cast<Feedback*>(d);
          out->discarded = true;
          out->discarded_ns = now_ns();
          out->proxy = nullptr;
          wp_presentation_feedback_destroy(f);
        },
    };
    entries_.back().proxy = feedback;
    wp_presentation_feedback_add_listener(feedback, &listener, &entries_.back());
  }
  [[nodiscard]] size_t size() const { return entries_.size(); }
  const Feedback& operator[](size_t i) const { return entries_[i]; }
  [[nodiscard]] size_t answered() const {
    return static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(),
                                             [](const Feedback& f) { return f.answered(); }));
  }
  [[nodiscard]] size_t discarded() const {
    return static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(),
                                             [](const Feedback& f) { return f.discarded; }));
  }

 private:
  std::deque<Feedback> entries_;  // a deque: the listeners hold addresses
};

View* view_of(Harness& h, Window& w) {
  for (const auto& v : h.server().windows().views())
    if (v->mapped() && v->surface() != nullptr &&
        wl_resource_get_id(v->surface()->resource) ==
            wl_proxy_get_id(reinterpret_cast<wl_proxy*>(w.surface())))
      return v.get();
  return nullptr;
}

// Maps `w` (100x80) showing `colour` at (x, y).
void map_window(Harness& h, Window& w, uint32_t colour, int x = 20, int y = 20) {
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() >= 1; }));
  w.draw(100, 80, colour);
  ASSERT_TRUE(h.run_until([&] { return view_of(h, w) != nullptr; }));
  view_of(h, w)->move_to(x, y);
  ASSERT_TRUE(h.run_until([&] { return count_pixels(h.capture(), colour) >= 100L * 80; }))
      << "the window did not appear";
}

// The client died of a protocol error `code` on an object of `iface`.
void expect_protocol_error(Harness& h, Client& c, const wl_interface* iface, uint32_t code) {
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(c.display()) != 0; }))
      << "no protocol error";
  const wl_interface* got = nullptr;
  uint32_t id = 0;
  EXPECT_EQ(wl_display_get_protocol_error(c.display(), &got, &id), code);
  ASSERT_NE(got, nullptr);
  EXPECT_STREQ(got->name, iface->name);
}

// A surface with no role: never mapped, on no output.
struct BareSurface {
  explicit BareSurface(Client& c)
      : client(c), surface(wl_compositor_create_surface(c.compositor)) {}
  ~BareSurface() { wl_surface_destroy(surface); }
  void draw(uint32_t argb) {
    buffers.push_back(std::make_unique<ShmBuffer>(client.shm, 32, 32, argb));
    wl_surface_attach(surface, buffers.back()->get(), 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, 32, 32);
    wl_surface_commit(surface);
  }
  Client& client;
  wl_surface* surface;
  std::vector<std::unique_ptr<ShmBuffer>> buffers;
};

// Every commit in `log` was presented, each in a refresh cycle of its own,
// in order. The headless backend reports no refresh counter (seq 0), so
// distinct cycles show as presentation times at least most of a refresh
// apart (its next frame comes a whole period after a commit); where seq is
// reported it must grow.
void expect_presented_in_order_each_in_its_own_refresh(const FeedbackLog& log) {
  for (size_t i = 0; i < log.size(); ++i) {
    EXPECT_TRUE(log[i].presented) << "commit " << i << " was discarded";
    if (i == 0) continue;
    EXPECT_GE(log[i].when_ns - log[i - 1].when_ns, kRefreshNs * 3 / 4)
        << "commit " << i << " shared a refresh with " << i - 1;
    if (log[i].seq != 0 || log[i - 1].seq != 0) {
      EXPECT_GT(log[i].seq, log[i - 1].seq);
    }
  }
}

// ---------------------------------------------------------------------------
// fifo-v1

TEST(Fifo, EveryCommitIsPresentedOnceInOrder) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));

  // As Vulkan's FIFO mode does: every commit sets the barrier and waits for
  // the one before, all queued at once.
  constexpr int kCommits = 8;
  FeedbackLog log;
  for (int i = 0; i < kCommits; ++i) {
    log.request(c, w.surface());
    wp_fifo_v1_set_barrier(fifo);
    wp_fifo_v1_wait_barrier(fifo);
    w.draw(100, 80, 0xff000000 | static_cast<uint32_t>(0x101010 * (i + 1)));
  }
  ASSERT_TRUE(h.run_until([&] { return log.answered() == kCommits; }, milliseconds(3000)))
      << log.answered() << " of " << kCommits << " commits answered";
  expect_presented_in_order_each_in_its_own_refresh(log);
  // One refresh each: the output's latch clears the barrier, not the
  // fallback timer (a 30 Hz cadence).
  std::vector<int64_t> intervals;
  for (int i = 1; i < kCommits; ++i) intervals.push_back(log[i].when_ns - log[i - 1].when_ns);
  std::sort(intervals.begin(), intervals.end());
  EXPECT_LE(intervals[intervals.size() / 2], kRefreshNs * 3 / 2);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(Fifo, WithoutWaitBarrierQueuedCommitsReplaceEachOther) {
  // The control for the test above: set_barrier alone holds nothing.
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
  FeedbackLog log;
  for (int i = 0; i < 8; ++i) {
    log.request(c, w.surface());
    wp_fifo_v1_set_barrier(fifo);
    w.draw(100, 80, 0xff000000 | static_cast<uint32_t>(0x101010 * (i + 1)));
  }
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 8; }, milliseconds(3000)));
  EXPECT_GE(log.discarded(), 1u);
  EXPECT_TRUE(log[7].presented);
}

TEST(Fifo, AWaitingCommitAppliesOnlyAfterTheOutputLatchedTheBarrierCommit) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
  FeedbackLog log;
  log.request(c, w.surface());
  wp_fifo_v1_set_barrier(fifo);
  w.draw(100, 80, kBlue);
  log.request(c, w.surface());
  wp_fifo_v1_wait_barrier(fifo);
  w.draw(100, 80, kGreen);
  // Both requests reach the server at once; the second waits.
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 2; }, milliseconds(2000)));
  ASSERT_TRUE(log[0].presented) << "the barrier commit was replaced before any frame showed it";
  ASSERT_TRUE(log[1].presented);
  expect_presented_in_order_each_in_its_own_refresh(log);
  EXPECT_EQ(count_pixels(h.capture(), kGreen), 100L * 80);
}

TEST(Fifo, ABarrierWithoutNewContentStillClearsAtTheNextRefresh) {
  // An empty commit with set_barrier damages nothing; the output must latch
  // anyway (latch_wanted) instead of leaving it to the fallback timer.
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
  const uint64_t fallbacks_before = h.server().fifo().fallback_clears();
  constexpr int kRounds = 6;
  for (int i = 0; i < kRounds; ++i) {
    wp_fifo_v1_set_barrier(fifo);
    wl_surface_commit(w.surface());
    FeedbackLog log;
    log.request(c, w.surface());
    wp_fifo_v1_wait_barrier(fifo);
    w.draw(100, 80, i % 2 == 0 ? kBlue : kGreen);
    ASSERT_TRUE(h.run_until([&] { return log.answered() == 1; }, milliseconds(1000)));
    EXPECT_TRUE(log[0].presented);
    // The output goes idle: no frame is on its way when the next barrier comes.
    h.run_for(milliseconds(50));
  }
  EXPECT_LE(h.server().fifo().fallback_clears() - fallbacks_before, 1u)
      << "barriers were left to the fallback timer: no frame was scheduled for them";
}

// Sends `commits` commits with set_barrier and wait_barrier to a surface no
// output shows; each must apply (discarding the feedback of the one
// before) at 30 Hz or more, and not faster than the barrier allows.
void expect_hidden_surface_never_stalls(Harness& h, Client& c, wp_fifo_v1* fifo,
                                        wl_surface* surface, int64_t min_interval_ns,
                                        const std::function<void(uint32_t)>& draw) {
  constexpr int kCommits = 10;
  FeedbackLog log;
  for (int i = 0; i < kCommits; ++i) {
    log.request(c, surface);
    wp_fifo_v1_set_barrier(fifo);
    wp_fifo_v1_wait_barrier(fifo);
    draw(0xff000000 | static_cast<uint32_t>(0x101010 * (i + 1)));
  }
  ASSERT_TRUE(h.run_until([&] { return log.discarded() == kCommits - 1; }, milliseconds(2000)))
      << "a hidden surface stalled: " << log.discarded() << " of " << kCommits - 1
      << " commits applied";
  std::vector<int64_t> intervals;
  for (int i = 1; i < kCommits - 1; ++i)
    intervals.push_back(log[i].discarded_ns - log[i - 1].discarded_ns);
  std::sort(intervals.begin(), intervals.end());
  const int64_t median = intervals[intervals.size() / 2];
  EXPECT_LE(median, 36 * kMs) << "slower than 30 Hz";
  EXPECT_GE(median, min_interval_ns) << "the barrier did not hold";
}

TEST(Fifo, ASurfaceOnNoOutputNeverStalls) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  BareSurface s(c);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, s.surface));
  // On no output, only the fallback timer clears the barrier: 30 Hz.
  expect_hidden_surface_never_stalls(h, c, fifo, s.surface, 28 * kMs,
                                     [&](uint32_t argb) { s.draw(argb); });
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(Fifo, AWindowOnAnotherWorkspaceNeverStalls) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  h.server().workspaces().move_view(*view_of(h, w), 2);
  ASSERT_TRUE(h.run_until([&] { return count_pixels(h.capture(), kRed) == 0; }));
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
  // wlroots 0.19's scene keeps a disabled node's outputs (no leave), so the
  // window still counts as on its output, whose latches clear the barrier at
  // the refresh rate; on no output at all the fallback would.
  expect_hidden_surface_never_stalls(h, c, fifo, w.surface(), kRefreshNs * 3 / 4,
                                     [&](uint32_t argb) { w.draw(100, 80, argb); });
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(Fifo, DestroyingTheFifoObjectStallsNothing) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  auto* fifo = wp_fifo_manager_v1_get_fifo(g.fifo, w.surface());
  FeedbackLog log;
  wp_fifo_v1_set_barrier(fifo);
  w.draw(100, 80, kBlue);
  log.request(c, w.surface());
  wp_fifo_v1_wait_barrier(fifo);
  w.draw(100, 80, kGreen);
  wp_fifo_v1_destroy(fifo);
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 1; }, milliseconds(1000)));
  EXPECT_TRUE(log[0].presented);
  // A new fifo object for the surface is allowed once the first is gone.
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> again(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(Fifo, ASurfaceDestroyedWithHeldCommitsLeavesNothingHeld) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  {
    BareSurface s(c);
    Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, s.surface));
    for (int i = 0; i < 5; ++i) {
      wp_fifo_v1_set_barrier(fifo);
      wp_fifo_v1_wait_barrier(fifo);
      s.draw(kBlue);
    }
    h.sync();
    ASSERT_GE(h.server().fifo().held(), 1u);
  }
  h.sync();
  EXPECT_EQ(h.server().fifo().held(), 0u);
  Window w(c);
  map_window(h, w, kGreen);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(FifoErrors, ASecondFifoForOneSurfaceIsAlreadyExists) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  auto* first = wp_fifo_manager_v1_get_fifo(g.fifo, w.surface());
  auto* second = wp_fifo_manager_v1_get_fifo(g.fifo, w.surface());
  expect_protocol_error(h, c, &wp_fifo_manager_v1_interface,
                        WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS);
  wp_fifo_v1_destroy(first);
  wp_fifo_v1_destroy(second);
}

TEST(FifoErrors, SetBarrierAfterTheSurfaceDiedIsSurfaceDestroyed) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  wl_surface* surface = wl_compositor_create_surface(c.compositor);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, surface));
  wl_surface_destroy(surface);
  wp_fifo_v1_set_barrier(fifo);
  expect_protocol_error(h, c, &wp_fifo_v1_interface, WP_FIFO_V1_ERROR_SURFACE_DESTROYED);
}

TEST(FifoErrors, WaitBarrierAfterTheSurfaceDiedIsSurfaceDestroyed) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  wl_surface* surface = wl_compositor_create_surface(c.compositor);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, surface));
  wl_surface_destroy(surface);
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0) << "destroying the surface alone is fine";
  wp_fifo_v1_wait_barrier(fifo);
  expect_protocol_error(h, c, &wp_fifo_v1_interface, WP_FIFO_V1_ERROR_SURFACE_DESTROYED);
}

// ---------------------------------------------------------------------------
// commit-timing-v1

void set_target(wp_commit_timer_v1* timer, int64_t target_ns) {
  const auto sec = static_cast<uint64_t>(target_ns / 1'000'000'000);
  wp_commit_timer_v1_set_timestamp(timer, static_cast<uint32_t>(sec >> 32),
                                   static_cast<uint32_t>(sec & 0xffffffffu),
                                   static_cast<uint32_t>(target_ns % 1'000'000'000));
}

TEST(CommitTiming, ACommitIsNotPresentedBeforeItsTargetAndIsWithinARefreshAfter) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  for (int round = 0; round < 3; ++round) {
    FeedbackLog log;
    log.request(c, w.surface());
    const int64_t target = now_ns() + 100 * kMs;
    set_target(timer, target);
    w.draw(100, 80, round % 2 == 0 ? kBlue : kGreen);
    h.take_longest_stall();
    ASSERT_TRUE(h.run_until([&] { return log.answered() == 1; }, milliseconds(1000)));
    const int64_t stalled = h.take_longest_stall().count();
    ASSERT_TRUE(log[0].presented);
    EXPECT_GE(log[0].when_ns, target)
        << "presented " << (target - log[0].when_ns) / kMs << " ms early";
    EXPECT_LE(log[0].when_ns, target + kRefreshNs + 5 * kMs + stalled)
        << "presented " << (log[0].when_ns - target) / kMs << " ms late (the test stalled "
        << stalled / kMs << " ms)";
  }
}

TEST(CommitTiming, ATargetInThePastIsShownAtTheNextFrame) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  FeedbackLog log;
  log.request(c, w.surface());
  const int64_t sent = now_ns();
  set_target(timer, sent - 1000 * kMs);
  w.draw(100, 80, kBlue);
  h.take_longest_stall();
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 1; }, milliseconds(1000)));
  const int64_t stalled = h.take_longest_stall().count();
  ASSERT_TRUE(log[0].presented);
  EXPECT_LE(log[0].when_ns - sent, 2 * kRefreshNs + stalled);
}

TEST(CommitTiming, LaterCommitsWaitForAnEarlierTimedOne) {
  // The order of commits never changes: an untimed commit made after a
  // timed one is not shown before the timed one's target.
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  FeedbackLog log;
  log.request(c, w.surface());
  const int64_t target = now_ns() + 100 * kMs;
  set_target(timer, target);
  w.draw(100, 80, kBlue);
  log.request(c, w.surface());
  w.draw(100, 80, kGreen);
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 2; }, milliseconds(1000)));
  ASSERT_TRUE(log[1].presented);
  EXPECT_GE(log[1].when_ns, target);
}

TEST(CommitTiming, AHiddenSurfaceAppliesAtItsTargetOrAtOnceWhenItHasPassed) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  BareSurface s(c);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, s.surface));
  FeedbackLog log;
  log.request(c, s.surface);
  s.draw(kRed);  // untimed
  log.request(c, s.surface);
  const int64_t target = now_ns() + 100 * kMs;
  set_target(timer, target);
  s.draw(kBlue);  // applies at its target: discards the feedback before it
  h.take_longest_stall();
  ASSERT_TRUE(h.run_until([&] { return log.discarded() == 1; }, milliseconds(1000)));
  EXPECT_GE(log[0].discarded_ns, target);
  EXPECT_LE(log[0].discarded_ns, target + 20 * kMs + h.take_longest_stall().count());

  log.request(c, s.surface);
  const int64_t sent = now_ns();
  set_target(timer, sent - 50 * kMs);
  s.draw(kGreen);  // its time has passed: applies at once
  h.take_longest_stall();
  ASSERT_TRUE(h.run_until([&] { return log.discarded() == 2; }, milliseconds(1000)));
  EXPECT_LE(log[1].discarded_ns - sent, 10 * kMs + h.take_longest_stall().count());
}

// A mapped window with a wp_fifo_v1 and a wp_commit_timer_v1, as Mesa's
// FIFO swapchain with presentation timing has.
struct TimedFifoWindow {
  explicit TimedFifoWindow(Harness& harness) : h(harness), c(h), w(c) {}
  void open() {
    bind_globals(h, c, g);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    map_window(h, w, kRed);
    fifo = decltype(fifo)(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
    timer = decltype(timer)(wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  }
  Harness& h;
  Client c;
  TimingGlobals g;
  Window w;
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo;
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer;
};

TEST(CommitTiming, ACommitWithABarrierWaitAndATargetWaitsForBoth) {
  // Mesa's FIFO swapchain with presentation timing does this.
  Harness h;
  TimedFifoWindow t(h);
  ASSERT_NO_FATAL_FAILURE(t.open());
  Client& c = t.c;
  Window& w = t.w;
  wp_fifo_v1* fifo = t.fifo;
  wp_commit_timer_v1* timer = t.timer;
  constexpr int kCommits = 4;
  FeedbackLog log;
  std::vector<int64_t> targets;
  const int64_t start = now_ns();
  for (int i = 0; i < kCommits; ++i) {
    log.request(c, w.surface());
    wp_fifo_v1_set_barrier(fifo);
    wp_fifo_v1_wait_barrier(fifo);
    // One target for all: when it passes, only the barriers keep them apart.
    targets.push_back(start + 50 * kMs);
    set_target(timer, targets.back());
    w.draw(100, 80, i % 2 == 0 ? kBlue : kGreen);
  }
  ASSERT_TRUE(h.run_until([&] { return log.answered() == kCommits; }, milliseconds(2000)));
  for (int i = 0; i < kCommits; ++i) {
    ASSERT_TRUE(log[i].presented) << "commit " << i;
    EXPECT_GE(log[i].when_ns, targets[i]) << "commit " << i;
  }
  expect_presented_in_order_each_in_its_own_refresh(log);
  EXPECT_EQ(h.server().fifo().held() + h.server().commit_timing().held(), 0u);
}

TEST(CommitTiming, DestroyingTheTimerKeepsItsTargetsAndStallsNothing) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  auto* timer = wp_commit_timing_manager_v1_get_timer(g.timing, w.surface());
  FeedbackLog log;
  log.request(c, w.surface());
  const int64_t target = now_ns() + 100 * kMs;
  set_target(timer, target);
  w.draw(100, 80, kBlue);
  wp_commit_timer_v1_destroy(timer);
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 1; }, milliseconds(1000)));
  ASSERT_TRUE(log[0].presented);
  EXPECT_GE(log[0].when_ns, target) << "the protocol: existing constraints stay";
  // A new timer for the surface is allowed once the first is gone.
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> again(
      wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(CommitTiming, ASurfaceDestroyedWithHeldCommitsLeavesNothingHeld) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  {
    Window w(c);
    map_window(h, w, kRed);
    Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
        wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
    for (int i = 0; i < 3; ++i) {
      set_target(timer, now_ns() + 10'000 * kMs);
      w.draw(100, 80, kBlue);
    }
    h.sync();
    ASSERT_EQ(h.server().commit_timing().held(), 3u);
  }
  h.sync();
  EXPECT_EQ(h.server().commit_timing().held(), 0u);
  Window again(c);
  map_window(h, again, kGreen);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST(CommitTimingErrors, NanosecondsOfASecondOrMoreIsInvalidTimestamp) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  wp_commit_timer_v1_set_timestamp(timer, 0, 1, 999'999'999);  // fine
  wl_surface_commit(w.surface());
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
  wp_commit_timer_v1_set_timestamp(timer, 0, 1, 1'000'000'000);
  expect_protocol_error(h, c, &wp_commit_timer_v1_interface,
                        WP_COMMIT_TIMER_V1_ERROR_INVALID_TIMESTAMP);
}

TEST(CommitTimingErrors, TwoTimestampsForOneCommitIsTimestampExists) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  // One per commit is fine: the commit takes it.
  set_target(timer, now_ns() - 10 * kMs);
  wl_surface_commit(w.surface());
  set_target(timer, now_ns() - 10 * kMs);
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
  set_target(timer, now_ns());
  expect_protocol_error(h, c, &wp_commit_timer_v1_interface,
                        WP_COMMIT_TIMER_V1_ERROR_TIMESTAMP_EXISTS);
}

TEST(CommitTimingErrors, SetTimestampAfterTheSurfaceDiedIsSurfaceDestroyed) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  wl_surface* surface = wl_compositor_create_surface(c.compositor);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, surface));
  wl_surface_destroy(surface);
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
  set_target(timer, now_ns());
  expect_protocol_error(h, c, &wp_commit_timer_v1_interface,
                        WP_COMMIT_TIMER_V1_ERROR_SURFACE_DESTROYED);
}

TEST(CommitTimingErrors, ASecondTimerForOneSurfaceIsCommitTimerExists) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  auto* first = wp_commit_timing_manager_v1_get_timer(g.timing, w.surface());
  auto* second = wp_commit_timing_manager_v1_get_timer(g.timing, w.surface());
  expect_protocol_error(h, c, &wp_commit_timing_manager_v1_interface,
                        WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS);
  wp_commit_timer_v1_destroy(first);
  wp_commit_timer_v1_destroy(second);
}

// ---------------------------------------------------------------------------
// The hold queue: as deep as a client's cost allows, over both protocols

// A timing client as video players and timing tests are: 500 FIFO commits,
// each with a target time ahead, all queued at once from shm buffers. Every
// one is shown, in order, each in its own refresh, none before its target,
// and the client is not disconnected. (The 64-commit cap this replaced
// disconnected such a client with "Broken pipe".)
TEST(HoldQueue, FiveHundredTimedFifoCommitsAreAllShownInOrderEachAtOrAfterItsTarget) {
  Options options = headless_options();
  options.headless_size = {640, 480, 120000};  // 120 Hz: half the wall time of 60
  constexpr int64_t kPeriodNs = 8'333'333;
  Harness h(options);
  TimedFifoWindow t(h);
  ASSERT_NO_FATAL_FAILURE(t.open());
  Client& c = t.c;
  Window& w = t.w;
  constexpr int kCommits = 500;
  FeedbackLog log;
  std::vector<int64_t> targets;
  size_t deepest = 0;
  // Two commits to each target, targets 2.5 refreshes apart: the barrier
  // keeps the second of a pair out of its first's refresh, the target keeps
  // the next pair back.
  const int64_t start = now_ns() + 200 * kMs;
  for (int i = 0; i < kCommits; ++i) {
    log.request(c, w.surface());
    wp_fifo_v1_set_barrier(t.fifo);
    wp_fifo_v1_wait_barrier(t.fifo);
    targets.push_back(start + (i / 2) * kPeriodNs * 5 / 2);
    set_target(t.timer, targets.back());
    w.draw(100, 80, 0xff000000 | static_cast<uint32_t>(i * 0x010203 + 0x102030));
    if (i % 25 == 24) {  // keep the socket from filling up; the queue grows
      h.sync();
      deepest = std::max(deepest, h.server().hold_queue().held());
    }
  }
  // Deeper than the 64-commit cap this replaced (at 120 Hz the queue drains
  // one commit per 10 ms; a sync of 25 commits takes a few ms).
  EXPECT_GT(deepest, 64u) << "the commits were not queued at once";
  // Liveness only: ~5 s at 120 Hz on an idle machine.
  ASSERT_TRUE(h.run_until(
      [&] { return log.answered() == kCommits || wl_display_get_error(c.display()) != 0; },
      milliseconds(60000)))
      << log.answered() << " of " << kCommits << " commits answered; "
      << h.server().hold_queue().held() << " still held";
  ASSERT_EQ(wl_display_get_error(c.display()), 0) << "the client was disconnected";
  int early = 0, out_of_order = 0, discarded = 0;
  for (int i = 0; i < kCommits; ++i) {
    if (!log[i].presented) {
      ++discarded;
      continue;
    }
    if (log[i].when_ns < targets[i]) ++early;
    if (i > 0 && log[i - 1].presented && log[i].when_ns <= log[i - 1].when_ns) ++out_of_order;
  }
  EXPECT_EQ(discarded, 0) << "commits replaced before any frame showed them";
  EXPECT_EQ(early, 0) << "commits shown before their target";
  EXPECT_EQ(out_of_order, 0) << "commits shown out of order or two in one refresh";
  EXPECT_EQ(h.server().hold_queue().held(), 0u);
}

// With --trace, each blocker is a span on its surface's track: how long it
// held its commit.
TEST(HoldQueue, TheTraceShowsHowLongEachBlockerHeldItsCommit) {
  const std::string path = scratch_dir("hold-queue-trace") + "/trace.json";
  {
    Options options = headless_options();
    options.trace_path = path;
    Harness h(options);
    TimedFifoWindow t(h);
    ASSERT_NO_FATAL_FAILURE(t.open());
    FeedbackLog log;
    const int64_t target = now_ns() + 50 * kMs;
    for (uint32_t colour : {kBlue, kGreen}) {
      log.request(t.c, t.w.surface());
      wp_fifo_v1_set_barrier(t.fifo);
      wp_fifo_v1_wait_barrier(t.fifo);
      set_target(t.timer, target);
      t.w.draw(100, 80, colour);
    }
    ASSERT_TRUE(h.run_until([&] { return log.answered() == 2; }, milliseconds(5000)));
  }  // the trace is written out as the server goes
  const std::string trace = read_file(path);
  EXPECT_NE(trace.find("\"held until its target time\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"held for a fifo barrier\""), std::string::npos) << trace;
}

// Held commits are bounded by what they cost, not by how many they are: a
// client whose queued commits keep more than the budget's bytes of buffers
// alive gets an implementation error naming the bound; another client goes
// on. (Each commit attaches a new 64 MiB wl_buffer of one sparse pool: the
// bound counts each buffer, and nothing is ever drawn.)
TEST(HoldQueue, AClientPastItsBufferBoundGetsAnErrorNamingItWhileAnotherGoesOn) {
  Harness h;
  Client greedy(h), other(h);
  TimingGlobals g;
  bind_globals(h, greedy, g);
  Window other_window(other);
  map_window(h, other_window, kRed, 300, 20);
  ClientLogCapture log_capture;

  const HoldBudget& budget = h.server().hold_queue().budget();
  constexpr int kSide = 4096;
  constexpr size_t kBufferBytes = size_t{kSide} * kSide * 4;
  const size_t fitting = budget.buffer_bytes / kBufferBytes;
  ASSERT_GE(fitting, 2u);
  UniqueFd memory(memfd_create("hold-queue-bound", MFD_CLOEXEC));
  ASSERT_EQ(ftruncate(memory.get(), static_cast<off_t>(kBufferBytes)), 0);
  wl_shm_pool* pool =
      wl_shm_create_pool(greedy.shm, memory.get(), static_cast<int32_t>(kBufferBytes));
  BareSurface timed(greedy);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, timed.surface));
  std::vector<wl_buffer*> buffers;
  auto queue_one = [&] {
    buffers.push_back(
        wl_shm_pool_create_buffer(pool, 0, kSide, kSide, kSide * 4, WL_SHM_FORMAT_ARGB8888));
    wl_surface_attach(timed.surface, buffers.back(), 0, 0);
    set_target(timer, now_ns() + 10'000 * kMs);
    wl_surface_commit(timed.surface);
  };
  // Exactly at the bound: fine.
  for (size_t i = 0; i < fitting; ++i) queue_one();
  h.sync();
  ASSERT_EQ(wl_display_get_error(greedy.display()), 0) << "disconnected within its bound";
  EXPECT_EQ(h.server().hold_queue().cost(h.server_client(greedy.display())).buffer_bytes,
            fitting * kBufferBytes);
  // One more buffer: past it.
  queue_one();
  expect_protocol_error(h, greedy, &wl_display_interface, WL_DISPLAY_ERROR_IMPLEMENTATION);
  const std::string bound = std::to_string(budget.buffer_bytes >> 20) + " MiB of buffers";
  EXPECT_NE(ClientLogCapture::captured().find(bound), std::string::npos)
      << "the error does not name the bound (" << bound << "): " << ClientLogCapture::captured();
  // Its surfaces are gone with it, and so are its holds.
  ASSERT_TRUE(h.run_until([&] { return h.server().hold_queue().held() == 0; }));
  // The other client keeps presenting.
  FeedbackLog log;
  log.request(other, other_window.surface());
  other_window.draw(100, 80, kGreen);
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 1; }));
  EXPECT_TRUE(log[0].presented);
  EXPECT_EQ(wl_display_get_error(other.display()), 0);
  for (wl_buffer* buffer : buffers) wl_buffer_destroy(buffer);
  wl_shm_pool_destroy(pool);
}

// Baton's own memory for queued commits is bounded too: empty commits held
// for far targets, some 16,000 of them, reach it, and the error names it.
TEST(HoldQueue, AClientPastItsMemoryBoundGetsAnErrorNamingIt) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  BareSurface timed(c);
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, timed.surface));
  const HoldBudget& budget = h.server().hold_queue().budget();
  const size_t most = budget.state_bytes / HoldBudget::kStateBytesPerCommit + 1;
  ClientLogCapture log_capture;
  // In batches while far from the bound, then one at a time, so that the
  // client reads the error before it writes to a closed connection.
  wl_client* client = h.server_client(c.display());
  for (size_t i = 0; i < most && wl_display_get_error(c.display()) == 0; ++i) {
    set_target(timer, now_ns() + 10'000 * kMs);
    wl_surface_commit(timed.surface);
    if (i + 500 >= most) {
      ASSERT_TRUE(h.run_until([&] {
        return wl_display_get_error(c.display()) != 0 ||
               h.server().hold_queue().cost(client).commits == i + 1;
      }));
    } else if (i % 500 == 499) {
      h.sync();
    }
  }
  expect_protocol_error(h, c, &wl_display_interface, WL_DISPLAY_ERROR_IMPLEMENTATION);
  const std::string bound = std::to_string(budget.state_bytes >> 20) + " MiB of compositor memory";
  EXPECT_NE(ClientLogCapture::captured().find(bound), std::string::npos)
      << "the error does not name the bound (" << bound << "): " << ClientLogCapture::captured();
  ASSERT_TRUE(h.run_until([&] { return h.server().hold_queue().held() == 0; }));
}

// Empty commits cost little: a thousand held by the two protocols together
// (the old bound was 64) keep the client connected.
TEST(HoldQueue, AThousandHeldEmptyCommitsOverBothProtocolsAreFine) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  BareSurface waits(c), timed(c);
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, waits.surface));
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, timed.surface));
  wp_fifo_v1_set_barrier(fifo);
  wl_surface_commit(waits.surface);
  for (int i = 0; i < 500; ++i) {
    wp_fifo_v1_set_barrier(fifo);
    wp_fifo_v1_wait_barrier(fifo);
    wl_surface_commit(waits.surface);
    set_target(timer, now_ns() + 10'000 * kMs);
    wl_surface_commit(timed.surface);
  }
  h.sync();
  EXPECT_EQ(h.server().commit_timing().held(), 500u);
  EXPECT_GT(h.server().fifo().held(), 400u);  // a hidden surface's barrier clears at 30 Hz
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// ---------------------------------------------------------------------------
// The interface the render loop drives

TEST(TimingInterface, FrameStartingLetsThroughWhatIsDueByThePresentationTime) {
  Harness h;
  Client c(h);
  TimingGlobals g;
  bind_globals(h, c, g);
  Window w(c);
  map_window(h, w, kRed);
  CommitTiming& timing = h.server().commit_timing();
  wlr_output* output = h.server().outputs().front()->wlr();
  int added = 0;
  Connection on_added = timing.target_added.connect([&](wlr_output* o) { added += o == output; });
  Owned<wp_commit_timer_v1, wp_commit_timer_v1_destroy> timer(
      wp_commit_timing_manager_v1_get_timer(g.timing, w.surface()));
  FeedbackLog log;
  log.request(c, w.surface());
  const int64_t target = now_ns() + 2000 * kMs;
  set_target(timer, target);
  w.draw(100, 80, kBlue);
  h.sync();
  EXPECT_EQ(added, 1);
  EXPECT_EQ(timing.earliest_target(output), target);
  timing.frame_starting(output, target - 1);  // a frame on screen just before the target
  h.run_for(milliseconds(50));
  EXPECT_FALSE(log[0].answered());
  EXPECT_EQ(timing.held(), 1u);
  timing.frame_starting(output, target);  // the first frame not before it
  EXPECT_EQ(timing.held(), 0u);
  EXPECT_FALSE(timing.earliest_target(output).has_value());
  ASSERT_TRUE(h.run_until([&] { return log.answered() == 1; }, milliseconds(500)));
  EXPECT_TRUE(log[0].presented);
}

// A server with a second fifo global that no output drives: the test
// latches by hand. (The client binds the last one advertised: this one.)
struct HandLatchedServer {
  Harness h{headless_options(640, 480, 2)};
  Fifo fifo{h.server().display(), h.server().event_loop(), h.server().hold_queue()};
};

TEST(TimingInterface, ABarrierAsksItsOutputToLatchAndOnlyThatOutputsLatchClearsIt) {
  HandLatchedServer s;
  Client c(s.h);
  TimingGlobals g;
  bind_globals(s.h, c, g);
  Window w(c);
  map_window(s.h, w, kRed);  // on the first output
  wlr_output* shown_on = s.h.server().outputs()[0]->wlr();
  wlr_output* other = s.h.server().outputs()[1]->wlr();
  int wanted_shown = 0, wanted_other = 0;
  Connection on_wanted = s.fifo.latch_wanted.connect([&](wlr_output* o) {
    wanted_shown += o == shown_on;
    wanted_other += o == other;
  });
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
  FeedbackLog log;
  wp_fifo_v1_set_barrier(fifo);
  w.draw(100, 80, kBlue);
  log.request(c, w.surface());
  wp_fifo_v1_wait_barrier(fifo);
  w.draw(100, 80, kGreen);
  s.h.sync();
  EXPECT_EQ(wanted_shown, 1);
  EXPECT_EQ(wanted_other, 0);
  ASSERT_EQ(s.fifo.held(), 1u);
  s.fifo.output_latched(other);
  EXPECT_EQ(s.fifo.held(), 1u) << "another output's latch cleared the barrier";
  s.fifo.output_latched(shown_on);
  EXPECT_EQ(s.fifo.held(), 0u);
  EXPECT_EQ(s.fifo.fallback_clears(), 0u) << "too slow: the fallback timer raced the test";
  ASSERT_TRUE(s.h.run_until([&] { return log.answered() == 1; }, milliseconds(500)));
  EXPECT_TRUE(log[0].presented);
}

// A mapped window with a wp_fifo_v1 on a HandLatchedServer's first output.
struct HandLatchedWindow {
  HandLatchedServer s;
  Client c{s.h};
  TimingGlobals g;
  Window w{c};
  wlr_output* output = nullptr;
  Owned<wp_fifo_v1, wp_fifo_v1_destroy> fifo;

  void map() {
    bind_globals(s.h, c, g);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    map_window(s.h, w, kRed);
    output = s.h.server().outputs()[0]->wlr();
    fifo = decltype(fifo)(wp_fifo_manager_v1_get_fifo(g.fifo, w.surface()));
  }
  // A commit that sets the barrier, then one that waits for it.
  void hold_one(uint32_t barrier_colour, uint32_t held_colour) {
    wp_fifo_v1_set_barrier(fifo);
    w.draw(100, 80, barrier_colour);
    wp_fifo_v1_wait_barrier(fifo);
    w.draw(100, 80, held_colour);
    s.h.sync();
  }
};

// A latch that comes late (a long render, a flip past its vblank, a stalled
// loop) is still the one that clears a shown surface's barrier: the fallback
// timer must not let the next commit replace content no frame has shown
// (a guest with a 95 ms dispatch dropped one of vkcube's FIFO images so).
TEST(TimingInterface, AShownSurfacesBarrierWaitsForALateLatch) {
  HandLatchedWindow t;
  ASSERT_NO_FATAL_FAILURE(t.map());
  const int64_t latched_at = now_ns();
  t.s.fifo.output_latched(t.output);  // the output latches: a frame is on its way
  t.hold_one(kBlue, kGreen);
  ASSERT_EQ(t.s.fifo.held(), 1u);
  t.s.h.run_for(milliseconds(200));  // six fallback periods, no latch
  if (now_ns() - latched_at >= Fifo::kStoppedLatchingNs)
    GTEST_SKIP() << "UNTESTED HERE: 200 ms of dispatch took over a second; the output "
                    "counts as stopped";
  EXPECT_EQ(t.s.fifo.held(), 1u) << "the fallback timer cleared a shown surface's barrier";
  EXPECT_EQ(t.s.fifo.fallback_clears(), 0u);
  t.s.fifo.output_latched(t.output);
  EXPECT_EQ(t.s.fifo.held(), 0u) << "the late latch did not clear the barrier";
}

// An output that stopped latching (a flip that never completes) holds its
// surfaces' barriers for a second, no longer; a disabled one not at all
// (wlroots' scene takes its surfaces off it).
TEST(TimingInterface, AnOutputThatStoppedLatchingOrIsDisabledStallsNoClientForLong) {
  HandLatchedWindow t;
  ASSERT_NO_FATAL_FAILURE(t.map());
  const int64_t latched_at = now_ns();
  t.s.fifo.output_latched(t.output);
  t.hold_one(kBlue, kGreen);
  ASSERT_EQ(t.s.fifo.held(), 1u);
  ASSERT_TRUE(t.s.h.run_until([&] { return t.s.fifo.held() == 0; }, milliseconds(5000)))
      << "a stopped output held the barrier for 5 s";
  const int64_t held_ns = now_ns() - latched_at;
  std::printf("  stopped output: let through %.0f ms after its last latch\n",
              static_cast<double>(held_ns) / 1e6);
  EXPECT_GE(held_ns, Fifo::kStoppedLatchingNs) << "let through while the output still latched";
  EXPECT_EQ(t.s.fifo.fallback_clears(), 1u);

  // Disabled just after a latch: the fallback (33 ms) clears the barrier,
  // long before the second that a latching output would hold it.
  const int64_t relatched_at = now_ns();
  t.s.fifo.output_latched(t.output);
  wlr_output_state off;
  wlr_output_state_init(&off);
  wlr_output_state_set_enabled(&off, false);
  ASSERT_TRUE(wlr_output_commit_state(t.output, &off));
  wlr_output_state_finish(&off);
  t.hold_one(kRed, kBlue);
  ASSERT_TRUE(t.s.h.run_until([&] { return t.s.fifo.held() == 0; }, milliseconds(5000)));
  EXPECT_LT(now_ns() - relatched_at, Fifo::kStoppedLatchingNs)
      << "a disabled output held the barrier as if it still latched";
  EXPECT_EQ(t.s.fifo.fallback_clears(), 2u);
}

}  // namespace
}  // namespace baton::test
