#include "protocols/held_commits.hpp"

#include "util/wlr.hpp"

namespace baton {

size_t HeldCommits::held(wl_client* client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? 0 : it->second.size();
}

bool HeldCommits::add(wl_client* client, Key key) {
  std::map<Key, int>& commits = clients_[client];
  ++commits[key];
  return commits.size() <= kMaxPerClient;
}

void HeldCommits::remove(wl_client* client, Key key) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  auto commit = it->second.find(key);
  if (commit != it->second.end() && --commit->second <= 0) it->second.erase(commit);
  if (it->second.empty()) clients_.erase(it);
}

HeldCommit::HeldCommit(HeldCommits& counter, wlr_surface* surface)
    : counter_(counter),
      surface_(surface),
      client_(wl_resource_get_client(surface->resource)),
      seq_(wlr_surface_lock_pending(surface)) {
  if (!counter_.add(client_, {surface_, seq_}))
    wl_client_post_implementation_error(
        client_, "more than %zu commits held at once by wp_fifo_v1 and wp_commit_timer_v1",
        HeldCommits::kMaxPerClient);
}

HeldCommit::~HeldCommit() {
  if (counted_) counter_.remove(client_, {surface_, seq_});
}

void HeldCommit::let_through() {
  if (!counted_) return;
  counted_ = false;
  counter_.remove(client_, {surface_, seq_});
  wlr_surface_unlock_cached(surface_, seq_);  // last: may apply commits now
}

}  // namespace baton
