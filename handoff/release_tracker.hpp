// Release points, signalled once baton no longer reads a client's buffer:
// when the client buffer holding the commit's texture is gone, the GPU
// finished every read of that texture (the renderer's GpuReads wake the
// loop, no polling) and no scanout holds the client's buffer. The point
// itself is a callback: a linux-drm-syncobj timeline point in baton, an
// eventfd in tests.
#pragma once

#include <functional>
#include <list>
#include <memory>

#include "renderer/gpu_reads.hpp"

struct wlr_buffer;

namespace baton {

class ReleaseWatch;

class ReleaseTracker {
 public:
  /// `gpu` says when the GPU's reads of a texture are done.
  explicit ReleaseTracker(std::unique_ptr<GpuReadsWatch> gpu);
  /// Whatever is still in use is never read again once the GPU's reads are
  /// over (the renderer outlives this): waits for them, then signals all.
  ~ReleaseTracker();
  ReleaseTracker(const ReleaseTracker&) = delete;
  ReleaseTracker& operator=(const ReleaseTracker&) = delete;

  /// Runs `signal_release` once `buffer` is done with, as above: with the
  /// GPU reads' fence where the renderer has one (the point then carries
  /// it), else with an invalid fd once they are done.
  void release_when_done(wlr_buffer* buffer, std::function<void(UniqueFd)> signal_release);
  /// Releases not signalled yet (tests).
  [[nodiscard]] size_t pending() const;

 private:
  void buffer_gone(ReleaseWatch& watch);
  /// A watch that signalled by itself (a scanout let its buffer go).
  void forget(ReleaseWatch& watch);
  void wait_for_gpu(ReleaseWatch* watch);

  // Before the watches: they ask it for their reads while they live.
  std::unique_ptr<GpuReadsWatch> gpu_;
  std::list<std::unique_ptr<ReleaseWatch>> in_use_;       // buffers baton still uses
  std::list<std::unique_ptr<ReleaseWatch>> gpu_reading_;  // buffers gone, GPU still reading
};

}  // namespace baton
