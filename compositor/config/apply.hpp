// Applies the configuration to live objects: outputs, input devices.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "util/result.hpp"

struct wlr_output;
struct wlr_output_layout;
struct wlr_output_state;
struct wlr_input_device;

namespace baton {

struct Config;

/// Mode, refresh, scale, transform, adaptive sync and position from the
/// [[output]] entries matching this output. An error when the output refused
/// the state; it then keeps what it had (the position still applies).
[[nodiscard]] Status apply_output_config(const Config& config, wlr_output_layout* layout,
                                         wlr_output* output);
/// Adds what the [[output]] entries matching OUTPUT configure to STATE (a
/// mode size without a refresh keeps the size STATE or the output has), so
/// that a new output starts in its configured state with one modeset.
/// Returns the configured layout position, if any.
std::optional<std::pair<int, int>> add_configured_state(const Config& config, wlr_output* output,
                                                        wlr_output_state& state);
/// When STATE turns OUTPUT on without a mode and OUTPUT has none yet (a DRM
/// output that has never been lit: width 0), adds its preferred mode, else
/// its first: wlroots refuses to light an output without one.
void add_mode_if_none(wlr_output* output, wlr_output_state& state);
/// Commits STATE. Adaptive sync is a wish: when it was what the output
/// refused, the rest is committed without it.
[[nodiscard]] bool commit_output_state(wlr_output* output, wlr_output_state& state);
/// xkb keymap and repeat for keyboards; accel, natural scroll and tap for
/// libinput pointers. Virtual keyboards keep the keymap their client sent.
void apply_input_config(const Config& config, wlr_input_device* device);
/// The output a touchscreen or tablet is mapped to by the [[input]] entries
/// matching it (the last that names one), if any.
[[nodiscard]] std::optional<std::string> mapped_output(const Config& config,
                                                       wlr_input_device* device);

}  // namespace baton
