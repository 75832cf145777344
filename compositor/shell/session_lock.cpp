#include "compositor/shell/session_lock.hpp"

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/output/scene_layers.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "util/log.hpp"

namespace baton {

SessionLock::SessionLock(wl_display* display, wlr_seat* seat, Outputs& outputs,
                         const SceneLayers& layers, Windows& windows, LayerShell& layer_shell)
    : seat_(seat),
      outputs_(outputs),
      layers_(layers),
      windows_(windows),
      layer_shell_(layer_shell) {
  wlr_session_lock_manager_v1* manager = wlr_session_lock_manager_v1_create(display);
  new_lock_.connect(&manager->events.new_lock, [this](wlr_session_lock_v1* l) { lock(l); });
  layout_changed_ = outputs.layout_changed.connect([this] { arrange(); });
}

SessionLock::~SessionLock() {
  new_surface_.disconnect();
  unlock_.disconnect();
  lock_destroy_.disconnect();
  surfaces_.clear();
}

void SessionLock::lock(wlr_session_lock_v1* lock) {
  if (active_ != nullptr) {
    // One locker at a time; the protocol answers a second with "finished".
    wlr_session_lock_v1_destroy(lock);
    return;
  }
  LOG_INFO("session locked");
  active_ = lock;
  locked_ = true;
  new_surface_.connect(&lock->events.new_surface,
                       [this](wlr_session_lock_surface_v1* s) { add_surface(s); });
  unlock_.connect(&lock->events.unlock, [this](void*) { unlock(); });
  lock_destroy_.connect(&lock->events.destroy, [this](void*) {
    // Gone without unlocking (the locker crashed): stay locked.
    if (locked_)
      LOG_ERROR("the screen locker went away without unlocking; the session stays locked");
    active_ = nullptr;
    new_surface_.disconnect();
    unlock_.disconnect();
    lock_destroy_.disconnect();
  });
  arrange();
  keyboard_wanted.emit(nullptr);
  wlr_seat_pointer_clear_focus(seat_);
  // The covers are in the scene before the next frame: nothing unlocked is
  // shown from here on.
  wlr_session_lock_v1_send_locked(lock);
}

void SessionLock::unlock() {
  LOG_INFO("session unlocked");
  locked_ = false;
  active_ = nullptr;
  new_surface_.disconnect();
  unlock_.disconnect();
  lock_destroy_.disconnect();
  for (const auto& s : surfaces_) wlr_scene_node_destroy(&s->tree->node);
  surfaces_.clear();
  for (wlr_scene_rect* cover : covers_) wlr_scene_node_destroy(&cover->node);
  covers_.clear();
  View* view = windows_.focused();
  windows_.focus(view);
  if (view == nullptr) layer_shell_.update_keyboard_focus();
}

void SessionLock::arrange() {
  if (!locked_) return;
  for (wlr_scene_rect* cover : covers_) wlr_scene_node_destroy(&cover->node);
  covers_.clear();
  static const float kBlack[4] = {0, 0, 0, 1};
  for (Output* output : outputs_.all()) {
    wlr_box box{};
    wlr_output_layout_get_box(outputs_.layout(), output->wlr(), &box);
    wlr_scene_rect* cover = wlr_scene_rect_create(layers_.lock, box.width, box.height, kBlack);
    wlr_scene_node_set_position(&cover->node, box.x, box.y);
    wlr_scene_node_lower_to_bottom(&cover->node);
    covers_.push_back(cover);
  }
  for (const auto& s : surfaces_) {
    wlr_box box{};
    wlr_output_layout_get_box(outputs_.layout(), s->lock_surface->output, &box);
    wlr_scene_node_set_position(&s->tree->node, box.x, box.y);
    wlr_session_lock_surface_v1_configure(s->lock_surface, box.width, box.height);
  }
}

void SessionLock::add_surface(wlr_session_lock_surface_v1* lock_surface) {
  auto s = std::make_unique<Surface>();
  Surface* raw = s.get();
  s->lock_surface = lock_surface;
  // Our own tree around wlroots' surface tree: that one destroys itself with
  // the surface, ours is destroyed by us, whichever goes first.
  s->tree = wlr_scene_tree_create(layers_.lock);
  wlr_scene_subsurface_tree_create(s->tree, lock_surface->surface);
  s->map.connect(&lock_surface->surface->events.map, [this, raw](void*) {
    if (seat_->keyboard_state.focused_surface == nullptr ||
        wlr_session_lock_surface_v1_try_from_wlr_surface(seat_->keyboard_state.focused_surface) ==
            nullptr)
      keyboard_wanted.emit(raw->lock_surface->surface);
  });
  s->destroy.connect(&lock_surface->events.destroy, [this, raw](void*) {
    wlr_scene_node_destroy(&raw->tree->node);
    std::erase_if(surfaces_, [raw](const auto& p) { return p.get() == raw; });
    if (locked_) keyboard_wanted.emit(focus_surface());
  });
  surfaces_.push_back(std::move(s));
  arrange();
}

wlr_surface* SessionLock::focus_surface() const {
  for (const auto& s : surfaces_)
    if (s->lock_surface->surface->mapped) return s->lock_surface->surface;
  return nullptr;
}

}  // namespace baton
