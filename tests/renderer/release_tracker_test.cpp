// The hand-off's releases from the reader's side, in-process: a real
// client's buffers on a whole Server on the Vulkan renderer. For each buffer
// shown, the tracker keeps the client's buffer locked (no wl_buffer.release)
// and owes a linux-drm-syncobj release point. Neither may be paid while the
// client buffer lives or while a recorded or submitted pass still samples
// its texture, and the release point not while a scanout holds the client's
// own buffer; both come from the event loop, woken by the GPU's completion,
// with nobody polling.
//
// The client's buffers are wl_shm here (the hold is the one a client
// dma-buf gets at its commit; release-poison checks that path in the guest).
// Release points need a DRM device for their timeline: those tests run in
// the guest and say so loudly elsewhere.
#include "handoff/release_tracker.hpp"

#include <drm_fourcc.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "sync/timeline.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/renderer/udmabuf.hpp"
#include "tests/renderer/vulkan_server.hpp"
#include "tests/support/client.hpp"
#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;

// What the tracker owes for one client buffer, and what the GPU had done
// when it was paid.
struct Owed {
  bool buffer_back = false;  // the hold on the client's buffer was let go
  bool reads_done_when_back = false;
  std::shared_ptr<sync::Timeline> timeline;  // the release point's, when owed
  vulkan::TextureReads reads;                // taken as the client buffer went
  Listener<void> buffer_destroyed;
  Listener<void> source_released;

  [[nodiscard]] bool point_signalled() const {
    auto last = timeline->last_signalled();
    return last && *last >= 1;
  }
};

// The tracker keeps the client's buffer that `surface` shows now (and, with
// `drm_fd`, owes release point 1 of a new timeline on it).
void owe(ReleaseTracker& tracker, wlr_surface* surface, Owed& owed, int drm_fd = -1) {
  wlr_client_buffer* client = surface->buffer;
  ASSERT_NE(client, nullptr);
  ASSERT_NE(client->source, nullptr);
  owed.buffer_destroyed.connect(&client->base.events.destroy, [&owed, client](void*) {
    owed.reads = vulkan::texture_reads(client->texture);
    owed.buffer_destroyed.disconnect();  // wlroots asserts nothing listens after
  });
  // The shm buffer was copied at its commit: the tracker's hold is its only lock.
  owed.source_released.connect(&client->source->events.release, [&owed](void*) {
    owed.buffer_back = true;
    owed.reads_done_when_back = owed.reads.done();
    owed.source_released.disconnect();
  });
  tracker.hold_until_done(&client->base, BufferLock(client->source));
  if (drm_fd < 0) return;
  auto timeline = sync::Timeline::create(drm_fd);
  ASSERT_TRUE(timeline) << timeline.error().describe();
  owed.timeline = std::make_shared<sync::Timeline>(std::move(*timeline));
  tracker.release_point_when_done(&client->base, {owed.timeline, 1});
}

wlr_surface* mapped_surface(Server& server) {
  for (const auto& v : server.windows().views())
    if (v->mapped()) return v->surface();
  return nullptr;
}

struct ClientOnVulkan {
  std::unique_ptr<Harness> h;
  std::unique_ptr<Client> client;
  std::unique_ptr<Window> window;
  std::unique_ptr<ReleaseTracker> tracker;
  wlr_surface* surface = nullptr;

  void start(std::unique_ptr<Harness> harness) {
    h = std::move(harness);
    tracker =
        std::make_unique<ReleaseTracker>(nullptr, make_gpu_reads_watch(h->server().event_loop()));
    client = std::make_unique<Client>(*h);
    window = std::make_unique<Window>(*client);
    window->initial_commit();
    ASSERT_TRUE(h->run_until([&] { return window->configure_count() >= 1; }));
    window->draw(200, 150, kRed);
    ASSERT_TRUE(h->run_until([&] { return (surface = mapped_surface(h->server())) != nullptr; }));
    h->run_for(std::chrono::milliseconds(50));
  }
  // A buffer of another size: wlroots cannot reuse the old texture for it,
  // so the old client buffer goes, as a dma-buf's always does.
  void next_buffer() {
    window->draw(201, 150, kBlue);
    h->sync();
  }
  ~ClientOnVulkan() {
    tracker.reset();
    window.reset();
    client.reset();
  }
};

TEST(ReleaseTracker, LetsGoOnlyOnceTheClientBufferIsGone) {
  REQUIRE_VULKAN(harness);
  ClientOnVulkan c;
  c.start(std::move(harness));
  Owed owed;
  owe(*c.tracker, c.surface, owed);
  c.h->run_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(owed.buffer_back) << "let go while the surface still shows the buffer";
  c.next_buffer();
  ASSERT_TRUE(c.h->run_until([&] { return owed.buffer_back; }));
  EXPECT_TRUE(owed.reads_done_when_back);
  EXPECT_EQ(c.tracker->pending(), 0u);
}

TEST(ReleaseTracker, WaitsForAPassStillBeingRecordedThenForTheGpu) {
  REQUIRE_VULKAN(harness);
  ClientOnVulkan c;
  c.start(std::move(harness));
  Server& server = c.h->server();
  Owed owed;
  owe(*c.tracker, c.surface, owed);

  // A pass samples the client's texture and stays open (as the output's
  // pass does while it is recorded) while the client moves on.
  wlr_drm_format_set formats{};
  wlr_drm_format_set_add(&formats, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_INVALID);
  wlr_drm_format_set_add(&formats, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR);
  const wlr_drm_format* format = wlr_drm_format_set_get(&formats, DRM_FORMAT_ARGB8888);
  wlr_buffer* target = wlr_allocator_create_buffer(server.allocator(), 256, 256, format);
  wlr_drm_format_set_finish(&formats);
  ASSERT_NE(target, nullptr);
  wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(server.renderer(), target, nullptr);
  ASSERT_NE(pass, nullptr);
  wlr_render_texture_options draw{};
  draw.texture = c.surface->buffer->texture;
  draw.dst_box = {0, 0, 256, 256};
  wlr_render_pass_add_texture(pass, &draw);

  c.next_buffer();
  c.h->run_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(owed.buffer_back) << "let go before the pass that reads it was submitted";

  ASSERT_TRUE(wlr_render_pass_submit(pass));
  ASSERT_TRUE(c.h->run_until([&] { return owed.buffer_back; }))
      << "not let go once the GPU finished";
  EXPECT_TRUE(owed.reads_done_when_back) << "let go while the GPU still read it";
  EXPECT_EQ(c.tracker->pending(), 0u);
  wlr_buffer_drop(target);
}

TEST(ReleaseTracker, TeardownLetsGoOfWhatIsStillHeld) {
  REQUIRE_VULKAN(harness);
  ClientOnVulkan c;
  c.start(std::move(harness));
  Owed owed;
  owe(*c.tracker, c.surface, owed);
  c.tracker.reset();  // baton exits with the buffer still shown
  EXPECT_TRUE(owed.buffer_back) << "a client was left without its buffer";
}

// A DRM device for release points' timelines (the guest's virtio-gpu).
Result<UniqueFd> timeline_device() {
  return testing::open_drm_node("virtio_gpu", testing::NodeKind::render);
}

TEST(ReleaseTracker, ReleasePointWaitsForTheClientBufferThenWhileAScanoutHoldsIt) {
  REQUIRE_VULKAN(harness);
  auto drm = timeline_device();
  if (!drm) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no DRM device for a release point's timeline");
  ClientOnVulkan c;
  c.start(std::move(harness));
  Owed owed;
  owe(*c.tracker, c.surface, owed, drm->get());
  c.h->run_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(owed.point_signalled()) << "released while the surface still shows the buffer";
  // KMS scans out the client's own buffer (wlroots' direct scanout locks
  // the client buffer's source until the flip that replaces it).
  wlr_buffer* scanned_out = wlr_buffer_lock(c.surface->buffer->source);
  c.next_buffer();
  ASSERT_TRUE(c.h->run_until([&] { return owed.reads.done(); }));
  c.h->run_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(owed.point_signalled()) << "released while the plane still shows the buffer";
  // The flip that replaced it: released at once, with no loop iteration.
  wlr_buffer_unlock(scanned_out);
  EXPECT_TRUE(owed.point_signalled());
  EXPECT_EQ(c.tracker->pending(), 0u);
}

TEST(ReleaseTracker, TeardownSignalsAReleasePointStillOwed) {
  REQUIRE_VULKAN(harness);
  auto drm = timeline_device();
  if (!drm) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no DRM device for a release point's timeline");
  ClientOnVulkan c;
  c.start(std::move(harness));
  Owed owed;
  owe(*c.tracker, c.surface, owed, drm->get());
  c.tracker.reset();  // baton exits with the buffer still shown
  EXPECT_TRUE(owed.point_signalled()) << "a producer was left waiting forever";
}

}  // namespace
}  // namespace baton::test
