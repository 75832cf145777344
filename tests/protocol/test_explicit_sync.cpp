// linux-drm-syncobj-v1 from a client's side on the host, in-process: the
// server's DRM device is the fake syncobj device (tests/support/
// fake_syncobj.hpp) and its dma-buf global the fake one (planes are memfds,
// which pixman cannot show: what the test watches is the gate and the
// points, not pixels). The test plays the client's GPU. The guest tests
// (tests/vm/) run the same paths on real syncobjs and real dma-bufs.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "compositor/server.hpp"
#include "fifo-v1-client-protocol.h"
#include "handoff/hold_queue.hpp"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "tests/support/client.hpp"
#include "tests/support/fake_dmabuf.hpp"
#include "tests/support/fake_syncobj.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"
#include "util/unique_fd.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;

constexpr uint32_t kRed = 0xffff0000;
constexpr int kWidth = 100;
constexpr int kHeight = 80;

Options fake_drm_options() {
  Options options = headless_options(320, 240, 1);
  options.drm_device = fake_drm_device_path();
  options.syncobj_without_own_dmabuf = true;
  return options;
}

// A server on the fake device, and a client with the globals explicit sync
// needs. Timelines are counted in the order the test makes them (the
// fake's index for playing their GPU).
class ExplicitSync : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(offer_fake_linux_dmabuf(h_.server().display()), nullptr);
    client_ = std::make_unique<Client>(h_);
    registry_ = decltype(registry_)(wl_display_get_registry(client_->display()));
    static const wl_registry_listener listener = {
        [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
          auto* self = static_cast<ExplicitSync*>(data);
          if (std::strcmp(iface, zwp_linux_dmabuf_v1_interface.name) == 0)
            self->dmabuf_ = decltype(self->dmabuf_)(static_cast<zwp_linux_dmabuf_v1*>(
                wl_registry_bind(r, name, &zwp_linux_dmabuf_v1_interface, 4)));
          if (std::strcmp(iface, wp_linux_drm_syncobj_manager_v1_interface.name) == 0)
            self->syncobj_ = decltype(self->syncobj_)(static_cast<wp_linux_drm_syncobj_manager_v1*>(
                wl_registry_bind(r, name, &wp_linux_drm_syncobj_manager_v1_interface, 1)));
          if (std::strcmp(iface, wp_fifo_manager_v1_interface.name) == 0)
            self->fifo_ = decltype(self->fifo_)(static_cast<wp_fifo_manager_v1*>(
                wl_registry_bind(r, name, &wp_fifo_manager_v1_interface, 1)));
        },
        [](void*, wl_registry*, uint32_t) {}};
    wl_registry_add_listener(registry_, &listener, this);
    h_.sync();
    ASSERT_NE(dmabuf_.get(), nullptr);
    ASSERT_NE(syncobj_.get(), nullptr) << "linux-drm-syncobj-v1 is not advertised";
    ASSERT_NE(fifo_.get(), nullptr);
  }
  void TearDown() override {
    // The client's proxies (LeakSanitizer counts them), then the model's
    // timelines.
    for (wl_buffer* buffer : buffers_) wl_buffer_destroy(buffer);
    for (auto* proxy : timeline_proxies_) wp_linux_drm_syncobj_timeline_v1_destroy(proxy);
    if (surface_ != nullptr) wp_linux_drm_syncobj_surface_v1_destroy(surface_);
    fake_syncobj_input_done();
  }

  // A window showing red from shm, then under explicit sync: every buffer
  // commit from here on carries points.
  void map_and_sync(Window& w) {
    w.initial_commit();
    ASSERT_TRUE(h_.run_until([&] { return w.configure_count() >= 1; }));
    w.draw(kWidth, kHeight, kRed);
    ASSERT_TRUE(h_.run_until([&] { return count_pixels(h_.capture(), kRed) >= 1000; }));
    surface_ = wp_linux_drm_syncobj_manager_v1_get_surface(syncobj_, w.surface());
  }

  // A timeline the client made and baton imported; its index for the fake.
  struct Timeline {
    wp_linux_drm_syncobj_timeline_v1* proxy;
    size_t index;
  };
  Timeline timeline() {
    UniqueFd fd = fake_timeline_fd();
    EXPECT_TRUE(fd);
    timeline_proxies_.push_back(
        wp_linux_drm_syncobj_manager_v1_import_timeline(syncobj_, fd.get()));
    return {timeline_proxies_.back(), timelines_++};
  }

  // A linear XRGB8888 dma-buf of one memfd plane.
  wl_buffer* dmabuf_buffer(int width = kWidth, int height = kHeight) {
    UniqueFd plane(memfd_create("explicit-sync-test", MFD_CLOEXEC));
    EXPECT_EQ(ftruncate(plane.get(), off_t{width} * height * 4), 0);
    zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(dmabuf_);
    zwp_linux_buffer_params_v1_add(params, plane.get(), 0, 0, width * 4, 0, 0);  // linear
    wl_buffer* buffer =
        zwp_linux_buffer_params_v1_create_immed(params, width, height, DRM_FORMAT_XRGB8888, 0);
    zwp_linux_buffer_params_v1_destroy(params);
    buffers_.push_back(buffer);
    return buffer;
  }

  // Attaches a new dma-buf with its acquire and release points (not
  // committed).
  void attach_with_points(Window& w, const Timeline& acquire_timeline, uint64_t acquire,
                          const Timeline& release_timeline, uint64_t release) {
    wl_surface_attach(w.surface(), dmabuf_buffer(), 0, 0);
    wl_surface_damage_buffer(w.surface(), 0, 0, kWidth, kHeight);
    wp_linux_drm_syncobj_surface_v1_set_acquire_point(surface_, acquire_timeline.proxy,
                                                      acquire >> 32, acquire & 0xffffffff);
    wp_linux_drm_syncobj_surface_v1_set_release_point(surface_, release_timeline.proxy,
                                                      release >> 32, release & 0xffffffff);
  }

  // Commits held by their acquire points, and those let through so far.
  size_t held() { return h_.server().hold_queue().held(HoldReason::fence); }
  uint64_t let_through() { return h_.server().hold_queue().cleared(HoldReason::fence); }

  Harness h_{fake_drm_options()};
  std::unique_ptr<Client> client_;
  Owned<wl_registry, wl_registry_destroy> registry_;
  Owned<zwp_linux_dmabuf_v1, zwp_linux_dmabuf_v1_destroy> dmabuf_;
  Owned<wp_linux_drm_syncobj_manager_v1, wp_linux_drm_syncobj_manager_v1_destroy> syncobj_;
  Owned<wp_fifo_manager_v1, wp_fifo_manager_v1_destroy> fifo_;
  wp_linux_drm_syncobj_surface_v1* surface_ = nullptr;
  size_t timelines_ = 0;
  std::vector<wl_buffer*> buffers_;
  std::vector<wp_linux_drm_syncobj_timeline_v1*> timeline_proxies_;
};

TEST_F(ExplicitSync, ACommitWaitsForItsAcquirePointToSignalNotMerelyToExist) {
  Window w(*client_);
  map_and_sync(w);
  Timeline t = timeline();
  attach_with_points(w, t, 1, t, 2);
  wl_surface_commit(w.surface());
  h_.sync();
  h_.run_for(milliseconds(50));
  EXPECT_EQ(held(), 1u) << "shown before its acquire point had even a fence";

  fake_gpu_acts(t.index, 1, false);  // submitted: a fence, not yet signalled
  h_.run_for(milliseconds(50));
  EXPECT_EQ(held(), 1u) << "shown before the GPU finished drawing it";

  fake_gpu_acts(t.index, 1, true);
  ASSERT_TRUE(h_.run_until([&] { return held() == 0; }));
  EXPECT_EQ(let_through(), 1u);
  EXPECT_EQ(wl_display_get_error(client_->display()), 0);
}

// pixman cannot read the fake's dma-bufs (as a GPU may fail to import one):
// the new buffer, never read, is the client's again at once, not when the
// previous one goes; the surface shows nothing (not a stale texture).
TEST_F(ExplicitSync, ADmabufBatonCouldNotImportIsReleasedAtOnce) {
  Window w(*client_);
  map_and_sync(w);
  Timeline acquire = timeline();
  Timeline release = timeline();
  fake_gpu_acts(acquire.index, 1, true);
  attach_with_points(w, acquire, 1, release, 1);
  wl_surface_commit(w.surface());
  EXPECT_TRUE(h_.run_until([&] { return fake_point_signalled(release.index, 1); }))
      << "a buffer baton never read was not released";
  EXPECT_TRUE(h_.run_until([&] { return count_pixels(h_.capture(), kRed) == 0; }))
      << "the previous buffer's texture is still shown";
  EXPECT_EQ(wl_display_get_error(client_->display()), 0);
}

// wlroots 0.19.2 kept the previous texture when a buffer could not be
// imported while the surface took the new buffer's size: the next frame
// drew a source box past that texture and aborted baton (an assertion in
// wlr_render_pass_add_texture). Any client could do it with a dma-buf the
// renderer refuses after linux-dmabuf accepted it.
TEST_F(ExplicitSync, ALargerDmabufThatCannotBeImportedCrashesNothing) {
  Window w(*client_);
  w.initial_commit();
  ASSERT_TRUE(h_.run_until([&] { return w.configure_count() >= 1; }));
  w.draw(kWidth, kHeight, kRed);
  ASSERT_TRUE(h_.run_until([&] { return count_pixels(h_.capture(), kRed) >= 1000; }));
  wl_surface_attach(w.surface(), dmabuf_buffer(3 * kWidth, 3 * kHeight), 0, 0);
  wl_surface_damage_buffer(w.surface(), 0, 0, 3 * kWidth, 3 * kHeight);
  wl_surface_commit(w.surface());
  h_.sync();
  h_.run_for(milliseconds(100));  // frames render the surface
  Client other(h_);
  Window next(other);
  next.initial_commit();
  ASSERT_TRUE(h_.run_until([&] { return next.configure_count() >= 1; }));
  next.draw(kWidth, kHeight, 0xff0000ff);
  EXPECT_TRUE(h_.run_until([&] { return count_pixels(h_.capture(), 0xff0000ff) >= 1000; }));
}

// A commit held (here by its acquire point, behind a fifo barrier) when its
// surface dies was never shown: its release point follows its acquire
// point, so the producer can reuse the buffer once its own drawing is done.
TEST_F(ExplicitSync, AHeldCommitsReleasePointFollowsItsAcquirePointWhenTheSurfaceDies) {
  auto w = std::make_unique<Window>(*client_);
  map_and_sync(*w);
  wp_fifo_v1* fifo = wp_fifo_manager_v1_get_fifo(fifo_, w->surface());
  Timeline acquire = timeline();
  Timeline release = timeline();
  fake_gpu_acts(acquire.index, 1, true);
  // One flush: the barrier of the first commit is set when the second comes,
  // so the second is held by fifo when the surface goes.
  attach_with_points(*w, acquire, 1, release, 1);
  wp_fifo_v1_set_barrier(fifo);
  wl_surface_commit(w->surface());
  attach_with_points(*w, acquire, 2, release, 2);
  wp_fifo_v1_wait_barrier(fifo);
  wl_surface_commit(w->surface());
  fake_gpu_acts(acquire.index, 2, false);  // drawn into, not finished
  h_.sync();
  // Held by its acquire point, and by the barrier until the output's next
  // latch (which a slow machine may already have seen).
  ASSERT_EQ(h_.server().hold_queue().held(), 1u);
  EXPECT_EQ(held(), 1u);
  wp_fifo_v1_destroy(fifo);
  wp_linux_drm_syncobj_surface_v1_destroy(surface_);
  surface_ = nullptr;
  w.reset();
  h_.sync();
  h_.run_for(milliseconds(50));
  EXPECT_FALSE(fake_point_signalled(release.index, 2))
      << "released before the client's own drawing into it was done";
  fake_gpu_acts(acquire.index, 2, true);
  EXPECT_TRUE(h_.run_until([&] { return fake_point_signalled(release.index, 2); }))
      << "the held commit's release point never signalled";
  EXPECT_TRUE(h_.run_until([&] { return fake_point_signalled(release.index, 1); }));
  EXPECT_EQ(wl_display_get_error(client_->display()), 0);
}

TEST_F(ExplicitSync, AnFdThatIsNotASyncobjIsAProtocolErrorForThatClientOnly) {
  Client other(h_);
  Window bystander(other);
  bystander.initial_commit();
  ASSERT_TRUE(h_.run_until([&] { return bystander.configure_count() >= 1; }));
  UniqueFd memfd(memfd_create("not-a-syncobj", MFD_CLOEXEC));
  timeline_proxies_.push_back(
      wp_linux_drm_syncobj_manager_v1_import_timeline(syncobj_, memfd.get()));
  ASSERT_TRUE(h_.run_until([&] { return wl_display_get_error(client_->display()) != 0; }));
  EXPECT_EQ(wl_display_get_error(client_->display()), EPROTO);
  bystander.draw(kWidth, kHeight, kRed);
  EXPECT_TRUE(h_.run_until([&] { return count_pixels(h_.capture(), kRed) >= 1000; }));
}

}  // namespace
}  // namespace baton::test
