#include "compositor/output/frame_cadence.hpp"

#include "util/wlr.hpp"

namespace baton {

namespace {
constexpr int64_t kWindowNs = 1'000'000'000;
constexpr int64_t kMinimumSpanNs = 250'000'000;
}  // namespace

void FrameCadence::sample(wlr_surface* fullscreen, int64_t now_ns) {
  if (fullscreen != surface_) {
    surface_ = fullscreen;
    samples_.clear();
    rate_ = 0;
  }
  if (surface_ == nullptr) {
    game_ = false;
    return;
  }
  samples_.push_back({now_ns, surface_->current.seq});
  while (samples_.size() > 2 && now_ns - samples_.front().time_ns > kWindowNs) samples_.pop_front();
  int64_t span = now_ns - samples_.front().time_ns;
  if (span < kMinimumSpanNs) return;  // too little history to judge
  rate_ = static_cast<double>(samples_.back().seq - samples_.front().seq) * 1e9 /
          static_cast<double>(span);
  // Hysteresis: a game dipping briefly under the threshold keeps its cadence.
  if (!game_ && rate_ > game_fps_) game_ = true;
  if (game_ && rate_ < game_fps_ * 0.75) game_ = false;
}

bool FrameCadence::fixed() const {
  switch (mode_) {
    case CadenceMode::damage:
      return false;
    case CadenceMode::fixed:
      return true;
    case CadenceMode::automatic:
      return game_;
  }
  return false;
}

}  // namespace baton
