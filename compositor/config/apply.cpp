#include "compositor/config/apply.hpp"

#include <libinput.h>

#include <tuple>

#include "compositor/config/config.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

const char* device_type(wlr_input_device* device) {
  if (device->type == WLR_INPUT_DEVICE_KEYBOARD) return "keyboard";
  if (device->type == WLR_INPUT_DEVICE_TOUCH) return "touch";
  if (device->type == WLR_INPUT_DEVICE_TABLET || device->type == WLR_INPUT_DEVICE_TABLET_PAD)
    return "tablet";
  if (wlr_input_device_is_libinput(device)) {
    libinput_device* handle = wlr_libinput_get_device_handle(device);
    if (libinput_device_config_tap_get_finger_count(handle) > 0) return "touchpad";
  }
  return "pointer";
}

void apply_keyboard(wlr_keyboard* keyboard, const std::vector<const InputConfig*>& configs) {
  xkb_rule_names names{};
  int rate = 25;
  int delay = 600;
  for (const InputConfig* c : configs) {
    if (c->xkb_rules) names.rules = c->xkb_rules->c_str();
    if (c->xkb_model) names.model = c->xkb_model->c_str();
    if (c->xkb_layout) names.layout = c->xkb_layout->c_str();
    if (c->xkb_variant) names.variant = c->xkb_variant->c_str();
    if (c->xkb_options) names.options = c->xkb_options->c_str();
    if (c->repeat_rate) rate = *c->repeat_rate;
    if (c->repeat_delay) delay = *c->repeat_delay;
  }
  // Unset names fall back to XKB_DEFAULT_* and then to xkbcommon's defaults.
  xkb_context* context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
  xkb_keymap* keymap = xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
  if (keymap == nullptr) {
    LOG_ERROR(
        "keyboard %s: the xkb layout '%s' (variant '%s', options '%s') does not compile; "
        "using the default",
        keyboard->base.name, names.layout ? names.layout : "", names.variant ? names.variant : "",
        names.options ? names.options : "");
    keymap = xkb_keymap_new_from_names(context, nullptr, XKB_KEYMAP_COMPILE_NO_FLAGS);
  }
  if (keymap != nullptr) {
    wlr_keyboard_set_keymap(keyboard, keymap);
    xkb_keymap_unref(keymap);
  }
  xkb_context_unref(context);
  wlr_keyboard_set_repeat_info(keyboard, rate, delay);
}

void apply_libinput(wlr_input_device* device, const std::vector<const InputConfig*>& configs) {
  libinput_device* handle = wlr_libinput_get_device_handle(device);
  for (const InputConfig* c : configs) {
    if (c->accel && libinput_device_config_accel_is_available(handle))
      libinput_device_config_accel_set_speed(handle, *c->accel);
    if (c->accel_profile && libinput_device_config_accel_is_available(handle))
      libinput_device_config_accel_set_profile(handle,
                                               *c->accel_profile == InputConfig::AccelProfile::flat
                                                   ? LIBINPUT_CONFIG_ACCEL_PROFILE_FLAT
                                                   : LIBINPUT_CONFIG_ACCEL_PROFILE_ADAPTIVE);
    if (c->natural_scroll && libinput_device_config_scroll_has_natural_scroll(handle))
      libinput_device_config_scroll_set_natural_scroll_enabled(handle, *c->natural_scroll);
    if (c->tap && libinput_device_config_tap_get_finger_count(handle) > 0)
      libinput_device_config_tap_set_enabled(
          handle, *c->tap ? LIBINPUT_CONFIG_TAP_ENABLED : LIBINPUT_CONFIG_TAP_DISABLED);
  }
}

/// A listed mode of the configured size and refresh when the output has one,
/// else a custom mode (headless, nested, or a monitor that accepts it).
void set_configured_mode(const wlr_output* output, std::optional<std::pair<int, int>> size,
                         std::optional<int> refresh, wlr_output_state& state) {
  // Only a refresh: the size the state is about to set, else the current one.
  int width = output->width;
  int height = output->height;
  if ((state.committed & WLR_OUTPUT_STATE_MODE) != 0) {
    width = state.mode != nullptr ? state.mode->width : state.custom_mode.width;
    height = state.mode != nullptr ? state.mode->height : state.custom_mode.height;
  }
  if (size) std::tie(width, height) = *size;
  wlr_output_mode* best = nullptr;
  wlr_output_mode* mode;
  wl_list_for_each(mode, &output->modes, link) {
    if (mode->width != width || mode->height != height) continue;
    if (refresh && std::abs(mode->refresh - *refresh) > 500) continue;
    if (best == nullptr || mode->refresh > best->refresh) best = mode;
  }
  if (best != nullptr)
    wlr_output_state_set_mode(&state, best);
  else
    wlr_output_state_set_custom_mode(&state, width, height, refresh ? *refresh : 0);
}

}  // namespace

std::optional<std::pair<int, int>> add_configured_state(const Config& config, wlr_output* output,
                                                        wlr_output_state& state) {
  std::optional<std::pair<int, int>> position;
  std::optional<std::pair<int, int>> size;
  std::optional<int> refresh;
  for (const OutputConfig* c : config.outputs_for(output->name)) {
    if (c->enabled) wlr_output_state_set_enabled(&state, *c->enabled);
    if (c->mode) size = c->mode;
    if (c->refresh_mhz) refresh = c->refresh_mhz;
    if (c->scale) wlr_output_state_set_scale(&state, static_cast<float>(*c->scale));
    if (c->transform)
      wlr_output_state_set_transform(&state, static_cast<wl_output_transform>(*c->transform));
    // "game" starts off: the output turns it on while a game plays.
    if (c->adaptive_sync)
      wlr_output_state_set_adaptive_sync_enabled(&state, *c->adaptive_sync == AdaptiveSyncMode::on);
    if (c->position) position = c->position;
  }
  if (size || refresh) set_configured_mode(output, size, refresh, state);
  // A disabled output takes no mode or adaptive sync: wlroots refuses both.
  if ((state.committed & WLR_OUTPUT_STATE_ENABLED) != 0 && !state.enabled)
    state.committed &= ~(WLR_OUTPUT_STATE_MODE | WLR_OUTPUT_STATE_ADAPTIVE_SYNC_ENABLED);
  add_mode_if_none(output, state);
  return position;
}

void add_mode_if_none(wlr_output* output, wlr_output_state& state) {
  const bool lighting = (state.committed & WLR_OUTPUT_STATE_ENABLED) != 0 && state.enabled;
  if (!lighting || (state.committed & WLR_OUTPUT_STATE_MODE) != 0) return;
  if (output->current_mode != nullptr || output->width != 0) return;
  wlr_output_mode* mode = wlr_output_preferred_mode(output);
  if (mode == nullptr && !wl_list_empty(&output->modes))
    mode = wl_container_of(output->modes.next, mode, link);
  if (mode != nullptr) wlr_output_state_set_mode(&state, mode);
}

bool commit_output_state(wlr_output* output, wlr_output_state& state) {
  if (wlr_output_commit_state(output, &state)) return true;
  if ((state.committed & WLR_OUTPUT_STATE_ADAPTIVE_SYNC_ENABLED) == 0) return false;
  state.committed &= ~WLR_OUTPUT_STATE_ADAPTIVE_SYNC_ENABLED;
  if (!wlr_output_commit_state(output, &state)) return false;
  LOG_INFO("output %s: %s; left off", output->name,
           output->adaptive_sync_supported ? "the kernel refused to switch variable refresh on"
                                           : "adaptive sync is not supported");
  return true;
}

Status apply_output_config(const Config& config, wlr_output_layout* layout, wlr_output* output) {
  if (config.outputs_for(output->name).empty()) return {};
  wlr_output_state state;
  wlr_output_state_init(&state);
  const std::optional<std::pair<int, int>> position = add_configured_state(config, output, state);
  const bool ok = commit_output_state(output, state);
  wlr_output_state_finish(&state);
  if (position) wlr_output_layout_add(layout, output, position->first, position->second);
  if (!ok)
    return failure(std::string("output ") + output->name,
                   "the configured state was refused; keeping the current one");
  return {};
}

std::optional<std::string> mapped_output(const Config& config, wlr_input_device* device) {
  std::optional<std::string> name;
  for (const InputConfig* c :
       config.inputs_for(device_type(device), device->name ? device->name : ""))
    if (c->map_to_output) name = c->map_to_output;
  return name;
}

void apply_input_config(const Config& config, wlr_input_device* device) {
  auto configs = config.inputs_for(device_type(device), device->name ? device->name : "");
  if (device->type == WLR_INPUT_DEVICE_KEYBOARD) {
    wlr_keyboard* keyboard = wlr_keyboard_from_input_device(device);
    if (wlr_input_device_get_virtual_keyboard(device) == nullptr) apply_keyboard(keyboard, configs);
    return;
  }
  if (device->type == WLR_INPUT_DEVICE_POINTER && wlr_input_device_is_libinput(device))
    apply_libinput(device, configs);
}

}  // namespace baton
