// Frame callbacks and presentation-time feedback as a client sees them.
#include <gtest/gtest.h>

#include <ctime>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "tests/support/client.hpp"
#include "tests/support/harness.hpp"
#include "util/owned.hpp"

namespace baton::test {
namespace {

struct FrameDone {
  bool done = false;
  uint32_t time = 0;
  // Until done: a callback still pending when the test ends dies with this.
  Owned<wl_callback, wl_callback_destroy> callback;
};

void request_frame(wl_surface* surface, FrameDone* out) {
  static const wl_callback_listener listener = {[](void* data, wl_callback*, uint32_t time) {
    auto* f = static_cast<FrameDone*>(data);
    f->done = true;
    f->time = time;
    f->callback.reset();
  }};
  out->callback = Owned<wl_callback, wl_callback_destroy>(wl_surface_frame(surface));
  wl_callback_add_listener(out->callback, &listener, out);
}

struct Feedback {
  bool presented = false;
  bool discarded = false;
  uint64_t sec = 0;
  uint32_t nsec = 0;
  uint32_t refresh = 0;
  uint64_t seq = 0;
  uint32_t flags = 0;
  bool synced_output = false;
};

void map_window(Harness& h, Window& w) {
  w.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return w.configure_count() == 1; }));
  w.draw(100, 100, 0xff336699);
  ASSERT_TRUE(h.run_until([&] {
    return !h.server().windows().views().empty() && h.server().windows().views().front()->mapped();
  }));
}

TEST(FrameCallbacks, DoneArrivesAfterEachCommitWithIncreasingTimes) {
  Harness h;
  Client c(h);
  Window w(c);
  map_window(h, w);
  FrameDone first;
  request_frame(w.surface(), &first);
  w.draw(100, 100, 0xff112233);
  ASSERT_TRUE(h.run_until([&] { return first.done; }, std::chrono::milliseconds(500)));
  FrameDone second;
  request_frame(w.surface(), &second);
  w.draw(100, 100, 0xff445566);
  ASSERT_TRUE(h.run_until([&] { return second.done; }, std::chrono::milliseconds(500)));
  EXPECT_GT(second.time, first.time);
}

TEST(FrameCallbacks, ThrottledToTheRefreshRate) {
  Harness h;  // 60 Hz
  Client c(h);
  Window w(c);
  map_window(h, w);
  // Redraw on every frame callback for half a second, like an animating client.
  int frames = 0;
  FrameDone pending;
  auto start = std::chrono::steady_clock::now();
  request_frame(w.surface(), &pending);
  w.draw(100, 100, 0xff000000);
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500)) {
    h.run_until([&] { return pending.done; }, std::chrono::milliseconds(100));
    if (!pending.done) continue;
    ++frames;
    pending = {};
    request_frame(w.surface(), &pending);
    w.draw(100, 100, 0xff000000 | static_cast<uint32_t>(frames));
  }
  // About 30 in 0.5 s at 60 Hz; never unthrottled, never stalled.
  EXPECT_GE(frames, 15);
  EXPECT_LE(frames, 40);
}

TEST(Presentation, FeedbackReportsPresentationOnTheMonotonicClock) {
  Harness h;
  Client c(h);
  ASSERT_NE(c.presentation, nullptr);
  EXPECT_EQ(c.presentation_clock, static_cast<uint32_t>(CLOCK_MONOTONIC));
  Window w(c);
  map_window(h, w);

  Feedback fb;
  auto* feedback = wp_presentation_feedback(c.presentation, w.surface());
  static const struct wp_presentation_feedback_listener listener = {
      [](void* d, struct wp_presentation_feedback*, wl_output*) {
        static_cast<Feedback*>(d)->synced_output = true;
      },
      [](void* d, struct wp_presentation_feedback* f, uint32_t hi, uint32_t lo, uint32_t nsec,
         uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) {
        auto* out = static_cast<Feedback*>(d);
        out->presented = true;
        out->sec = (static_cast<uint64_t>(hi) << 32) | lo;
        out->nsec = nsec;
        out->refresh = refresh;
        out->seq = (static_cast<uint64_t>(seq_hi) << 32) | seq_lo;
        out->flags = flags;
        wp_presentation_feedback_destroy(f);
      },
      [](void* d, struct wp_presentation_feedback* f) {
        static_cast<Feedback*>(d)->discarded = true;
        wp_presentation_feedback_destroy(f);
      },
  };
  wp_presentation_feedback_add_listener(feedback, &listener, &fb);
  timespec before{};
  clock_gettime(CLOCK_MONOTONIC, &before);
  w.draw(100, 100, 0xff998877);
  ASSERT_TRUE(
      h.run_until([&] { return fb.presented || fb.discarded; }, std::chrono::milliseconds(500)));
  ASSERT_TRUE(fb.presented) << "feedback was discarded for a visible surface";
  EXPECT_TRUE(fb.synced_output);
  timespec after{};
  clock_gettime(CLOCK_MONOTONIC, &after);
  auto ns = [](uint64_t s, uint64_t n) { return s * 1000000000ull + n; };
  uint64_t presented = ns(fb.sec, fb.nsec);
  EXPECT_GE(presented,
            ns(static_cast<uint64_t>(before.tv_sec), static_cast<uint64_t>(before.tv_nsec)));
  EXPECT_LE(presented,
            ns(static_cast<uint64_t>(after.tv_sec), static_cast<uint64_t>(after.tv_nsec)));
  EXPECT_NEAR(fb.refresh, 16666666u, 100000u);  // headless at 60 Hz
}

}  // namespace
}  // namespace baton::test
