#include "compositor/output/vrr_policy.hpp"

namespace baton {

void VrrPolicy::set_mode(AdaptiveSyncMode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  on_ = false;
  seen_ = false;
  since_ns_ = 0;
}

bool VrrPolicy::wanted(bool game_now, int64_t now_ns) {
  switch (mode_) {
    case AdaptiveSyncMode::off:
      return false;
    case AdaptiveSyncMode::on:
      return true;
    case AdaptiveSyncMode::game:
      break;
  }
  if (game_now != seen_ || since_ns_ == 0) {
    seen_ = game_now;
    since_ns_ = now_ns;
  }
  const int64_t held = now_ns - since_ns_;
  if (seen_ && !on_ && held >= kOnAfterNs) on_ = true;
  if (!seen_ && on_ && held >= kOffAfterNs) on_ = false;
  return on_;
}

}  // namespace baton
