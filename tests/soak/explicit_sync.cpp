#include "tests/soak/explicit_sync.hpp"

#include <drm_fourcc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "tests/support/harness.hpp"
#include "util/unique_fd.hpp"

namespace baton::test {
namespace {

// Frames committed and not yet finished by the GPU, at most: a hung GPU
// leaves this many commits held when its member goes.
constexpr uint64_t kMaxAhead = 4;

}  // namespace

struct SyncedDrawingListeners {
  static void global(void* data, wl_registry* registry, uint32_t name, const char* interface,
                     uint32_t) {
    auto* self = static_cast<SyncedDrawing*>(data);
    if (std::strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0)
      self->dmabuf_ = static_cast<zwp_linux_dmabuf_v1*>(
          wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 4));
    if (std::strcmp(interface, wp_linux_drm_syncobj_manager_v1_interface.name) == 0)
      self->manager_ = static_cast<wp_linux_drm_syncobj_manager_v1*>(
          wl_registry_bind(registry, name, &wp_linux_drm_syncobj_manager_v1_interface, 1));
  }
};

SyncedDrawing::SyncedDrawing(Harness& harness, wl_display* display, wl_surface* surface,
                             ExplicitSyncCounts& counts, bool hangs)
    : counts_(counts), window_surface_(surface), hangs_(hangs) {
  registry_ = wl_display_get_registry(display);
  static const wl_registry_listener listener = {SyncedDrawingListeners::global,
                                                [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(registry_, &listener, this);
  harness.sync();
  if (dmabuf_ == nullptr || manager_ == nullptr || !acquire_.fd() || !release_.fd()) return;
  acquire_proxy_ = wp_linux_drm_syncobj_manager_v1_import_timeline(manager_, acquire_.fd().get());
  release_proxy_ = wp_linux_drm_syncobj_manager_v1_import_timeline(manager_, release_.fd().get());
  surface_ = wp_linux_drm_syncobj_manager_v1_get_surface(manager_, surface);
  ++counts_.members;
  if (hangs_) ++counts_.hung_gpus;
}

SyncedDrawing::~SyncedDrawing() {
  for (const auto& [point, buffer] : in_use_) wl_buffer_destroy(buffer);
  if (surface_ != nullptr) wp_linux_drm_syncobj_surface_v1_destroy(surface_);
  if (acquire_proxy_ != nullptr) wp_linux_drm_syncobj_timeline_v1_destroy(acquire_proxy_);
  if (release_proxy_ != nullptr) wp_linux_drm_syncobj_timeline_v1_destroy(release_proxy_);
  if (manager_ != nullptr) wp_linux_drm_syncobj_manager_v1_destroy(manager_);
  if (dmabuf_ != nullptr) zwp_linux_dmabuf_v1_destroy(dmabuf_);
  wl_registry_destroy(registry_);
}

void SyncedDrawing::draw(int width, int height) {
  if (surface_ == nullptr || last_point_ >= last_signalled_ + kMaxAhead) return;
  UniqueFd plane(memfd_create("baton-soak-dmabuf", MFD_CLOEXEC));
  if (!plane || ftruncate(plane.get(), off_t{width} * height * 4) != 0) return;
  zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(dmabuf_);
  zwp_linux_buffer_params_v1_add(params, plane.get(), 0, 0, static_cast<uint32_t>(width) * 4, 0,
                                 0);  // linear
  wl_buffer* buffer =
      zwp_linux_buffer_params_v1_create_immed(params, width, height, DRM_FORMAT_XRGB8888, 0);
  zwp_linux_buffer_params_v1_destroy(params);
  const uint64_t point = ++last_point_;
  wl_surface_attach(window_surface_, buffer, 0, 0);
  wl_surface_damage_buffer(window_surface_, 0, 0, width, height);
  wp_linux_drm_syncobj_surface_v1_set_acquire_point(surface_, acquire_proxy_, point >> 32,
                                                    point & 0xffffffff);
  wp_linux_drm_syncobj_surface_v1_set_release_point(surface_, release_proxy_, point >> 32,
                                                    point & 0xffffffff);
  wl_surface_commit(window_surface_);
  in_use_.emplace_back(point, buffer);
  ++counts_.commits;
}

void SyncedDrawing::gpu(std::mt19937& random) {
  // A hung GPU finishes its first two frames and then nothing.
  if (last_signalled_ >= last_point_ || (hangs_ && last_signalled_ >= 2)) return;
  // Most frames finish by the next tick; one in four waits a tick more.
  if (random() % 4 == 0) return;
  acquire_.gpu_acts(++last_signalled_, true);
  ++counts_.acquires_signalled;
}

void SyncedDrawing::poll() {
  while (!in_use_.empty() && release_.signalled(in_use_.front().first)) {
    wl_buffer_destroy(in_use_.front().second);
    in_use_.pop_front();
    ++counts_.releases_seen;
  }
}

}  // namespace baton::test
