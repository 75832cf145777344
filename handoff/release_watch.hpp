// What baton owes a client for one buffer it showed, and when it pays it.
//
// One watch per client buffer (the wlr_client_buffer holding a commit's
// texture). It keeps the client's dma-buf locked (no wl_buffer.release)
// and, for a linux-drm-syncobj commit, owes its release point. Both are paid
// once baton is done with the buffer:
//   - replaced: the client buffer is destroyed;
//   - read: the GPU finished every read of its texture, or the renderer has
//     a fence for those reads (then the release point carries it, and the
//     dma-buf has it among its implicit fences: either way the client waits
//     in the kernel, not for baton's loop to notice);
//   - scanned out: nothing else holds the client's own buffer. wlroots'
//     direct scanout locks it until the flip that replaced it, which keeps
//     wl_buffer.release back by itself; the release point waits for it here.
#pragma once

#include <memory>
#include <optional>

#include "handoff/release_point.hpp"
#include "renderer/gpu_reads.hpp"
#include "util/buffer_lock.hpp"
#include "util/listener.hpp"

struct wlr_buffer;

namespace baton {

class ReleaseTracker;

class ReleaseWatch {
 public:
  /// Watches `in_use` (a client buffer); `tracker` frees the watch once paid.
  ReleaseWatch(ReleaseTracker& tracker, wlr_buffer* in_use);
  ReleaseWatch(const ReleaseWatch&) = delete;
  ReleaseWatch& operator=(const ReleaseWatch&) = delete;

  [[nodiscard]] wlr_buffer* in_use() const { return buffer_; }
  /// Keeps `held` locked until the reads are over (the client's dma-buf).
  void hold(BufferLock held) { held_ = std::move(held); }
  /// Owes `point` too.
  void owe(ReleasePoint point) { point_ = std::move(point); }
  /// Teardown: waits (bounded) for the GPU's reads, then pays regardless.
  void finish();

 private:
  void buffer_gone();
  /// Pays what the reads allowed; asks to be woken when they may be over.
  void settle_reads();
  void reads_settled(UniqueFd fence);
  /// Pays the release point once no scanout holds the client's buffer.
  void pay_when_let_go();

  ReleaseTracker& tracker_;
  wlr_buffer* buffer_;            // null once destroyed
  wlr_buffer* source_ = nullptr;  // the client's buffer; null once destroyed
  BufferLock held_;
  std::optional<ReleasePoint> point_;
  std::unique_ptr<GpuReads> reads_;  // taken when the buffer is destroyed
  bool reads_over_ = false;          // done, or fenced: `fence_`
  UniqueFd fence_;
  Listener<void> destroy_;
  Listener<void> source_release_;
  Listener<void> source_destroy_;
};

}  // namespace baton
