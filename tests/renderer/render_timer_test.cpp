// The render loop's GPU time: a render timer's duration is read without
// waiting once its pass finished; timers come and go every frame (wlroots'
// scene makes one per frame) and the renderer outlives the query pools they
// used (lavapipe crashed freeing command buffers whose pool was gone).
#include <drm_fourcc.h>
#include <gtest/gtest.h>

#include <chrono>

#include "tests/renderer/harness.hpp"
#include "tests/support/poll.hpp"

namespace baton::test {
namespace {

class RenderTimer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { harness_ = new GoldenHarness(); }
  static void TearDownTestSuite() {
    delete harness_;  // the renderer goes last, after every timer and pass
    harness_ = nullptr;
  }
  void SetUp() override {
    if (!harness().unavailable().empty()) GTEST_SKIP() << harness().unavailable();
  }
  void TearDown() override { EXPECT_EQ(harness().debug_messages(), 0); }
  static GoldenHarness& harness() { return *harness_; }

  // One timed pass of a few rectangles on `buffer`.
  static bool timed_pass(wlr_buffer* buffer, wlr_render_timer* timer) {
    wlr_buffer_pass_options options{};
    options.timer = timer;
    wlr_render_pass* pass =
        wlr_renderer_begin_buffer_pass(harness().vulkan().renderer, buffer, &options);
    if (pass == nullptr) return false;
    // A texture uploaded for this pass: the uploads are timed too.
    MemoryBuffer* pixels = MemoryBuffer::create(64, 64, DRM_FORMAT_ARGB8888);
    pixels->fill_pattern(7);
    wlr_texture* texture = wlr_texture_from_buffer(harness().vulkan().renderer, &pixels->base);
    if (texture != nullptr) {
      wlr_render_texture_options tex{};
      tex.texture = texture;
      tex.dst_box = {20, 20, 64, 64};
      wlr_render_pass_add_texture(pass, &tex);
    }
    for (int i = 0; i < 8; ++i) {
      wlr_render_rect_options rect{};
      rect.box = {i * 10, i * 10, 200, 150};
      rect.color = {0.1f * static_cast<float>(i), 0.5f, 0.2f, 1.0f};
      wlr_render_pass_add_rect(pass, &rect);
    }
    const bool ok = wlr_render_pass_submit(pass);
    if (texture != nullptr) wlr_texture_destroy(texture);
    pixels->drop();
    return ok;
  }
  // Polls the non-blocking read until the pass finished (bounded).
  static int64_t duration_when_done(wlr_render_timer* timer) {
    int64_t ns = -1;
    poll_until([&] { return (ns = vulkan::render_timer_duration_if_done(timer)) >= 0; },
               std::chrono::seconds(10), std::chrono::milliseconds(1));
    return ns;
  }

  static GoldenHarness* harness_;
};
GoldenHarness* RenderTimer::harness_ = nullptr;

TEST_F(RenderTimer, DurationOfAFinishedPassIsReadWithoutWaiting) {
  wlr_buffer* buffer = harness().target(harness().vulkan(), 256, 256);
  ASSERT_NE(buffer, nullptr);
  wlr_render_timer* timer = wlr_render_timer_create(harness().vulkan().renderer);
  ASSERT_NE(timer, nullptr) << "no timestamp queries on this device";
  EXPECT_EQ(vulkan::render_timer_duration_if_done(timer), -1) << "nothing timed yet";
  ASSERT_TRUE(timed_pass(buffer, timer));
  const int64_t ns = duration_when_done(timer);
  EXPECT_GT(ns, 0) << "the finished pass has a GPU time";
  EXPECT_LT(ns, 5'000'000'000) << "a few rectangles took seconds?";
  wlr_render_timer_destroy(timer);
  wlr_buffer_drop(buffer);
}

TEST_F(RenderTimer, OtherRenderersTimersAreNotRead) {
  EXPECT_EQ(vulkan::render_timer_duration_if_done(nullptr), -1);
  // pixman has no render timers: the render loop counts CPU time only there.
  EXPECT_EQ(wlr_render_timer_create(harness().pixman().renderer), nullptr);
}

TEST_F(RenderTimer, OneTimerPerFrameForManyFrames) {
  wlr_buffer* buffer = harness().target(harness().vulkan(), 128, 128);
  ASSERT_NE(buffer, nullptr);
  // As wlroots' scene does: the last frame's timer is destroyed when the next
  // frame starts, while its command buffer may still be pending.
  wlr_render_timer* last = nullptr;
  for (int frame = 0; frame < 40; ++frame) {
    wlr_render_timer* timer = wlr_render_timer_create(harness().vulkan().renderer);
    ASSERT_NE(timer, nullptr);
    if (last != nullptr) wlr_render_timer_destroy(last);
    ASSERT_TRUE(timed_pass(buffer, timer));
    last = timer;
  }
  EXPECT_GT(duration_when_done(last), 0);
  wlr_render_timer_destroy(last);
  wlr_buffer_drop(buffer);
}

}  // namespace
}  // namespace baton::test
