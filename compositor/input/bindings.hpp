// Key bindings from the configuration, and the actions they run.
#pragma once

#include <cstdint>

struct wlr_keyboard;

namespace baton {

class Server;
struct Action;

/// Runs the binding for `keycode` pressed on `keyboard` with its current
/// modifiers; returns true when one matched (the key is then not sent on).
bool handle_key_binding(Server& server, wlr_keyboard* keyboard, uint32_t keycode);
/// Does what `action` says to the focused window, workspaces or server.
void run_action(Server& server, const Action& action);

}  // namespace baton
