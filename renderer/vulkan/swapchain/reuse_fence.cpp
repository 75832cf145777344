#include "renderer/vulkan/swapchain/reuse_fence.hpp"

#include "sync/sync_file.hpp"

namespace baton::vulkan {

namespace {

Result<UniqueFd> unfinished(int dmabuf, sync::Access access) {
  auto fence = sync::SyncFile::export_from_dmabuf(dmabuf, access);
  if (!fence) return fence.error();
  auto signalled = fence->signalled();
  if (!signalled) return signalled.error();
  if (*signalled) return UniqueFd();  // nothing left to wait for
  return fence->release();
}

}  // namespace

Result<UniqueFd> unfinished_accesses_fence(int dmabuf) {
  return unfinished(dmabuf, sync::Access::write);
}

Result<UniqueFd> unfinished_writes_fence(int dmabuf) {
  return unfinished(dmabuf, sync::Access::read);
}

}  // namespace baton::vulkan
