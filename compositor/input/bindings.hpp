// Key bindings from the configuration, and the actions they run.
#pragma once

#include <cstdint>

struct wlr_keyboard;

namespace baton {

struct Action;
struct SeatContext;

/// Runs the binding for `keycode` pressed on `keyboard` with its current
/// modifiers; returns true when one matched (the key is then not sent on).
bool handle_key_binding(const SeatContext& seat, wlr_keyboard* keyboard, uint32_t keycode);
/// Does what `action` says to the focused window, workspaces or server.
void run_action(const SeatContext& seat, const Action& action);

}  // namespace baton
