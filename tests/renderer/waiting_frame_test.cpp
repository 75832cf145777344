// A frame waiting for render-done (a nested output's memfd slots are committed
// only once the GPU finished them) is committed later than the scene built
// it. Whatever the scene damaged in between must go out with the next
// commit: a parent compositor (or KMS with damage clips) only refreshes the
// regions a commit names, so a lost region stays stale on its screen.
#include <gtest/gtest.h>

#include <vector>

#include "compositor/output/output.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "tests/renderer/vulkan_server.hpp"
#include "tests/support/poll.hpp"
#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

// The damage of each commit with a buffer, as the backend was told it.
struct CommitDamage {
  std::vector<pixman_box32_t> extents;  // whole output when unset
  std::vector<bool> contains;           // of `watched`
  wlr_box watched{};
  Listener<wlr_output_event_commit> listener;

  explicit CommitDamage(wlr_output* output) {
    listener.connect(&output->events.commit, [this, output](wlr_output_event_commit* event) {
      const wlr_output_state& state = *event->state;
      if ((state.committed & WLR_OUTPUT_STATE_BUFFER) == 0) return;
      pixman_box32_t box{watched.x, watched.y, watched.x + watched.width,
                         watched.y + watched.height};
      if ((state.committed & WLR_OUTPUT_STATE_DAMAGE) == 0) {
        extents.push_back({0, 0, output->width, output->height});
        contains.push_back(true);
        return;
      }
      pixman_region32_t damage;
      pixman_region32_init(&damage);
      pixman_region32_copy(&damage, &state.damage);
      extents.push_back(*pixman_region32_extents(&damage));
      contains.push_back(pixman_region32_contains_rectangle(&damage, &box) == PIXMAN_REGION_IN);
      pixman_region32_fini(&damage);
    });
  }
};

TEST(WaitingFrame, DamageThatArrivesWhileAFrameWaitsGoesWithTheNextCommit) {
  REQUIRE_VULKAN(h);
  Server& server = h->server();
  if (!vulkan::renderer_can_share_memory(server.renderer()))
    GTEST_SKIP() << "UNTESTED HERE: memfd slots need VK_EXT_external_memory_host";
  Output& output = *server.outputs()[0];
  // The output renders into memfd slots, as a nested output does: their
  // consumer takes no fence, so each frame waits until the GPU is done.
  vulkan::SwapchainOptions shm_slots;
  shm_slots.shm = true;
  auto made = vulkan::create_swapchain_allocator(server.renderer(), shm_slots);
  ASSERT_TRUE(made.ok()) << made.error().describe();
  wlr_allocator* allocator = *made;
  ASSERT_NE(allocator, nullptr);
  ASSERT_TRUE(wlr_output_init_render(output.wlr(), allocator, server.renderer()));
  wlr_damage_ring_add_whole(&output.scene_output()->damage_ring);
  wlr_output_schedule_frame(output.wlr());
  h->run_for(std::chrono::milliseconds(200));

  CommitDamage commits(output.wlr());
  commits.watched = {100, 100, 200, 150};
  const float red[4] = {1, 0, 0, 1}, green[4] = {0, 1, 0, 1}, blue[4] = {0, 0, 1, 1};
  wlr_scene_rect* rect = wlr_scene_rect_create(&server.scene()->tree, commits.watched.width,
                                               commits.watched.height, green);
  wlr_scene_node_set_position(&rect->node, commits.watched.x, commits.watched.y);
  h->run_for(std::chrono::milliseconds(100));
  // The rectangle turns red, and the next frame waits. Whether a frame
  // waits at all depends on the GPU not having finished it yet when it is
  // built (a busy machine may run lavapipe's work first): try again until one is.
  bool waiting = false;
  for (int attempt = 0; attempt < 50 && !waiting; ++attempt) {
    ASSERT_TRUE(poll_until([&] { return !output.frame_waiting(); }, std::chrono::seconds(10),
                           [&] { server.dispatch(1); }))
        << "a frame kept waiting for render-done for 10 s";
    commits.extents.clear();
    commits.contains.clear();
    wlr_scene_rect_set_color(rect, attempt % 2 == 0 ? red : green);
    // Repainted whole, so that the GPU is busy with it for a while.
    wlr_damage_ring_add_whole(&output.scene_output()->damage_ring);
    // One dispatch at a time, none waiting (a wait would let render-done
    // in): stop while the frame is waiting (built and rendering, not committed).
    poll_until([&] { return output.frame_waiting() || !commits.extents.empty(); },
               std::chrono::seconds(2), [&] { server.dispatch(0); });
    waiting = output.frame_waiting() && commits.extents.empty();
  }
  ASSERT_TRUE(waiting) << "no frame was waiting for render-done in 50 tries";
  // The rectangle turns blue while that frame waits: the same region,
  // damaged again after the waiting frame took its damage.
  wlr_scene_rect_set_color(rect, blue);

  ASSERT_TRUE(h->run_until([&] { return commits.extents.size() >= 2; }))
      << "the frames after the waiting one were not committed";
  EXPECT_TRUE(commits.contains[0]) << "the waiting frame did not carry the rectangle's damage";
  EXPECT_TRUE(commits.contains[1])
      << "the next commit's damage misses the region that turned blue while the frame was waiting "
         "(extents "
      << commits.extents[1].x1 << "," << commits.extents[1].y1 << " - " << commits.extents[1].x2
      << "," << commits.extents[1].y2 << "): a parent would keep showing the old colour";

  wlr_scene_node_destroy(&rect->node);
  ASSERT_TRUE(wlr_output_init_render(output.wlr(), server.allocator(), server.renderer()));
  wlr_allocator_destroy(allocator);
}

}  // namespace
}  // namespace baton::test
