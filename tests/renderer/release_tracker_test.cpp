// Release points from the reader's side, in-process: a real client's
// buffers on a whole Server on the Vulkan renderer, the release point an
// eventfd the tracker writes (in baton, a linux-drm-syncobj timeline point).
// It must not be signalled while the client buffer lives, while a recorded
// or submitted pass still samples its texture, or while a scanout holds the
// client's own buffer; and it comes from the event loop, woken by the GPU's
// completion, with nobody polling.
#include "handoff/release_tracker.hpp"

#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <memory>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "tests/renderer/vulkan_server.hpp"
#include "tests/support/client.hpp"
#include "util/listener.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;

// One release point: an eventfd, and what the GPU had done when it came.
struct Release {
  UniqueFd fd{eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  vulkan::TextureReads reads;  // taken as the client buffer went
  bool reads_done_when_signalled = false;
  Listener<void> buffer_destroyed;
  [[nodiscard]] bool signalled() const { return readable_now(fd.get()); }
};

// Watches the client buffer `surface` shows now: `release` is signalled by
// `tracker` once baton is done with it.
void release_when_done(ReleaseTracker& tracker, wlr_surface* surface, Release& release) {
  wlr_client_buffer* client = surface->buffer;
  ASSERT_NE(client, nullptr);
  release.buffer_destroyed.connect(&client->base.events.destroy, [&release, client](void*) {
    release.reads = vulkan::texture_reads(client->texture);
    release.buffer_destroyed.disconnect();  // wlroots asserts nothing listens after
  });
  tracker.release_when_done(&client->base, [&release](UniqueFd) {
    release.reads_done_when_signalled = release.reads.done();
    const uint64_t one = 1;
    EXPECT_EQ(write(release.fd.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
  });
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
    tracker = std::make_unique<ReleaseTracker>(make_gpu_reads_watch(h->server().event_loop()));
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

TEST(ReleaseTracker, SignalsOnlyOnceTheClientBufferIsGone) {
  REQUIRE_VULKAN(harness);
  ClientOnVulkan c;
  c.start(std::move(harness));
  Release release;
  release_when_done(*c.tracker, c.surface, release);
  c.h->run_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(release.signalled()) << "released while the surface still shows the buffer";
  c.next_buffer();
  ASSERT_TRUE(c.h->run_until([&] { return release.signalled(); }));
  EXPECT_TRUE(release.reads_done_when_signalled);
  EXPECT_EQ(c.tracker->pending(), 0u);
}

TEST(ReleaseTracker, WaitsForAPassStillBeingRecordedThenForTheGpu) {
  REQUIRE_VULKAN(harness);
  ClientOnVulkan c;
  c.start(std::move(harness));
  Server& server = c.h->server();
  Release release;
  release_when_done(*c.tracker, c.surface, release);

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
  EXPECT_FALSE(release.signalled()) << "released before the pass that reads it was submitted";

  ASSERT_TRUE(wlr_render_pass_submit(pass));
  ASSERT_TRUE(c.h->run_until([&] { return release.signalled(); }))
      << "no release once the GPU finished";
  EXPECT_TRUE(release.reads_done_when_signalled) << "released while the GPU still read it";
  EXPECT_EQ(c.tracker->pending(), 0u);
  wlr_buffer_drop(target);
}

TEST(ReleaseTracker, WaitsWhileAScanoutHoldsTheClientsBuffer) {
  REQUIRE_VULKAN(harness);
  ClientOnVulkan c;
  c.start(std::move(harness));
  Release release;
  release_when_done(*c.tracker, c.surface, release);
  // KMS scans out the client's own buffer (wlroots' direct scanout locks
  // the client buffer's source until the flip that replaces it).
  wlr_buffer* scanned_out = wlr_buffer_lock(c.surface->buffer->source);
  c.next_buffer();
  c.h->run_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(release.signalled()) << "released while the plane still shows the buffer";
  // The flip that replaced it: released at once, with no loop iteration.
  wlr_buffer_unlock(scanned_out);
  EXPECT_TRUE(release.signalled());
  EXPECT_TRUE(release.reads_done_when_signalled);
  EXPECT_EQ(c.tracker->pending(), 0u);
}

TEST(ReleaseTracker, TeardownSignalsWhatIsStillHeld) {
  REQUIRE_VULKAN(harness);
  ClientOnVulkan c;
  c.start(std::move(harness));
  Release release;
  release_when_done(*c.tracker, c.surface, release);
  c.tracker.reset();  // baton exits with the buffer still shown
  EXPECT_TRUE(release.signalled()) << "a producer was left waiting forever";
}

}  // namespace
}  // namespace baton::test
