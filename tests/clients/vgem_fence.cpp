#include "tests/clients/vgem_fence.hpp"

#include <fcntl.h>
#include <xf86drm.h>

#include <utility>

#include "tests/clients/dumb_buffer.hpp"

namespace baton::testing {
namespace {

// include/uapi/drm/vgem_drm.h: not shipped by libdrm.
struct drm_vgem_fence_attach {
  uint32_t handle;
  uint32_t flags;  // VGEM_FENCE_WRITE
  uint32_t out_fence;
  uint32_t pad;
};
struct drm_vgem_fence_signal {
  uint32_t fence;
  uint32_t flags;
};
constexpr uint32_t kVgemFenceWrite = 0x1;
constexpr unsigned long kFenceAttach = DRM_IOWR(DRM_COMMAND_BASE + 0x1, drm_vgem_fence_attach);
constexpr unsigned long kFenceSignal = DRM_IOW(DRM_COMMAND_BASE + 0x2, drm_vgem_fence_signal);

}  // namespace

Result<VgemFence> VgemFence::attach(int vgem_fd, uint32_t handle, bool write) {
  UniqueFd vgem(fcntl(vgem_fd, F_DUPFD_CLOEXEC, 0));
  if (!vgem) return last_error("fcntl(F_DUPFD_CLOEXEC)");
  drm_vgem_fence_attach arg{};
  arg.handle = handle;
  arg.flags = write ? kVgemFenceWrite : 0;
  if (drmIoctl(vgem.get(), kFenceAttach, &arg) < 0)
    return last_error("DRM_IOCTL_VGEM_FENCE_ATTACH");
  return VgemFence(std::move(vgem), arg.out_fence);
}

VgemFence::VgemFence(VgemFence&& other) noexcept
    : vgem_(std::move(other.vgem_)),
      id_(other.id_),
      signalled_(std::exchange(other.signalled_, true)) {}

VgemFence::~VgemFence() {
  if (!signalled_ && vgem_) (void)signal();
}

Status VgemFence::signal() {
  drm_vgem_fence_signal arg{id_, 0};
  if (drmIoctl(vgem_.get(), kFenceSignal, &arg) < 0)
    return last_error("DRM_IOCTL_VGEM_FENCE_SIGNAL");
  signalled_ = true;
  return {};
}

Result<PendingFence> make_pending_fence(int vgem_fd) {
  auto buffer = DumbBuffer::create(vgem_fd, 16, 16);
  if (!buffer) return buffer.error();
  auto fence = VgemFence::attach(vgem_fd, buffer->handle(), true);
  if (!fence) return fence.error();
  auto sync_file = sync::SyncFile::export_from_dmabuf(buffer->dmabuf(), sync::Access::read);
  if (!sync_file) return sync_file.error();
  // The buffer may go: the sync_file holds its own reference to the fence.
  return PendingFence{std::move(*sync_file), std::move(*fence)};
}

}  // namespace baton::testing
