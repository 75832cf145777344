// What a surface commit waits for before it may apply (a CommitWait is not a
// fence itself: it names one, as a readable fd). The readiness gate puts
// them on the hold queue as fence blockers; a CommitWaits answers, per
// commit, what each one waits for (BufferFences: the buffer's acquire point
// or its dma-buf's implicit fence; tests: eventfds they signal themselves).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "util/unique_fd.hpp"

struct wlr_surface;

namespace baton {

/// How long a commit is held: until its buffer is ready (baton), or only
/// until its acquire fence exists, the render then waiting for it on the GPU
/// (wlroots' latch at materialization; for comparisons only).
enum class Latch { when_ready, at_materialize };

struct CommitWait {
  UniqueFd ready;                      // readable once the commit may apply
  std::string what;                    // what it waits for, for logs and the trace
  std::function<void()> before_apply;  // runs as the commit is let through
};

class CommitWaits {
 public:
  virtual ~CommitWaits() = default;
  /// What the commit `surface` is making waits for (asked from inside its
  /// client_commit signal); nothing: it applies at once. A commit that breaks
  /// a protocol gets its protocol error here, and nothing.
  [[nodiscard]] virtual std::optional<CommitWait> wait_of(wlr_surface* surface) = 0;
};

}  // namespace baton
