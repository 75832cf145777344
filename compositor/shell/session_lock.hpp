// ext-session-lock-v1 (swaylock): while a lock is held, an opaque cover
// hides every output, only lock surfaces get input, and bindings are off.
// A locker that dies without unlocking leaves the session locked.
#pragma once

#include <memory>
#include <vector>

#include "util/listener.hpp"
#include "util/signal.hpp"
#include "util/wlr.hpp"

namespace baton {

class LayerShell;
class Outputs;
class Windows;
struct SceneLayers;

class SessionLock {
 public:
  SessionLock(wl_display* display, wlr_seat* seat, Outputs& outputs, const SceneLayers& layers,
              Windows& windows, LayerShell& layer_shell);
  ~SessionLock();
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

  [[nodiscard]] bool locked() const { return locked_; }
  /// Where keyboard focus goes while locked: a lock surface, or null.
  [[nodiscard]] wlr_surface* focus_surface() const;
  /// Outputs changed: covers and lock surfaces follow.
  void arrange();

  /// Keyboard focus should go to this surface now (null: nobody): a lock
  /// surface while locked. The seat gives it.
  Signal<wlr_surface*> keyboard_wanted;

 private:
  struct Surface {
    wlr_session_lock_surface_v1* lock_surface;
    wlr_scene_tree* tree;
    Listener<void> map;
    Listener<void> destroy;
  };
  void lock(wlr_session_lock_v1* lock);
  void unlock();
  void add_surface(wlr_session_lock_surface_v1* surface);

  wlr_seat* seat_;
  Outputs& outputs_;
  const SceneLayers& layers_;
  Windows& windows_;
  LayerShell& layer_shell_;
  bool locked_ = false;
  wlr_session_lock_v1* active_ = nullptr;
  std::vector<wlr_scene_rect*> covers_;
  std::vector<std::unique_ptr<Surface>> surfaces_;
  Listener<wlr_session_lock_v1> new_lock_;
  Listener<wlr_session_lock_surface_v1> new_surface_;
  Listener<void> unlock_;
  Listener<void> lock_destroy_;
  Connection layout_changed_;
};

}  // namespace baton
