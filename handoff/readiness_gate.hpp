// The readiness gate: a surface commit that carries a buffer waits until its
// buffer is ready. It asks its CommitWaits what each commit waits for
// (BufferFences: the acquire point, or the dma-buf's implicit fence) and
// puts that on the commit as a fence blocker of the surface's HoldQueue,
// which holds it (wlr_surface_lock_pending) until the fence's fd is
// readable. While a commit is held the surface keeps showing its previous
// buffer; later commits of that surface queue behind it; no other surface
// notices. What a client may have held is the queue's bound (HoldBudget),
// shared with fifo-v1 and commit-timing-v1. A commit whose fence baton
// cannot watch is a protocol error (it is never let through unwaited).
#pragma once

#include "handoff/commit_wait.hpp"
#include "util/signal.hpp"

namespace baton {

class HoldQueue;

class ReadinessGate {
 public:
  /// Puts what `waits` names on each commit of `queue`'s surfaces. Both must
  /// outlive the gate.
  ReadinessGate(HoldQueue& queue, CommitWaits& waits);
  ReadinessGate(const ReadinessGate&) = delete;
  ReadinessGate& operator=(const ReadinessGate&) = delete;

 private:
  HoldQueue& queue_;
  CommitWaits& waits_;
  Connection committing_;
};

}  // namespace baton
