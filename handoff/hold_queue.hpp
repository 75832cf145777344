// The hold queue: the one mechanism that holds a surface commit back, for
// whatever reason, until it may apply.
//
// A commit carries blockers: its buffer's fence (the readiness gate: an
// acquire point, a dma-buf's implicit fence), a fifo-v1 barrier, a
// commit-timing-v1 target time. Each producer adds its blockers while the
// commit is being made (from inside the surface's client_commit) and clears
// them when their reason has passed. A commit with a blocker is locked
// (wlr_surface_lock_pending, once however many blockers it has) and applies
// once its last blocker clears and the commits ahead of it have applied:
// wlroots applies a surface's commits in order, so a commit queued behind a
// held one waits too. Every wait is an fd in the event loop or a producer's
// own event, never a blocking call; no other surface notices.
//
// One place where a held commit dies: when its surface is destroyed, its
// blockers go with it (fence fds closed, watches removed, costs uncounted)
// and wlroots frees the cached state, which unlocks its buffer (shm and
// implicit-sync buffers get wl_buffer.release) and finishes its explicit-sync
// state (protocols/syncobj_surface.cpp: the release point follows the
// acquire point). Producers forget their blockers on their own; clearing one
// whose surface is gone does nothing.
//
// Bound by cost, not count: a client's queued commits (held ones and those
// queued behind them) may cost baton at most a HoldBudget at once, over all
// its surfaces. The queue is as deep as that allows; past it the client gets
// an implementation error that names the bound (its commits stay held, and
// it is on its way out). See HoldBudget for the values and
// docs/frame-pipeline.md ("The hold queue").
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "handoff/commit_wait.hpp"
#include "util/listener.hpp"
#include "util/signal.hpp"

struct wl_client;
struct wl_event_loop;
struct wlr_compositor;
struct wlr_surface;

namespace baton {

class Trace;

/// Why a held commit waits; each is a blocker on it.
enum class HoldReason { fence, fifo_barrier, target_time };

/// What one client's queued commits may cost baton at once, over all its
/// surfaces. A queued commit is one that is held, or queued behind a held
/// one of its surface (wlroots keeps it cached until those ahead apply).
/// The defaults allow hundreds of commits of a normal window: 256 shm
/// commits of 1280x800 (4 MiB each), 500 of 800x600, 128 1080p frames; a
/// FIFO client needs its swapchain's few buffers, a player that queues frames
/// by timestamp one buffer per frame.
struct HoldBudget {
  /// Bytes of the buffers they keep alive, each distinct buffer once (a
  /// buffer's planes: stride x height each). 1 GiB.
  size_t buffer_bytes = size_t{1} << 30;
  /// Bytes of baton's own memory for them: kStateBytesPerCommit each, plus
  /// their damage, opaque and input rectangles and frame callbacks. 16 MiB:
  /// 16,000 empty commits.
  size_t state_bytes = size_t{16} << 20;
  /// Fds they keep open: each distinct shm pool or dma-buf plane fd of their
  /// buffers, and each fence being waited for. 1024.
  size_t fds = 1024;

  /// The estimate of baton's memory for one queued commit before its
  /// rectangles and callbacks (wlroots' cached surface state with its synced
  /// states, and the queue's own entry).
  static constexpr size_t kStateBytesPerCommit = 1024;
};

/// What a client's queued commits cost now.
struct HoldCost {
  size_t buffer_bytes = 0;
  size_t state_bytes = 0;
  size_t fds = 0;
  size_t commits = 0;  // queued: held, or behind a held one
};

/// One blocker on one held commit, as its producer keeps it to clear it.
struct Blocker {
  uint64_t id = 0;  // 0: none
  explicit operator bool() const { return id != 0; }
};

class HoldQueue {
 public:
  /// Holds the commits of every surface of `compositor`. A fence blocker not
  /// cleared after `stuck_after` is logged once. With `trace`, each commit
  /// held by a fence is a span on its surface's track.
  HoldQueue(wl_event_loop* loop, wlr_compositor* compositor, HoldBudget budget = {},
            Trace* trace = nullptr,
            std::chrono::milliseconds stuck_after = std::chrono::milliseconds(1000));
  /// Lets every commit still held through (the surfaces outlive the queue
  /// only in tests; baton's clients go first).
  ~HoldQueue();
  HoldQueue(const HoldQueue&) = delete;
  HoldQueue& operator=(const HoldQueue&) = delete;

  /// A surface is making a commit (from its client_commit): producers that
  /// look at every commit (the readiness gate) add their blockers here.
  Signal<wlr_surface*> committing;

  /// Blocks the commit `surface` is making (call it from inside its
  /// client_commit) until clear(). A commit may get several blockers.
  [[nodiscard]] Blocker block(wlr_surface* surface, HoldReason reason);
  /// Clears `blocker`. When it was its commit's last, the commit applies,
  /// with those queued behind it, as soon as the commits ahead of it have:
  /// perhaps inside this call. A blocker whose surface is gone, or that was
  /// cleared already, is ignored.
  void clear(Blocker blocker);

  /// Blocks the commit `surface` is making (from inside its client_commit)
  /// until `wait.ready` is readable, then runs `wait.before_apply` and
  /// clears. A fence readable now holds nothing. A fence the loop cannot
  /// watch is an error for the client (the commit stays held: it is never
  /// shown unwaited).
  void block_until_readable(wlr_surface* surface, CommitWait wait);

  /// Commits held now (a blocker not cleared), over all surfaces.
  [[nodiscard]] size_t held() const;
  /// Commits held now by a blocker of `reason`.
  [[nodiscard]] size_t held(HoldReason reason) const;
  /// Blockers of `reason` cleared so far (not counting those that died with
  /// their surface).
  [[nodiscard]] uint64_t cleared(HoldReason reason) const;
  /// What `client`'s queued commits cost now.
  [[nodiscard]] HoldCost cost(wl_client* client) const;
  [[nodiscard]] const HoldBudget& budget() const { return budget_; }

 private:
  class SurfaceHolds;
  friend class SurfaceHolds;
  struct ClientHolds;

  // The client's costs, and whether it was told it went past the bound.
  ClientHolds& client(wl_client* client);
  void forget_client_if_idle(wl_client* client);
  // Checks `client` against the budget after its costs grew.
  void check_budget(wl_client* client);

  wl_event_loop* loop_;
  HoldBudget budget_;
  Trace* trace_;
  std::chrono::milliseconds stuck_after_;
  uint64_t next_blocker_ = 1;
  std::array<uint64_t, 3> cleared_{};  // by HoldReason
  std::unordered_map<wl_client*, std::unique_ptr<ClientHolds>> clients_;
  std::unordered_map<uint64_t, wlr_surface*> blockers_;  // live blockers: their surface
  // Last: a SurfaceHolds uncounts itself from the maps above as it goes.
  std::unordered_map<wlr_surface*, std::unique_ptr<SurfaceHolds>> surfaces_;
  Listener<wlr_surface> new_surface_;
};

}  // namespace baton
