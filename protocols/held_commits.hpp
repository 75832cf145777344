// Commits held by the timing protocols (fifo-v1, commit-timing-v1), counted
// per client: one HeldCommits is shared by both globals, so a client may
// have kMaxPerClient commits held by the two together. A commit held by both
// counts once (wlroots counts the locks on it; this counts commits).
//
// A HeldCommit is one hold: it locks the commit being made
// (wlr_surface_lock_pending) and counts it; let_through() lets it apply. Its
// destructor only uncounts: a hold destroyed without let_through() belongs to a
// surface being destroyed, whose cached commits die with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

struct wl_client;
struct wlr_surface;

namespace baton {

class HeldCommits {
 public:
  HeldCommits() = default;
  HeldCommits(const HeldCommits&) = delete;
  HeldCommits& operator=(const HeldCommits&) = delete;

  /// Commits one client may have held by fifo and commit-timing at once,
  /// over all its surfaces. One more is a protocol error.
  static constexpr size_t kMaxPerClient = 64;

  /// Commits `client` has held now.
  [[nodiscard]] size_t held(wl_client* client) const;

 private:
  friend class HeldCommit;
  using Key = std::pair<wlr_surface*, uint32_t>;  // a commit: its surface and seq
  /// Counts one more hold of `key`; false when that made the client hold
  /// more than kMaxPerClient commits.
  bool add(wl_client* client, Key key);
  void remove(wl_client* client, Key key);

  // Per client: how many holds each of its held commits has.
  std::map<wl_client*, std::map<Key, int>> clients_;
};

class HeldCommit {
 public:
  /// Holds the commit `surface` is making (call it from client_commit). Over
  /// the client's bound it posts an implementation error: the commit stays
  /// held, and the client is on its way out.
  HeldCommit(HeldCommits& counter, wlr_surface* surface);
  ~HeldCommit();
  HeldCommit(const HeldCommit&) = delete;
  HeldCommit& operator=(const HeldCommit&) = delete;

  [[nodiscard]] uint32_t seq() const { return seq_; }
  /// Unlocks the commit: it and the commits queued behind it may apply right
  /// now, inside this call (wlr_surface_unlock_cached). At most once.
  void let_through();

 private:
  HeldCommits& counter_;
  wlr_surface* surface_;
  wl_client* client_;
  uint32_t seq_;
  bool counted_ = true;
};

}  // namespace baton
