#include "handoff/hold_queue.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/clock.hpp"
#include "util/event_source.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr int64_t kNsPerMs = 1'000'000;
// A frame callback of a queued commit: its wl_resource and list entry.
constexpr size_t kBytesPerFrameCallback = 128;
// A watched fence: baton's fd, and the event loop's duplicate of it
// (wl_event_loop_add_fd dups the fd it watches).
constexpr size_t kFdsPerFence = 2;

size_t index_of(HoldReason reason) { return static_cast<size_t>(reason); }

// The buffer a commit attaches, and what keeping it alive costs.
struct BufferCost {
  const wlr_buffer* buffer = nullptr;  // null: the commit attaches none
  size_t bytes = 0;
  std::vector<int> fds;  // distinct
};

BufferCost buffer_cost(wlr_surface_state& pending) {
  BufferCost cost;
  if ((pending.committed & WLR_SURFACE_STATE_BUFFER) == 0 || pending.buffer == nullptr) return cost;
  wlr_buffer* buffer = pending.buffer;
  cost.buffer = buffer;
  wlr_shm_attributes shm{};
  wlr_dmabuf_attributes dmabuf{};
  if (wlr_buffer_get_shm(buffer, &shm)) {  // its part of the pool, and the pool's fd
    cost.bytes = static_cast<size_t>(shm.stride) * static_cast<size_t>(shm.height);
    cost.fds.push_back(shm.fd);
  } else if (wlr_buffer_get_dmabuf(buffer, &dmabuf)) {
    for (int i = 0; i < dmabuf.n_planes; ++i) {
      cost.bytes += static_cast<size_t>(dmabuf.stride[i]) * static_cast<size_t>(dmabuf.height);
      if (std::find(cost.fds.begin(), cost.fds.end(), dmabuf.fd[i]) == cost.fds.end())
        cost.fds.push_back(dmabuf.fd[i]);
    }
  } else {  // single-pixel buffers and the like: their pixels
    cost.bytes = static_cast<size_t>(std::max(buffer->width, 0)) *
                 static_cast<size_t>(std::max(buffer->height, 0)) * 4;
  }
  return cost;
}

size_t state_cost(wlr_surface_state& pending) {
  const auto rects = static_cast<size_t>(pixman_region32_n_rects(&pending.surface_damage)) +
                     static_cast<size_t>(pixman_region32_n_rects(&pending.buffer_damage)) +
                     static_cast<size_t>(pixman_region32_n_rects(&pending.opaque)) +
                     static_cast<size_t>(pixman_region32_n_rects(&pending.input));
  const auto callbacks = static_cast<size_t>(wl_list_length(&pending.frame_callback_list));
  return HoldBudget::kStateBytesPerCommit + rects * sizeof(pixman_box32_t) +
         callbacks * kBytesPerFrameCallback;
}

}  // namespace

// One client's queued commits: what they cost, each buffer and fd once.
struct HoldQueue::ClientHolds {
  HoldCost cost;
  std::unordered_map<const wlr_buffer*, size_t> buffers;  // queued commits attaching each
  std::unordered_map<int, size_t> fds;                    // buffers and fences holding each
  bool told = false;  // it went past the budget and has its error

  void add_fd(int fd, size_t weight = 1) {
    if (fds[fd]++ == 0) cost.fds += weight;
  }
  void remove_fd(int fd, size_t weight = 1) {
    auto it = fds.find(fd);
    if (it == fds.end()) return;
    if (--it->second == 0) {
      fds.erase(it);
      cost.fds -= weight;
    }
  }
  void add_buffer(const BufferCost& buffer) {
    if (buffer.buffer == nullptr || buffers[buffer.buffer]++ > 0) return;
    cost.buffer_bytes += buffer.bytes;
    for (int fd : buffer.fds) add_fd(fd);
  }
  void remove_buffer(const BufferCost& buffer) {
    if (buffer.buffer == nullptr) return;
    auto it = buffers.find(buffer.buffer);
    if (it == buffers.end() || --it->second > 0) return;
    buffers.erase(it);
    cost.buffer_bytes -= buffer.bytes;
    for (int fd : buffer.fds) remove_fd(fd);
  }
};

// The queue of one wl_surface: its queued commits, oldest first, from the
// first held one until each applies.
class HoldQueue::SurfaceHolds {
 public:
  SurfaceHolds(HoldQueue& queue, wlr_surface* surface)
      : queue_(queue), surface_(surface), client_(wl_resource_get_client(surface->resource)) {
    client_commit_.connect(&surface->events.client_commit, [this](void*) { committed(); });
    applied_.connect(&surface->events.commit, [this](void*) { applied(); });
    destroy_.connect(&surface->events.destroy, [this](void*) {
      // The one place a held commit dies: its blockers and costs go here,
      // and wlroots frees its cached state next (its buffer unlocked, its
      // release point following its acquire point).
      drop_all();
      queue_.surfaces_.erase(surface_);  // destroys this
    });
  }
  ~SurfaceHolds() { drop_all(); }
  SurfaceHolds(const SurfaceHolds&) = delete;
  SurfaceHolds& operator=(const SurfaceHolds&) = delete;

  Blocker add(HoldReason reason) {
    Commit& commit = pending_commit();
    const uint64_t id = queue_.next_blocker_++;
    commit.blockers.push_back(BlockerState{.id = id, .reason = reason, .since_ns = monotonic_ns()});
    queue_.blockers_.emplace(id, surface_);
    if (!commit.locked) {
      commit.locked = true;
      (void)wlr_surface_lock_pending(surface_);  // commit.seq: the pending seq
    }
    return Blocker{id};
  }

  void add_fence(CommitWait wait) {
    if (readable_now(wait.ready.get())) {  // ready already: no hold, no wakeup
      if (wait.before_apply) wait.before_apply();
      return;
    }
    const Blocker blocker = add(HoldReason::fence);
    BlockerState& fence = *find(blocker.id).second;
    fence.fence = std::move(wait.ready);
    fence.what = std::move(wait.what);
    fence.before_apply = std::move(wait.before_apply);
    queue_.client(client_).add_fd(fence.fence.get(), kFdsPerFence);
    fence.watch = EventSource::fd(queue_.loop_, fence.fence.get(), WL_EVENT_READABLE,
                                  [this, id = blocker.id](uint32_t) { fence_ready(id); });
    queue_.check_budget(client_);
    if (!fence.watch) {
      // The commit stays held: it is never shown unwaited, and the client
      // is on its way out.
      LOG_ERROR("hold queue: cannot watch a fence in the event loop; rejecting the commit");
      wl_client_post_no_memory(client_);
      return;
    }
    arm_stuck_timer();
  }

  /// False when no commit of this surface has the blocker.
  bool clear(uint64_t id) {
    auto [commit, blocker] = find(id);
    if (commit == nullptr) return false;
    ++queue_.cleared_.at(index_of(blocker->reason));
    trace(*blocker);
    forget(*blocker);
    commit->blockers.erase(commit->blockers.begin() + (blocker - commit->blockers.data()));
    if (commit->blockers.empty() && commit->locked) {
      commit->locked = false;
      const uint32_t seq = commit->seq;
      // Last: may apply it and those queued behind it now (applied() drops
      // them from commits_).
      wlr_surface_unlock_cached(surface_, seq);
    }
    return true;
  }

  [[nodiscard]] size_t held() const {
    return static_cast<size_t>(std::count_if(commits_.begin(), commits_.end(),
                                             [](const Commit& c) { return !c.blockers.empty(); }));
  }
  [[nodiscard]] size_t held(HoldReason reason) const {
    return static_cast<size_t>(
        std::count_if(commits_.begin(), commits_.end(), [&](const Commit& c) {
          return std::any_of(c.blockers.begin(), c.blockers.end(),
                             [&](const BlockerState& b) { return b.reason == reason; });
        }));
  }

  /// The queue goes before the surface: every held commit is let through.
  void let_everything_through() {
    client_commit_.disconnect();
    applied_.disconnect();
    destroy_.disconnect();
    std::vector<uint32_t> locked;
    for (const Commit& commit : commits_)
      if (commit.locked) locked.push_back(commit.seq);
    drop_all();
    for (uint32_t seq : locked) wlr_surface_unlock_cached(surface_, seq);
  }

 private:
  struct BlockerState {
    uint64_t id = 0;
    HoldReason reason = HoldReason::fence;
    int64_t since_ns = 0;  // when it was added
    // A fence blocker's fence, watched in the loop.
    UniqueFd fence;
    std::string what;                    // what it waits for, for logs and the trace
    std::function<void()> before_apply;  // runs as it clears
    std::unique_ptr<EventSource> watch;
    bool reported = false;  // logged as stuck
  };
  struct Commit {
    uint32_t seq = 0;
    bool locked = false;                 // holds a wlr_surface_lock_pending lock
    std::vector<BlockerState> blockers;  // not cleared yet
    BufferCost buffer;
    size_t state_bytes = 0;
  };

  // wl_surface.commit: a commit made while others are queued is queued
  // behind them (wlroots caches it), and costs as much as a held one.
  void committed() {
    if (!commits_.empty()) (void)pending_commit();
    queue_.committing.emit(surface_);
  }

  // The queued commit being made (from inside client_commit), counted the
  // first time it is asked for.
  Commit& pending_commit() {
    const uint32_t seq = surface_->pending.seq;
    if (!commits_.empty() && commits_.back().seq == seq) return commits_.back();
    Commit& commit = commits_.emplace_back();
    commit.seq = seq;
    commit.buffer = buffer_cost(surface_->pending);
    commit.state_bytes = state_cost(surface_->pending);
    ClientHolds& client = queue_.client(client_);
    ++client.cost.commits;
    client.cost.state_bytes += commit.state_bytes;
    client.add_buffer(commit.buffer);
    queue_.check_budget(client_);
    return commit;
  }

  // A commit of this surface was applied (surface->current is it): it and
  // any before it are no longer queued.
  void applied() {
    if (commits_.empty()) return;  // the common case: nothing was queued
    const uint32_t seq = surface_->current.seq;
    while (!commits_.empty() && commits_.front().seq <= seq) {
      drop(commits_.front());
      commits_.pop_front();
    }
    queue_.forget_client_if_idle(client_);
  }

  std::pair<Commit*, BlockerState*> find(uint64_t id) {
    for (Commit& commit : commits_)
      for (BlockerState& blocker : commit.blockers)
        if (blocker.id == id) return {&commit, &blocker};
    return {nullptr, nullptr};
  }

  // Uncounts a blocker that goes (cleared, or dying with its commit).
  void forget(BlockerState& blocker) {
    queue_.blockers_.erase(blocker.id);
    if (blocker.fence) queue_.client(client_).remove_fd(blocker.fence.get(), kFdsPerFence);
  }

  // Uncounts a commit that leaves the queue (applied, or dying).
  void drop(Commit& commit) {
    for (BlockerState& blocker : commit.blockers) forget(blocker);
    commit.blockers.clear();
    ClientHolds& client = queue_.client(client_);
    --client.cost.commits;
    client.cost.state_bytes -= commit.state_bytes;
    client.remove_buffer(commit.buffer);
  }

  void drop_all() {
    for (Commit& commit : commits_) drop(commit);
    commits_.clear();
    stuck_timer_.reset();
    queue_.forget_client_if_idle(client_);
  }

  // The fence has signalled: its commit may apply once nothing else holds it.
  void fence_ready(uint64_t id) {
    auto [commit, fence] = find(id);
    if (commit == nullptr) return;
    if (fence->before_apply) fence->before_apply();
    clear(id);
  }

  // With --trace: how long the blocker held its commit, on the surface's
  // track.
  void trace(const BlockerState& blocker) {
    Trace* trace = queue_.trace_;
    if (trace == nullptr) return;
    if (track_ == 0) track_ = trace->track(track_name());
    switch (blocker.reason) {
      case HoldReason::fence:
        trace->span(track_, "held until ready", blocker.since_ns, Trace::now(),
                    "\"waited for\":" + Trace::quote(blocker.what));
        break;
      case HoldReason::fifo_barrier:
        trace->span(track_, "held for a fifo barrier", blocker.since_ns, Trace::now());
        break;
      case HoldReason::target_time:
        trace->span(track_, "held until its target time", blocker.since_ns, Trace::now());
        break;
    }
  }

  // At the earliest fence not yet reported as stuck.
  void arm_stuck_timer() {
    if (!stuck_timer_) stuck_timer_ = EventSource::timer(queue_.loop_, [this] { report_stuck(); });
    if (!stuck_timer_) return;
    std::optional<int64_t> earliest;
    for (const Commit& commit : commits_)
      for (const BlockerState& b : commit.blockers)
        if (b.fence && !b.reported && (!earliest || b.since_ns < *earliest)) earliest = b.since_ns;
    if (!earliest) {
      stuck_timer_->arm_ms(0);  // disarms
      return;
    }
    const int64_t due_ns = *earliest + stuck_after_ns() - monotonic_ns();
    stuck_timer_->arm_ms(
        static_cast<int>(std::max<int64_t>(1, (due_ns + kNsPerMs - 1) / kNsPerMs)));
  }

  void report_stuck() {
    const int64_t now = monotonic_ns();
    pid_t pid = 0;
    wl_client_get_credentials(client_, &pid, nullptr, nullptr);
    for (Commit& commit : commits_) {
      for (BlockerState& b : commit.blockers) {
        if (!b.fence || b.reported || now - b.since_ns < stuck_after_ns()) continue;
        b.reported = true;
        // tests grep this line: tests/vm/clients_test.sh
        LOG_ERROR(
            "readiness gate: surface of client pid %d: buffer not ready after %lld ms (waiting "
            "for its %s); still showing its previous buffer",
            static_cast<int>(pid), static_cast<long long>(queue_.stuck_after_.count()),
            b.what.c_str());
      }
    }
    arm_stuck_timer();
  }

  [[nodiscard]] int64_t stuck_after_ns() const {
    return static_cast<int64_t>(queue_.stuck_after_.count()) * kNsPerMs;
  }

  [[nodiscard]] std::string track_name() const {
    pid_t pid = 0;
    wl_client_get_credentials(client_, &pid, nullptr, nullptr);
    return "client " + std::to_string(pid) + " surface " +
           std::to_string(wl_resource_get_id(surface_->resource));
  }

  HoldQueue& queue_;
  wlr_surface* surface_;
  wl_client* client_;
  int track_ = 0;                             // its trace track, made on its first traced hold
  std::deque<Commit> commits_;                // a deque: references stay valid as it grows
  std::unique_ptr<EventSource> stuck_timer_;  // made with the first fence
  Listener<void> client_commit_;
  Listener<void> applied_;
  Listener<void> destroy_;
};

HoldQueue::HoldQueue(wl_event_loop* loop, wlr_compositor* compositor, HoldBudget budget,
                     Trace* trace, std::chrono::milliseconds stuck_after)
    : loop_(loop), budget_(budget), trace_(trace), stuck_after_(stuck_after) {
  new_surface_.connect(&compositor->events.new_surface, [this](wlr_surface* surface) {
    surfaces_.emplace(surface, std::make_unique<SurfaceHolds>(*this, surface));
  });
}

HoldQueue::~HoldQueue() {
  new_surface_.disconnect();
  auto surfaces = std::move(surfaces_);
  surfaces_.clear();
  for (auto& [surface, holds] : surfaces) holds->let_everything_through();
}

Blocker HoldQueue::block(wlr_surface* surface, HoldReason reason) {
  auto it = surfaces_.find(surface);
  if (it == surfaces_.end()) return {};  // made before the queue (tests): never held
  return it->second->add(reason);
}

void HoldQueue::clear(Blocker blocker) {
  auto at = blockers_.find(blocker.id);
  if (at == blockers_.end()) return;
  auto it = surfaces_.find(at->second);
  if (it != surfaces_.end()) (void)it->second->clear(blocker.id);
}

void HoldQueue::block_until_readable(wlr_surface* surface, CommitWait wait) {
  auto it = surfaces_.find(surface);
  if (it == surfaces_.end()) return;
  it->second->add_fence(std::move(wait));
}

size_t HoldQueue::held() const {
  size_t n = 0;
  for (const auto& [surface, holds] : surfaces_) n += holds->held();
  return n;
}

size_t HoldQueue::held(HoldReason reason) const {
  size_t n = 0;
  for (const auto& [surface, holds] : surfaces_) n += holds->held(reason);
  return n;
}

uint64_t HoldQueue::cleared(HoldReason reason) const { return cleared_.at(index_of(reason)); }

HoldCost HoldQueue::cost(wl_client* client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? HoldCost{} : it->second->cost;
}

HoldQueue::ClientHolds& HoldQueue::client(wl_client* client) {
  std::unique_ptr<ClientHolds>& holds = clients_[client];
  if (!holds) holds = std::make_unique<ClientHolds>();
  return *holds;
}

void HoldQueue::forget_client_if_idle(wl_client* client) {
  // A client with nothing queued is forgotten (a later client may get its
  // address).
  auto it = clients_.find(client);
  if (it != clients_.end() && it->second->cost.commits == 0) clients_.erase(it);
}

void HoldQueue::check_budget(wl_client* client) {
  ClientHolds& holds = this->client(client);
  if (holds.told) return;
  const HoldCost& cost = holds.cost;
  // The bounds, each named in its error (docs/frame-pipeline.md, "The hold
  // queue").
  struct Bound {
    size_t cost;
    size_t limit;
    size_t shown;  // the limit in the unit of `what`
    const char* what;
  };
  const std::array<Bound, 3> bounds = {{
      {cost.buffer_bytes, budget_.buffer_bytes, budget_.buffer_bytes / kMiB, "MiB of buffers"},
      {cost.state_bytes, budget_.state_bytes, budget_.state_bytes / kMiB,
       "MiB of compositor memory"},
      {cost.fds, budget_.fds, budget_.fds, "fds"},
  }};
  const auto past = std::find_if(bounds.begin(), bounds.end(),
                                 [](const Bound& bound) { return bound.cost > bound.limit; });
  if (past == bounds.end()) return;
  wl_client_post_implementation_error(
      client,
      "queued commits hold more than %zu %s (the hold queue's bound per client; %zu commits "
      "queued)",
      past->shown, past->what, cost.commits);
  holds.told = true;
  pid_t pid = 0;
  wl_client_get_credentials(client, &pid, nullptr, nullptr);
  LOG_ERROR(
      "hold queue: client pid %d went past its bound (%zu commits queued, %zu MiB of "
      "buffers, %zu fds); disconnecting it",
      static_cast<int>(pid), cost.commits, cost.buffer_bytes / kMiB, cost.fds);
}

}  // namespace baton
