#include "compositor/input/pointer_constraints.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "compositor/input/seat.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

extern "C" {
#include <wlr/types/wlr_pointer_constraints_v1.h>
#include <wlr/types/wlr_relative_pointer_v1.h>
}

namespace baton {
namespace {

// wl_fixed_t carries 24 bits of whole pixels. A larger delta (a jump across a
// layout whose outputs lie far apart) would wrap to the opposite sign.
double fixed_range(double delta) {
  constexpr double most = static_cast<double>(INT32_MAX) / 256.0;
  constexpr double least = static_cast<double>(INT32_MIN) / 256.0;
  if (!std::isfinite(delta)) return 0;
  return std::clamp(delta, least, most);
}

}  // namespace

PointerConstraints::PointerConstraints(Seat& seat, wl_display* display)
    : seat_(seat),
      constraints_(wlr_pointer_constraints_v1_create(display)),
      relative_(wlr_relative_pointer_manager_v1_create(display)) {
  new_constraint_.connect(
      &constraints_->events.new_constraint, [this](wlr_pointer_constraint_v1* c) {
        auto tracked = std::make_unique<Tracked>();
        tracked->constraint = c;
        tracked->destroy.connect(&c->events.destroy, [this, c](void*) { forget(c); });
        tracked_.push_back(std::move(tracked));
        // A constraint made for the surface under the pointer applies at once.
        if (c->seat == seat_.wlr() && may_apply(c)) activate(c);
      });
  keyboard_focus_.connect(&seat_.wlr()->keyboard_state.events.focus_change,
                          [this](wlr_seat_keyboard_focus_change_event*) { reconsider(); });
}

PointerConstraints::~PointerConstraints() { tracked_.clear(); }

bool PointerConstraints::locked() const {
  return active_ != nullptr && active_->type == WLR_POINTER_CONSTRAINT_V1_LOCKED;
}

void PointerConstraints::forget(wlr_pointer_constraint_v1* constraint) {
  if (active_ == constraint) deactivate();
  std::erase_if(tracked_, [constraint](const auto& t) { return t->constraint == constraint; });
}

void PointerConstraints::activate(wlr_pointer_constraint_v1* constraint) {
  if (active_ == constraint) return;
  deactivate();
  active_ = constraint;
  wlr_pointer_constraint_v1_send_activated(constraint);
  // A locked pointer has no visible cursor: the game draws its own view.
  if (constraint->type == WLR_POINTER_CONSTRAINT_V1_LOCKED) wlr_cursor_unset_image(seat_.cursor());
  LOG_DEBUG("pointer %s",
            constraint->type == WLR_POINTER_CONSTRAINT_V1_LOCKED ? "locked" : "confined");
}

void PointerConstraints::deactivate() {
  if (active_ == nullptr) return;
  wlr_pointer_constraint_v1* old = active_;
  active_ = nullptr;
  if (old->type == WLR_POINTER_CONSTRAINT_V1_LOCKED) {
    // Leave the cursor where the client said its own pointer is.
    if (old->current.cursor_hint.enabled && focus_ == old->surface) {
      double lx = seat_.cursor_x() - focus_sx_ + old->current.cursor_hint.x;
      double ly = seat_.cursor_y() - focus_sy_ + old->current.cursor_hint.y;
      wlr_cursor_warp(seat_.cursor(), nullptr, lx, ly);
    }
    seat_.restore_cursor_image();
  }
  wlr_pointer_constraint_v1_send_deactivated(old);
}

void PointerConstraints::pointer_focus_changed(wlr_surface* surface, double sx, double sy) {
  focus_ = surface;
  focus_sx_ = sx;
  focus_sy_ = sy;
  reconsider();
}

bool PointerConstraints::may_apply(const wlr_pointer_constraint_v1* constraint) const {
  wlr_surface* keyboard = seat_.wlr()->keyboard_state.focused_surface;
  return focus_ != nullptr && constraint->surface == focus_ && keyboard != nullptr &&
         wlr_surface_get_root_surface(keyboard) == wlr_surface_get_root_surface(focus_);
}

void PointerConstraints::reconsider() {
  if (active_ != nullptr && !may_apply(active_)) deactivate();
  if (focus_ == nullptr) return;
  wlr_pointer_constraint_v1* c =
      wlr_pointer_constraints_v1_constraint_for_surface(constraints_, focus_, seat_.wlr());
  if (c != nullptr && may_apply(c)) activate(c);
}

void PointerConstraints::filter_motion(uint32_t time_msec, double sx, double sy, double& dx,
                                       double& dy, double raw_dx, double raw_dy) {
  focus_sx_ = sx;
  focus_sy_ = sy;
  wlr_relative_pointer_manager_v1_send_relative_motion(
      relative_, seat_.wlr(), uint64_t{time_msec} * 1000, fixed_range(dx), fixed_range(dy),
      fixed_range(raw_dx), fixed_range(raw_dy));
  if (active_ == nullptr) return;
  if (active_->type == WLR_POINTER_CONSTRAINT_V1_LOCKED) {
    dx = 0;
    dy = 0;
    return;
  }
  // Confined: stay inside the rectangle of the region the pointer is in.
  pixman_box32_t box{};
  if (!pixman_region32_contains_point(&active_->region, static_cast<int>(sx), static_cast<int>(sy),
                                      &box))
    return;
  double tx = std::clamp(sx + dx, static_cast<double>(box.x1), static_cast<double>(box.x2) - 1.0);
  double ty = std::clamp(sy + dy, static_cast<double>(box.y1), static_cast<double>(box.y2) - 1.0);
  dx = tx - sx;
  dy = ty - sy;
}

}  // namespace baton
