// A linux-drm-syncobj release point: the client reuses its buffer once it
// signals. baton pays it with the GPU reads' fence where the renderer has
// one (the point then signals when the GPU is done), else by signalling it.
#pragma once

#include <cstdint>
#include <memory>

#include "sync/timeline.hpp"
#include "util/unique_fd.hpp"

namespace baton {

struct ReleasePoint {
  std::shared_ptr<sync::Timeline> timeline;
  uint64_t point = 0;

  /// True when it carries `reads_fence`, false when signalled now (an
  /// invalid fd: the reads are done); logs a failure.
  bool pay(UniqueFd reads_fence) const;
};

}  // namespace baton
