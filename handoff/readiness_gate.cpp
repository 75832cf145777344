#include "handoff/readiness_gate.hpp"

#include <optional>
#include <utility>

#include "handoff/hold_queue.hpp"

namespace baton {

ReadinessGate::ReadinessGate(HoldQueue& queue, CommitWaits& waits) : queue_(queue), waits_(waits) {
  committing_ = queue_.committing.connect([this](wlr_surface* surface) {
    std::optional<CommitWait> wait = waits_.wait_of(surface);
    if (wait) queue_.block_until_readable(surface, std::move(*wait));
  });
}

}  // namespace baton
