#include "tests/desktop/desktop_clients.hpp"

#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xkbcommon/xkbcommon.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "tests/support/process.hpp"
#include "util/wlr.hpp"

namespace baton::test {

Options with_config(const std::string& name, const std::string& text, int outputs) {
  std::string path = scratch_dir(name) + "/config";
  std::ofstream(path) << text;
  Options options = headless_options(640, 480, outputs);
  options.config_path = path;
  return options;
}

VirtualKeyboard::VirtualKeyboard(Harness& h, Client& c) : h_(h) {
  Globals globals(h, c.display());
  auto* manager = static_cast<zwp_virtual_keyboard_manager_v1*>(
      globals.bind(&zwp_virtual_keyboard_manager_v1_interface, 1));
  if (manager == nullptr || c.seat == nullptr)
    throw std::runtime_error("no virtual keyboard manager");
  keyboard_ = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(manager, c.seat);
  zwp_virtual_keyboard_manager_v1_destroy(manager);

  // The keymap the virtual keyboard speaks: xkbcommon's default (us).
  xkb_context* context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
  xkb_keymap* keymap = xkb_keymap_new_from_names(context, nullptr, XKB_KEYMAP_COMPILE_NO_FLAGS);
  char* text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
  size_t size = std::strlen(text) + 1;
  int fd = memfd_create("baton-test-keymap", MFD_CLOEXEC);
  if (fd < 0 || write(fd, text, size) != static_cast<ssize_t>(size))
    throw std::runtime_error("keymap fd");
  shift_ = 1u << xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_SHIFT);
  ctrl_ = 1u << xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_CTRL);
  alt_ = 1u << xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_ALT);
  super_ = 1u << xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_LOGO);
  zwp_virtual_keyboard_v1_keymap(keyboard_, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd,
                                 static_cast<uint32_t>(size));
  close(fd);
  free(text);
  xkb_keymap_unref(keymap);
  xkb_context_unref(context);
  h.sync();
}

VirtualKeyboard::~VirtualKeyboard() {
  if (keyboard_ != nullptr) zwp_virtual_keyboard_v1_destroy(keyboard_);
}

void VirtualKeyboard::press(uint32_t key, bool down) {
  uint32_t mask = 0;
  switch (key) {
    case KEY_LEFTSHIFT:
    case KEY_RIGHTSHIFT:
      mask = shift_;
      break;
    case KEY_LEFTCTRL:
    case KEY_RIGHTCTRL:
      mask = ctrl_;
      break;
    case KEY_LEFTALT:
      mask = alt_;
      break;
    case KEY_LEFTMETA:
    case KEY_RIGHTMETA:
      mask = super_;
      break;
    default:
      break;
  }
  zwp_virtual_keyboard_v1_key(
      keyboard_, ++time_, key,
      down ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED);
  // A virtual keyboard states its modifiers itself.
  if (mask != 0) {
    depressed_ = down ? (depressed_ | mask) : (depressed_ & ~mask);
    zwp_virtual_keyboard_v1_modifiers(keyboard_, depressed_, 0, 0, 0);
  }
  h_.sync();
}

void VirtualKeyboard::chord(std::initializer_list<uint32_t> keys) {
  for (uint32_t key : keys) press(key, true);
  for (auto it = std::rbegin(keys); it != std::rend(keys); ++it) press(*it, false);
}

VirtualPointer::VirtualPointer(Harness& h, Client& c) : h_(h) {
  Globals globals(h, c.display());
  auto* manager = static_cast<zwlr_virtual_pointer_manager_v1*>(
      globals.bind(&zwlr_virtual_pointer_manager_v1_interface, 1));
  if (manager == nullptr) throw std::runtime_error("no virtual pointer manager");
  pointer_ = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, c.seat);
  zwlr_virtual_pointer_manager_v1_destroy(manager);
  h.sync();
}

VirtualPointer::~VirtualPointer() {
  if (pointer_ != nullptr) zwlr_virtual_pointer_v1_destroy(pointer_);
}

void VirtualPointer::move_to(int x, int y, int width, int height) {
  zwlr_virtual_pointer_v1_motion_absolute(pointer_, ++time_, static_cast<uint32_t>(x),
                                          static_cast<uint32_t>(y), static_cast<uint32_t>(width),
                                          static_cast<uint32_t>(height));
  zwlr_virtual_pointer_v1_frame(pointer_);
  h_.sync();
}

void VirtualPointer::button(uint32_t button, bool down) {
  zwlr_virtual_pointer_v1_button(
      pointer_, ++time_, button,
      down ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
  zwlr_virtual_pointer_v1_frame(pointer_);
  h_.sync();
}

void VirtualPointer::scroll(int32_t steps) {
  zwlr_virtual_pointer_v1_axis_source(pointer_, WL_POINTER_AXIS_SOURCE_WHEEL);
  zwlr_virtual_pointer_v1_axis_discrete(pointer_, ++time_, WL_POINTER_AXIS_VERTICAL_SCROLL,
                                        wl_fixed_from_int(15), steps);
  zwlr_virtual_pointer_v1_frame(pointer_);
  h_.sync();
}

struct PanelListener {
  static void configure(void* data, zwlr_layer_surface_v1* surface, uint32_t serial, uint32_t width,
                        uint32_t height) {
    auto* panel = static_cast<Panel*>(data);
    ++panel->configures;
    zwlr_layer_surface_v1_ack_configure(surface, serial);
    panel->width = static_cast<int>(width);
    panel->height = static_cast<int>(height);
    panel->buffer_ =
        std::make_unique<ShmBuffer>(panel->client_.shm, panel->width, panel->height, panel->argb_);
    wl_surface_attach(panel->surface_, panel->buffer_->get(), 0, 0);
    wl_surface_damage_buffer(panel->surface_, 0, 0, panel->width, panel->height);
    wl_surface_commit(panel->surface_);
  }
  static void closed(void* data, zwlr_layer_surface_v1*) {
    static_cast<Panel*>(data)->closed = true;
  }
};

Panel::Panel(Client& c, uint32_t layer, uint32_t anchor, int size, int exclusive_zone,
             uint32_t argb, uint32_t keyboard_interactivity)
    : client_(c), globals_(c.harness(), c.display()), argb_(argb) {
  auto* shell = static_cast<zwlr_layer_shell_v1*>(globals_.bind(&zwlr_layer_shell_v1_interface, 4));
  if (shell == nullptr) throw std::runtime_error("no layer shell");
  surface_ = wl_compositor_create_surface(c.compositor);
  layer_surface_ = zwlr_layer_shell_v1_get_layer_surface(shell, surface_, nullptr, layer, "panel");
  static const zwlr_layer_surface_v1_listener listener = {PanelListener::configure,
                                                          PanelListener::closed};
  zwlr_layer_surface_v1_add_listener(layer_surface_, &listener, this);
  bool horizontal =
      (anchor & (ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM)) != 0 &&
      (anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT) && (anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT);
  bool vertical =
      (anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP) && (anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM);
  uint32_t s = static_cast<uint32_t>(size);
  if (horizontal && vertical)
    zwlr_layer_surface_v1_set_size(layer_surface_, 0, 0);
  else if (horizontal)
    zwlr_layer_surface_v1_set_size(layer_surface_, 0, s);
  else if (vertical)
    zwlr_layer_surface_v1_set_size(layer_surface_, s, 0);
  else
    zwlr_layer_surface_v1_set_size(layer_surface_, s, s);
  zwlr_layer_surface_v1_set_anchor(layer_surface_, anchor);
  zwlr_layer_surface_v1_set_exclusive_zone(layer_surface_, exclusive_zone);
  zwlr_layer_surface_v1_set_keyboard_interactivity(layer_surface_, keyboard_interactivity);
  wl_surface_commit(surface_);
  zwlr_layer_shell_v1_destroy(shell);
}

void Panel::adopt_popup(Window& popup) {
  zwlr_layer_surface_v1_get_popup(layer_surface_, popup.popup());
}

Panel::~Panel() {
  zwlr_layer_surface_v1_destroy(layer_surface_);
  wl_surface_destroy(surface_);
}

}  // namespace baton::test
