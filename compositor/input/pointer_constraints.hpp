// Pointer constraints and relative pointer motion, for games: a locked
// pointer stays put (and its cursor is hidden) while the client still gets
// raw, unaccelerated relative motion; a confined pointer stays inside the
// client's region. A constraint is active while its surface has pointer focus
// and its window the keyboard: a game that loses the keyboard (another window
// opened, the user switched away) lets the pointer go, as sway, KWin and Mir
// do, so that the pointer can reach the window that has the keyboard.
#pragma once

#include <memory>
#include <vector>

#include "util/listener.hpp"

struct wl_display;
struct wlr_pointer_constraints_v1;
struct wlr_pointer_constraint_v1;
struct wlr_relative_pointer_manager_v1;
struct wlr_surface;
struct wlr_seat_keyboard_focus_change_event;

namespace baton {

class Seat;

class PointerConstraints {
 public:
  PointerConstraints(Seat& seat, wl_display* display);
  ~PointerConstraints();
  PointerConstraints(const PointerConstraints&) = delete;
  PointerConstraints& operator=(const PointerConstraints&) = delete;

  /// Sends relative motion (dx, dy as accelerated, plus the raw deltas) to
  /// the client under the pointer, then restricts (dx, dy) to what the active
  /// constraint allows. (sx, sy) is the pointer in that surface's coordinates.
  void filter_motion(uint32_t time_msec, double sx, double sy, double& dx, double& dy,
                     double raw_dx, double raw_dy);
  /// Activates the constraint of the surface that now has pointer focus.
  void pointer_focus_changed(wlr_surface* surface, double sx, double sy);
  [[nodiscard]] bool locked() const;
  [[nodiscard]] wlr_pointer_constraint_v1* active() const { return active_; }

 private:
  void activate(wlr_pointer_constraint_v1* constraint);
  void deactivate();
  void forget(wlr_pointer_constraint_v1* constraint);
  /// Whether `constraint` may be active now: its surface has the pointer,
  /// and the keyboard is on the same window (the same root surface).
  [[nodiscard]] bool may_apply(const wlr_pointer_constraint_v1* constraint) const;
  /// Activates what may apply, deactivates what no longer may.
  void reconsider();

  struct Tracked {
    wlr_pointer_constraint_v1* constraint;
    Listener<void> destroy;
  };

  Seat& seat_;
  wlr_pointer_constraints_v1* constraints_;
  wlr_relative_pointer_manager_v1* relative_;
  wlr_pointer_constraint_v1* active_ = nullptr;
  wlr_surface* focus_ = nullptr;
  double focus_sx_ = 0, focus_sy_ = 0;
  std::vector<std::unique_ptr<Tracked>> tracked_;
  Listener<wlr_pointer_constraint_v1> new_constraint_;
  Listener<wlr_seat_keyboard_focus_change_event> keyboard_focus_;
};

}  // namespace baton
