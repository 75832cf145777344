// vulkan::TextureReads: when the GPU finished reading a texture. Linux-drm-
// syncobj release points wait on it, so "done" too early lets a client draw
// into a buffer the GPU still samples.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <pixman.h>

#include <algorithm>

#include "renderer/vulkan/introspection.hpp"
#include "tests/renderer/harness.hpp"

namespace baton::test {
namespace {

class TextureReadsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { harness_ = new GoldenHarness(); }
  static void TearDownTestSuite() {
    delete harness_;
    harness_ = nullptr;
  }
  void SetUp() override {
    if (!harness_->unavailable().empty()) GTEST_SKIP() << harness_->unavailable();
  }
  static GoldenHarness* harness_;
};
GoldenHarness* TextureReadsTest::harness_ = nullptr;

void draw(wlr_render_pass* pass, wlr_texture* texture) {
  wlr_render_texture_options options{};
  options.texture = texture;
  options.dst_box = {0, 0, 64, 64};
  wlr_render_pass_add_texture(pass, &options);
}

TEST_F(TextureReadsTest, DrawInAnOpenPassIsDoneOnlyAfterItsSubmissionFinished) {
  RendererUnderTest& vk = harness_->vulkan();
  MemoryBuffer* source = MemoryBuffer::create(64, 64, DRM_FORMAT_ARGB8888);
  source->fill_pattern(4);
  wlr_buffer* target = harness_->target(vk, 64, 64);
  ASSERT_NE(target, nullptr);
  wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, &source->base);
  ASSERT_NE(texture, nullptr);
  vulkan::renderer_finish(vk.renderer);
  // Nothing read it yet (the upload copied from staging): done.
  EXPECT_TRUE(vulkan::texture_reads(texture).done());

  wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(vk.renderer, target, nullptr);
  ASSERT_NE(pass, nullptr);
  draw(pass, texture);
  // Recorded, not submitted: the read is still to come.
  vulkan::TextureReads reads = vulkan::texture_reads(texture);
  EXPECT_FALSE(reads.done());
  // As with a client buffer: the texture goes while the pass still holds the draw.
  wlr_texture_destroy(texture);
  source->drop();
  EXPECT_FALSE(reads.done());
  ASSERT_TRUE(wlr_render_pass_submit(pass));
  vulkan::renderer_finish(vk.renderer);
  EXPECT_TRUE(reads.done());
  wlr_buffer_drop(target);
}

TEST_F(TextureReadsTest, SubmittedDrawIsDoneOnceTheDeviceFinished) {
  RendererUnderTest& vk = harness_->vulkan();
  MemoryBuffer* source = MemoryBuffer::create(64, 64, DRM_FORMAT_ARGB8888);
  source->fill_pattern(5);
  wlr_buffer* target = harness_->target(vk, 64, 64);
  ASSERT_NE(target, nullptr);
  wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, &source->base);
  ASSERT_NE(texture, nullptr);
  ASSERT_TRUE(harness_->render(vk, target,
                               [&](wlr_render_pass* pass, wlr_renderer*) { draw(pass, texture); }));
  vulkan::TextureReads reads = vulkan::texture_reads(texture);
  wlr_texture_destroy(texture);
  source->drop();
  // Whether lavapipe already finished is up to it; after a finish it has.
  vulkan::renderer_finish(vk.renderer);
  EXPECT_TRUE(reads.done());
  reads.wait();  // returns at once
  wlr_buffer_drop(target);
}

// A client committing thousands of times between two frames (vkcube in
// MAILBOX on a slow output): its uploads go to the GPU once they pass a
// bound instead of piling up until the next frame, and the frame shows the
// last of them.
TEST_F(TextureReadsTest, UploadsWithoutAFrameStayBounded) {
  RendererUnderTest& vk = harness_->vulkan();
  constexpr int kSize = 512;  // 1 MiB a full upload: through the staging ring
  MemoryBuffer* source = MemoryBuffer::create(kSize, kSize, DRM_FORMAT_ARGB8888);
  source->fill_pattern(1);
  wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, &source->base);
  ASSERT_NE(texture, nullptr);
  pixman_region32_t all;
  pixman_region32_init_rect(&all, 0, 0, kSize, kSize);
  uint64_t most = 0;
  for (int i = 2; i <= 300; ++i) {  // 300 MiB staged in all
    source->fill_pattern(i);
    ASSERT_TRUE(wlr_texture_update_from_buffer(texture, &source->base, &all));
    most = std::max(most, vulkan::renderer_pending_upload_bytes(vk.renderer));
  }
  pixman_region32_fini(&all);
  EXPECT_LE(most, uint64_t{65} << 20) << "uploads piled up waiting for a frame";
  wlr_texture* reference = nullptr;
  Image drawn, expected;
  harness_->render_both(
      kSize, kSize,
      [&](wlr_render_pass* pass, wlr_renderer* renderer) {
        wlr_render_texture_options options{};
        if (renderer == vk.renderer) {
          options.texture = texture;
        } else {
          reference = wlr_texture_from_buffer(renderer, &source->base);
          options.texture = reference;
        }
        options.dst_box = {0, 0, kSize, kSize};
        wlr_render_pass_add_texture(pass, &options);
      },
      drawn, expected);
  Comparison c = compare("uploads-without-a-frame", drawn, expected, 1);
  EXPECT_EQ(c.differing, 0) << "the frame does not show the last upload; see " << c.artifacts;
  if (reference != nullptr) wlr_texture_destroy(reference);
  wlr_texture_destroy(texture);
  source->drop();
}

TEST_F(TextureReadsTest, BusyGpuIsNotDone) {
  // Enough blending that lavapipe is still at it right after the submit.
  // Whether it is depends on speed: on a loaded machine lavapipe's threads
  // may finish before this one looks again, and then done() is right. So
  // the pass doubles its draws until one is caught running (16 times the
  // first's work at most); done() must say so once the GPU finished.
  constexpr int kSize = 2048;
  RendererUnderTest& vk = harness_->vulkan();
  wlr_buffer* target = harness_->target(vk, kSize, kSize);
  ASSERT_NE(target, nullptr);
  bool caught_running = false;
  for (int draws = 24; draws <= 24 * 16 && !caught_running; draws *= 2) {
    MemoryBuffer* source = MemoryBuffer::create(kSize, kSize, DRM_FORMAT_ARGB8888);
    source->fill_pattern(6);
    wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, &source->base);
    ASSERT_NE(texture, nullptr);
    vulkan::renderer_finish(vk.renderer);
    ASSERT_TRUE(harness_->render(vk, target, [&](wlr_render_pass* pass, wlr_renderer*) {
      wlr_render_texture_options options{};
      options.texture = texture;
      options.dst_box = {0, 0, kSize, kSize};
      options.filter_mode = WLR_SCALE_FILTER_BILINEAR;
      for (int i = 0; i < draws; ++i) wlr_render_pass_add_texture(pass, &options);
    }));
    vulkan::TextureReads reads = vulkan::texture_reads(texture);
    wlr_texture_destroy(texture);
    source->drop();
    caught_running = !reads.done();
    // A finish waits at most 5 s; lavapipe on a loaded machine may need more.
    for (int i = 0; i < 12 && !reads.done(); ++i) vulkan::renderer_finish(vk.renderer);
    EXPECT_TRUE(reads.done()) << "still not done a minute after the submit, " << draws << " draws";
  }
  EXPECT_TRUE(caught_running) << "reported done while the pass sampling it was still running "
                                 "(or lavapipe finished 384 draws before this thread looked)";
  wlr_buffer_drop(target);
}

TEST_F(TextureReadsTest, NonVulkanTexturesAreDoneAtOnce) {
  EXPECT_TRUE(vulkan::texture_reads(nullptr).done());
  MemoryBuffer* source = MemoryBuffer::create(16, 16, DRM_FORMAT_ARGB8888);
  wlr_texture* texture = wlr_texture_from_buffer(harness_->pixman().renderer, &source->base);
  ASSERT_NE(texture, nullptr);
  EXPECT_TRUE(vulkan::texture_reads(texture).done());
  wlr_texture_destroy(texture);
  source->drop();
}

TEST_F(TextureReadsTest, DoneOnceTheRendererIsGone) {
  // A renderer of its own: destroying it must leave the harness' intact.
  vulkan::RendererOptions options;
  auto created = vulkan::create_renderer(options);
  ASSERT_TRUE(created.ok()) << created.error().describe();
  auto made = vulkan::create_swapchain_allocator(*created, {2, true});
  ASSERT_TRUE(made.ok()) << made.error().describe();
  wlr_allocator* allocator = *made;
  ASSERT_NE(allocator, nullptr);
  RendererUnderTest own{*created, allocator, true};
  MemoryBuffer* source = MemoryBuffer::create(64, 64, DRM_FORMAT_ARGB8888);
  wlr_buffer* target = harness_->target(own, 64, 64);
  ASSERT_NE(target, nullptr);
  wlr_texture* texture = wlr_texture_from_buffer(own.renderer, &source->base);
  ASSERT_NE(texture, nullptr);
  wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(own.renderer, target, nullptr);
  ASSERT_NE(pass, nullptr);
  draw(pass, texture);
  vulkan::TextureReads open = vulkan::texture_reads(texture);
  EXPECT_FALSE(open.done());
  ASSERT_TRUE(wlr_render_pass_submit(pass));
  vulkan::TextureReads submitted = vulkan::texture_reads(texture);
  // No finish: destroying the renderer ends its device's work.
  wlr_buffer_drop(target);
  wlr_allocator_destroy(allocator);
  wlr_renderer_destroy(own.renderer);
  EXPECT_TRUE(open.done());
  EXPECT_TRUE(submitted.done());
  // The renderer freed the texture it was left with, as wlroots 0.19 expects
  // of a renderer (a leak or a second free shows under AddressSanitizer).
  source->drop();
}

}  // namespace
}  // namespace baton::test
