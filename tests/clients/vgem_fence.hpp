// An unsignalled fence the test controls, from the stock vgem driver:
// VGEM_FENCE_ATTACH puts it into a vgem buffer's dma-buf reservation (so the
// buffer's implicit sync waits for it), VGEM_FENCE_SIGNAL signals it. The
// kernel signals it by itself after 10 s, so tests must finish well before.
#pragma once

#include <cstdint>

#include "sync/sync_file.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::testing {

class VgemFence {
 public:
  /// Attaches a fence to the vgem buffer `handle` as its writer
  /// (`write` true: readers wait too) or as a reader (only writers wait).
  static Result<VgemFence> attach(int vgem_fd, uint32_t handle, bool write);

  VgemFence(VgemFence&& other) noexcept;
  VgemFence& operator=(VgemFence&&) = delete;
  VgemFence(const VgemFence&) = delete;
  /// Signals the fence if the test did not, so nothing waits out the 10 s.
  ~VgemFence();

  Status signal();

 private:
  VgemFence(UniqueFd vgem, uint32_t id) : vgem_(std::move(vgem)), id_(id) {}

  UniqueFd vgem_;
  uint32_t id_ = 0;
  bool signalled_ = false;
};

/// A vgem dumb buffer with an unsignalled writer fence: exporting its READ
/// sync_file gives a free-standing unsignalled sync_file (no sw_sync needed).
struct PendingFence {
  sync::SyncFile sync_file;
  VgemFence fence;
};
Result<PendingFence> make_pending_fence(int vgem_fd);

}  // namespace baton::testing
