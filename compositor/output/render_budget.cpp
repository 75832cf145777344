#include "compositor/output/render_budget.hpp"

#include <algorithm>

namespace baton {

void RenderBudget::sample(int64_t ns) {
  if (ns < 0) return;
  if (samples_++ == 0) {
    prediction_ns_ = ns;
    return;
  }
  // Rise 90 % of the way toward a slower frame, fall 5 % toward a faster one.
  const int64_t delta = ns - prediction_ns_;
  prediction_ns_ += delta > 0 ? delta * 9 / 10 : delta / 20;
}

void RenderBudget::made_vblank() {
  margin_ns_ = std::max(kMinMarginNs, margin_ns_ - kMarginRecoveryNs);
}

void RenderBudget::missed_vblank() {
  margin_ns_ = std::min(refresh_ns_ / 2, margin_ns_ + std::max(kMarginStepNs, margin_ns_ / 2));
}

int64_t RenderBudget::lead_ns() const { return std::min(refresh_ns_, prediction_ns_ + margin_ns_); }

int64_t next_vblank_after(int64_t last_vblank_ns, int64_t refresh_ns, int64_t t_ns) {
  if (refresh_ns <= 0) return t_ns;
  if (t_ns < last_vblank_ns) return last_vblank_ns;
  const int64_t periods = (t_ns - last_vblank_ns) / refresh_ns + 1;
  return last_vblank_ns + periods * refresh_ns;
}

int64_t first_vblank_not_before(int64_t last_vblank_ns, int64_t refresh_ns, int64_t t_ns) {
  if (refresh_ns <= 0) return t_ns;
  if (t_ns <= last_vblank_ns) return last_vblank_ns;
  const int64_t periods = (t_ns - last_vblank_ns + refresh_ns - 1) / refresh_ns;
  return last_vblank_ns + periods * refresh_ns;
}

}  // namespace baton
