#include "compositor/input/bindings.hpp"

#include "compositor/config/config.hpp"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/shell/desktop_protocols.hpp"
#include "compositor/shell/session_lock.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

bool handle_key_binding(const SeatContext& seat, wlr_keyboard* keyboard, uint32_t keycode) {
  if (keyboard->xkb_state == nullptr || seat.protocols.shortcuts_inhibited()) return false;
  // A locked session runs no bindings: the lock screen gets every key.
  if (seat.session_lock.locked()) return false;
  // Caps Lock and Num Lock do not change which binding a key means.
  uint32_t modifiers =
      wlr_keyboard_get_modifiers(keyboard) & ~(WLR_MODIFIER_CAPS | WLR_MODIFIER_MOD2);
  // Match on the key's unshifted symbol, so "Super+Shift+Q" works whatever
  // Shift turns q into.
  xkb_keymap* keymap = xkb_state_get_keymap(keyboard->xkb_state);
  xkb_layout_index_t layout = xkb_state_key_get_layout(keyboard->xkb_state, keycode + 8);
  const xkb_keysym_t* syms = nullptr;
  int count = xkb_keymap_key_get_syms_by_level(keymap, keycode + 8, layout, 0, &syms);
  for (int i = 0; i < count; ++i) {
    xkb_keysym_t sym = xkb_keysym_to_lower(syms[i]);
    for (const KeyBinding& binding : seat.config.bindings) {
      if (binding.keysym != sym || binding.modifiers != modifiers) continue;
      LOG_DEBUG("binding %s", binding.text.c_str());
      // Copy: reload replaces the binding list under us.
      Action action = binding.action;
      run_action(seat, action);
      return true;
    }
  }
  return false;
}

void run_action(const SeatContext& seat, const Action& action) {
  View* view = seat.windows.focused();
  switch (action.kind) {
    case ActionKind::exec:
      seat.actions.spawn(action.command);
      break;
    case ActionKind::close:
      if (view != nullptr) view->close();
      break;
    case ActionKind::focus_next:
    case ActionKind::focus_prev:
      seat.windows.cycle_focus(action.kind == ActionKind::focus_next);
      break;
    case ActionKind::workspace:
      seat.windows.workspaces().switch_to(action.number);
      break;
    case ActionKind::move_to_workspace:
      if (view != nullptr) seat.windows.workspaces().move_view(*view, action.number);
      break;
    case ActionKind::fullscreen:
      if (view != nullptr) view->set_fullscreen(!view->fullscreen());
      break;
    case ActionKind::maximize:
      if (view != nullptr) view->set_maximized(!view->maximized());
      break;
    case ActionKind::move:
      if (view != nullptr && !view->fullscreen()) {
        if (view->maximized()) view->set_maximized(false);
        Rect f = view->frame();
        view->move_frame_to(f.x + action.dx, f.y + action.dy);
        seat.windows.workspaces().place(*view);
      }
      break;
    case ActionKind::resize:
      if (view != nullptr && !view->fullscreen()) {
        if (view->maximized()) view->set_maximized(false);
        Rect f = view->frame();
        view->request_size(std::max(32, f.width + action.dx), std::max(32, f.height + action.dy));
      }
      break;
    case ActionKind::exit:
      LOG_INFO("exit binding: shutting down");
      seat.actions.terminate(0);
      break;
    case ActionKind::reload:
      seat.actions.reload_config();
      break;
  }
}

}  // namespace baton
