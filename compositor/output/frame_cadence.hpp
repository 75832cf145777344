// Decides an output's frame cadence. A desktop renders on damage; a game
// gets a fixed cadence: the output commits every refresh cycle, so frame
// callbacks and presentation feedback arrive at a steady rate whether or not
// the scene changed. In automatic mode the fixed cadence is chosen while a
// fullscreen surface commits faster than a threshold (30 per second by
// default), measured over the last second.
#pragma once

#include <cstdint>
#include <deque>

#include "compositor/config/options.hpp"

struct wlr_surface;

namespace baton {

class FrameCadence {
 public:
  FrameCadence(CadenceMode mode, int game_fps) : mode_(mode), game_fps_(game_fps) {}
  void set_policy(CadenceMode mode, int game_fps) {
    mode_ = mode;
    game_fps_ = game_fps;
  }
  [[nodiscard]] CadenceMode mode() const { return mode_; }

  /// Called every output frame with the fullscreen surface on it (or null).
  void sample(wlr_surface* fullscreen, int64_t now_ns);
  /// True when the output should commit every refresh cycle.
  [[nodiscard]] bool fixed() const;
  /// Commits per second of the fullscreen surface over the last second.
  [[nodiscard]] double commit_rate() const { return rate_; }

 private:
  struct Sample {
    int64_t time_ns;
    uint32_t seq;
  };
  CadenceMode mode_;
  int game_fps_;
  wlr_surface* surface_ = nullptr;
  std::deque<Sample> samples_;
  double rate_ = 0;
  bool game_ = false;
};

}  // namespace baton
