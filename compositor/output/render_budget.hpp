// How early before vblank an output starts rendering: a prediction of how
// long a frame takes from render start until KMS can flip it (CPU time to
// build and submit, plus GPU time), and a safety margin on top.
//
// The prediction rises quickly toward a slower frame (one slow frame is
// likely to be followed by another) and decays slowly after faster ones. The
// margin grows at once when a frame misses the vblank it was planned for and
// shrinks slowly while frames make theirs. Pure arithmetic: no clock, no
// wlroots (tests/unit/test_render_budget.cpp drives it).
#pragma once

#include <cstdint>

namespace baton {

class RenderBudget {
 public:
  static constexpr int64_t kMinMarginNs = 1'000'000;        // 1 ms
  static constexpr int64_t kStartMarginNs = 2'000'000;      // before any miss
  static constexpr int64_t kMarginStepNs = 1'000'000;       // added per miss, at least
  static constexpr int64_t kMarginRecoveryNs = 10'000;      // taken off per frame made
  static constexpr int64_t kStartPredictionNs = 4'000'000;  // before the first sample

  explicit RenderBudget(int64_t refresh_ns = 16'666'667) : refresh_ns_(refresh_ns) {}

  void set_refresh(int64_t refresh_ns) {
    if (refresh_ns > 0) refresh_ns_ = refresh_ns;
  }
  [[nodiscard]] int64_t refresh_ns() const { return refresh_ns_; }

  /// One frame took `ns` from render start until it could be flipped.
  void sample(int64_t ns);
  /// The frame planned for a vblank reached the screen at it.
  void made_vblank();
  /// The frame planned for a vblank reached the screen later.
  void missed_vblank();

  [[nodiscard]] int64_t prediction_ns() const { return prediction_ns_; }
  [[nodiscard]] int64_t margin_ns() const { return margin_ns_; }
  [[nodiscard]] uint64_t samples() const { return samples_; }
  /// How long before vblank the render starts: prediction + margin, never
  /// more than a refresh (which is rendering right after the previous flip).
  [[nodiscard]] int64_t lead_ns() const;

 private:
  int64_t refresh_ns_;
  int64_t prediction_ns_ = kStartPredictionNs;
  int64_t margin_ns_ = kStartMarginNs;
  uint64_t samples_ = 0;
};

/// The first vblank after `t_ns`, on a vblank grid through `last_vblank_ns`
/// with period `refresh_ns` (all CLOCK_MONOTONIC).
[[nodiscard]] int64_t next_vblank_after(int64_t last_vblank_ns, int64_t refresh_ns, int64_t t_ns);
/// The first vblank at or after `t_ns` (a target exactly on a vblank is that vblank).
[[nodiscard]] int64_t first_vblank_not_before(int64_t last_vblank_ns, int64_t refresh_ns,
                                              int64_t t_ns);

}  // namespace baton
