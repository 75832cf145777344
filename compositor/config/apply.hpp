// Applies the configuration to live objects: outputs, input devices.
#pragma once

#include <optional>
#include <string>

#include "util/result.hpp"

struct wlr_output;
struct wlr_output_layout;
struct wlr_input_device;

namespace baton {

struct Config;

/// Mode, refresh, scale, transform, adaptive sync and position from the
/// [[output]] entries matching this output. An error when the output refused
/// the state; it then keeps what it had (the position still applies).
[[nodiscard]] Status apply_output_config(const Config& config, wlr_output_layout* layout,
                                         wlr_output* output);
/// xkb keymap and repeat for keyboards; accel, natural scroll and tap for
/// libinput pointers. Virtual keyboards keep the keymap their client sent.
void apply_input_config(const Config& config, wlr_input_device* device);
/// The output a touchscreen or tablet is mapped to by the [[input]] entries
/// matching it (the last that names one), if any.
[[nodiscard]] std::optional<std::string> mapped_output(const Config& config,
                                                       wlr_input_device* device);

}  // namespace baton
