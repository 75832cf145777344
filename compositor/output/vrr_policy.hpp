// Whether an output's variable refresh (VRR, adaptive sync) should be on
// now, from its `adaptive_sync` mode: "off" never, "on" always, "game" while
// a fullscreen surface plays a game. A game is a fullscreen surface that
// says content-type "game", or that presents faster than the slowest
// refresh the output allows (below that VRR gains nothing: every frame
// would be repeated anyway). Video and desktop content keep a fixed rate.
//
// "game" has hysteresis: it turns on once the game state has held for
// kOnAfterNs and off once it has been gone for kOffAfterNs, so a game that
// dips for a moment (a loading screen) does not flip the panel's mode back
// and forth (some panels flicker or blank on each change).
#pragma once

#include <cstdint>

#include "compositor/config/options.hpp"

namespace baton {

class VrrPolicy {
 public:
  static constexpr int64_t kOnAfterNs = 500'000'000;
  static constexpr int64_t kOffAfterNs = 1'000'000'000;

  void set_mode(AdaptiveSyncMode mode);
  [[nodiscard]] AdaptiveSyncMode mode() const { return mode_; }
  /// Called every frame: whether a game is on the output now; returns
  /// whether VRR is wanted.
  bool wanted(bool game_now, int64_t now_ns);

 private:
  AdaptiveSyncMode mode_ = AdaptiveSyncMode::off;
  bool on_ = false;       // "game": the decided state
  bool seen_ = false;     // "game": the last frame's game state
  int64_t since_ns_ = 0;  // when seen_ last changed
};

}  // namespace baton
