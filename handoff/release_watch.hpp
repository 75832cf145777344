// One linux-drm-syncobj release point, signalled once baton is done with the
// buffer: the buffer (the wlr_client_buffer holding the commit's texture) is
// destroyed AND the GPU finished every read of that texture.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "renderer/vulkan/vulkan_renderer.hpp"
#include "sync/timeline.hpp"
#include "util/listener.hpp"

struct wlr_buffer;

namespace baton {

class ReleaseWatch {
 public:
  /// `buffer_gone` runs when `buffer` is destroyed (the watch may be freed in it).
  ReleaseWatch(wlr_buffer* buffer, std::shared_ptr<sync::Timeline> timeline, uint64_t point,
               std::function<void(ReleaseWatch&)> buffer_gone);
  ReleaseWatch(const ReleaseWatch&) = delete;
  ReleaseWatch& operator=(const ReleaseWatch&) = delete;

  /// Signals when the buffer is gone and the GPU is done reading it; true once
  /// signalled. Never blocks.
  bool try_signal();
  /// Teardown: waits (bounded) for the GPU's reads, then signals regardless.
  void finish();
  /// The GPU's reads of the buffer, as they stood when it was destroyed.
  [[nodiscard]] const vulkan::TextureReads& reads() const { return reads_; }

 private:
  void signal();

  wlr_buffer* buffer_;                        // null once destroyed
  vulkan::TextureReads reads_;                // taken when the buffer is destroyed
  std::shared_ptr<sync::Timeline> timeline_;  // null once signalled
  uint64_t point_;
  Listener<void> destroy_;
};

}  // namespace baton
