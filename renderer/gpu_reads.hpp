// "The GPU's reads of this buffer are done": the one question the hand-off
// asks a renderer before it gives a client's buffer back. Whatever renderer
// drew the buffer answers it; the hand-off never sees the GPU API behind it.
#pragma once

#include <functional>
#include <memory>

#include "util/unique_fd.hpp"

struct wl_event_loop;
struct wlr_texture;

namespace baton {

/// The GPU's reads of one texture, as they stood when they were asked for.
/// Outlives the texture, its renderer and its device (then they are done).
class GpuReads {
 public:
  virtual ~GpuReads() = default;
  /// Whether every read is finished. Never blocks.
  [[nodiscard]] virtual bool done() = 0;
  /// CPU-waits (bounded) for done(); teardown only, never the frame loop.
  virtual void wait() = 0;
  /// Runs `then` from the event loop once the reads may be done (ask done()
  /// again: a read still being recorded may need another round). False when
  /// nothing can wake the loop for them; the caller then wait()s. Destroying
  /// this object drops `then`.
  [[nodiscard]] virtual bool when_done(std::function<void()> then) = 0;
  /// A sync_file that signals when every read is done, where the GPU hands
  /// one out (a duplicate, the caller's to keep); invalid where it does not
  /// (lavapipe: its export waits for the work) or a read is still being
  /// recorded.
  [[nodiscard]] virtual UniqueFd fence() { return {}; }
};

/// Hands out the reads of textures, waking one event loop when they end.
class GpuReadsWatch {
 public:
  virtual ~GpuReadsWatch() = default;
  /// The reads of `texture` so far (null, or another renderer's: done).
  [[nodiscard]] virtual std::unique_ptr<GpuReads> reads_of(wlr_texture* texture) = 0;
};

/// The watch for every renderer baton makes, waking `loop`.
[[nodiscard]] std::unique_ptr<GpuReadsWatch> make_gpu_reads_watch(wl_event_loop* loop);

}  // namespace baton
