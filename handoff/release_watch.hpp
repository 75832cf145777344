// One linux-drm-syncobj release point, signalled once baton is done with the
// buffer: the buffer (the wlr_client_buffer holding the commit's texture) is
// destroyed, the GPU finished every read of that texture (or the renderer
// has a fence for those reads, which the point then carries: the client
// waits for it, not baton's loop), AND nothing holds the client's own buffer
// any more. The last is KMS scanning it out: wlroots'
// direct scanout hands the client's buffer (the client buffer's source) to
// the plane, locked until the flip that replaced it.
#pragma once

#include <functional>
#include <memory>

#include "renderer/gpu_reads.hpp"
#include "util/listener.hpp"

struct wlr_buffer;

namespace baton {

class ReleaseWatch {
 public:
  /// `buffer_gone` runs when `buffer` is destroyed (the watch may be freed in
  /// it); `released` once the watch signalled on its own, after a scanout
  /// let the client's buffer go (the owner frees it there).
  /// `signal_release` signals the release point (a timeline point; in
  /// tests, an eventfd), once: at once with an invalid fd, else when that
  /// sync_file signals.
  /// `gpu` says when the GPU's reads of the buffer's texture are done.
  ReleaseWatch(wlr_buffer* buffer, GpuReadsWatch& gpu, std::function<void(UniqueFd)> signal_release,
               std::function<void(ReleaseWatch&)> buffer_gone,
               std::function<void(ReleaseWatch&)> released);
  ReleaseWatch(const ReleaseWatch&) = delete;
  ReleaseWatch& operator=(const ReleaseWatch&) = delete;

  /// Signals when the buffer is gone, the GPU is done reading it and no
  /// scanout holds the client's buffer; true once signalled. Never blocks.
  bool try_signal();
  /// The reads are over but a scanout still holds the client's buffer: the
  /// watch signals by itself when it lets go (then calls `released`).
  [[nodiscard]] bool waits_for_scanout();
  /// Teardown: waits (bounded) for the GPU's reads, then signals regardless.
  void finish();
  /// Runs `then` from the loop once the GPU's reads (as they stood when the
  /// buffer was destroyed) may be done; GpuReads::when_done.
  [[nodiscard]] bool when_reads_done(std::function<void()> then);

 private:
  void signal(UniqueFd fence);
  [[nodiscard]] bool reads_done() const { return reads_ == nullptr || reads_->done(); }
  // Done, or to be done behind a fence: an invalid fd with `ready` when done.
  UniqueFd reads_fence(bool& ready);

  void source_let_go();

  wlr_buffer* buffer_;            // null once destroyed
  wlr_buffer* source_ = nullptr;  // the client's buffer; null once destroyed
  GpuReadsWatch& gpu_;
  std::unique_ptr<GpuReads> reads_;               // taken when the buffer is destroyed
  std::function<void(UniqueFd)> signal_release_;  // empty once signalled
  std::function<void(ReleaseWatch&)> released_;
  Listener<void> destroy_;
  Listener<void> source_release_;
  Listener<void> source_destroy_;
};

}  // namespace baton
