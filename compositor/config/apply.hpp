// Applies the configuration to live objects: outputs, input devices.
#pragma once

struct wlr_output;
struct wlr_input_device;

namespace baton {

class Server;

/// Mode, refresh, scale, transform, adaptive sync and position from the
/// [[output]] entries matching this output. Returns false (logged) when the
/// output refused the state; it then keeps what it had.
bool apply_output_config(Server& server, wlr_output* output);
/// xkb keymap and repeat for keyboards; accel, natural scroll and tap for
/// libinput pointers. Virtual keyboards keep the keymap their client sent.
void apply_input_config(Server& server, wlr_input_device* device);

}  // namespace baton
