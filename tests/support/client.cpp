#include "tests/support/client.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "tests/support/harness.hpp"

namespace baton::test {

ShmBuffer::ShmBuffer(wl_shm* shm, int width, int height, uint32_t argb, uint32_t format) {
  size_ = static_cast<size_t>(width) * static_cast<size_t>(height) * 4;
  int fd = memfd_create("baton-test-shm", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(size_)) != 0) throw std::runtime_error("memfd");
  pixels_ = static_cast<uint32_t*>(mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  wl_shm_pool* pool = wl_shm_create_pool(shm, fd, static_cast<int32_t>(size_));
  buffer_ = wl_shm_pool_create_buffer(pool, 0, width, height, width * 4, format);
  wl_shm_pool_destroy(pool);
  close(fd);
  static const wl_buffer_listener listener = {
      [](void* data, wl_buffer*) { static_cast<ShmBuffer*>(data)->released_ = true; }};
  wl_buffer_add_listener(buffer_, &listener, this);
  fill(argb);
}

ShmBuffer::~ShmBuffer() {
  wl_buffer_destroy(buffer_);
  munmap(pixels_, size_);
}

void ShmBuffer::fill(uint32_t argb) {
  for (size_t i = 0; i < size_ / 4; ++i) pixels_[i] = argb;
}

struct WindowListeners {
  static void surface_configure(void* data, xdg_surface*, uint32_t serial) {
    auto* w = static_cast<Window*>(data);
    w->pending_.serial = serial;
    w->configures_.push_back(w->pending_);
  }
  static void toplevel_configure(void* data, xdg_toplevel*, int32_t width, int32_t height,
                                 wl_array* states) {
    auto* w = static_cast<Window*>(data);
    w->pending_.width = width;
    w->pending_.height = height;
    w->pending_.activated = false;
    auto* state = static_cast<uint32_t*>(states->data);
    for (size_t i = 0; i < states->size / sizeof(uint32_t); ++i)
      if (state[i] == XDG_TOPLEVEL_STATE_ACTIVATED) w->pending_.activated = true;
  }
  static void popup_configure(void* data, xdg_popup*, int32_t x, int32_t y, int32_t width,
                              int32_t height) {
    auto* w = static_cast<Window*>(data);
    w->popup_x = x;
    w->popup_y = y;
    w->popup_width = width;
    w->popup_height = height;
  }
  static void popup_done(void* data, xdg_popup*) { static_cast<Window*>(data)->popup_done = true; }
};

namespace {
const xdg_surface_listener kSurfaceListener = {WindowListeners::surface_configure};
const xdg_toplevel_listener kToplevelListener = {
    WindowListeners::toplevel_configure,
    [](void* data, xdg_toplevel*) { static_cast<Window*>(data)->closed = true; },
    [](void*, xdg_toplevel*, int32_t, int32_t) {},
    [](void*, xdg_toplevel*, wl_array*) {},
};
const xdg_popup_listener kPopupListener = {
    WindowListeners::popup_configure,
    WindowListeners::popup_done,
    [](void*, xdg_popup*, uint32_t) {},
};
}  // namespace

Window::Window(Client& client, Window* popup_parent, xdg_positioner* positioner) : client_(client) {
  surface_ = wl_compositor_create_surface(client.compositor);
  xdg_surface_ = xdg_wm_base_get_xdg_surface(client.wm_base, surface_);
  xdg_surface_add_listener(xdg_surface_, &kSurfaceListener, this);
  if (popup_parent != nullptr) {
    popup_ = xdg_surface_get_popup(xdg_surface_, popup_parent->xdg_surface_, positioner);
    xdg_popup_add_listener(popup_, &kPopupListener, this);
  } else {
    toplevel_ = xdg_surface_get_toplevel(xdg_surface_);
    xdg_toplevel_add_listener(toplevel_, &kToplevelListener, this);
  }
}

Window::Window(Client& client, xdg_positioner* positioner) : client_(client) {
  surface_ = wl_compositor_create_surface(client.compositor);
  xdg_surface_ = xdg_wm_base_get_xdg_surface(client.wm_base, surface_);
  xdg_surface_add_listener(xdg_surface_, &kSurfaceListener, this);
  popup_ = xdg_surface_get_popup(xdg_surface_, nullptr, positioner);
  xdg_popup_add_listener(popup_, &kPopupListener, this);
}

Window::~Window() {
  if (popup_ != nullptr) xdg_popup_destroy(popup_);
  if (toplevel_ != nullptr) xdg_toplevel_destroy(toplevel_);
  xdg_surface_destroy(xdg_surface_);
  wl_surface_destroy(surface_);
}

void Window::initial_commit() { wl_surface_commit(surface_); }

void Window::draw(int width, int height, uint32_t argb) {
  buffers_.push_back(std::make_unique<ShmBuffer>(client_.shm, width, height, argb));
  present(*buffers_.back(), width, height);
}

void Window::present(const ShmBuffer& buffer, int width, int height) {
  // Ack each configure once: acking a serial twice is a protocol error.
  if (!configures_.empty() && configures_.back().serial != acked_serial_) {
    acked_serial_ = configures_.back().serial;
    xdg_surface_ack_configure(xdg_surface_, acked_serial_);
  }
  wl_surface_attach(surface_, buffer.get(), 0, 0);
  wl_surface_damage_buffer(surface_, 0, 0, width, height);
  wl_surface_commit(surface_);
}

void Window::unmap() {
  wl_surface_attach(surface_, nullptr, 0, 0);
  wl_surface_commit(surface_);
}

struct ClientListeners {
  static void global(void* data, wl_registry* registry, uint32_t name, const char* interface,
                     uint32_t version) {
    auto* c = static_cast<Client*>(data);
    c->globals_.insert(interface);
    auto bind = [&](const wl_interface* iface, uint32_t max) {
      return wl_registry_bind(registry, name, iface, std::min(version, max));
    };
    if (std::strcmp(interface, wl_compositor_interface.name) == 0) {
      c->compositor = static_cast<wl_compositor*>(bind(&wl_compositor_interface, 6));
    } else if (std::strcmp(interface, wl_shm_interface.name) == 0) {
      c->shm = static_cast<wl_shm*>(bind(&wl_shm_interface, 1));
    } else if (std::strcmp(interface, xdg_wm_base_interface.name) == 0) {
      c->wm_base = static_cast<xdg_wm_base*>(bind(&xdg_wm_base_interface, 6));
      static const xdg_wm_base_listener ping = {
          [](void*, xdg_wm_base* base, uint32_t serial) { xdg_wm_base_pong(base, serial); }};
      xdg_wm_base_add_listener(c->wm_base, &ping, c);
    } else if (std::strcmp(interface, wl_seat_interface.name) == 0) {
      c->seat = static_cast<wl_seat*>(bind(&wl_seat_interface, 7));
      static const wl_seat_listener seat_listener = {seat_capabilities,
                                                     [](void*, wl_seat*, const char*) {}};
      wl_seat_add_listener(c->seat, &seat_listener, c);
    } else if (std::strcmp(interface, wl_output_interface.name) == 0 && c->output == nullptr) {
      c->output = static_cast<wl_output*>(bind(&wl_output_interface, 4));
    } else if (std::strcmp(interface, wp_presentation_interface.name) == 0) {
      c->presentation = static_cast<wp_presentation*>(bind(&wp_presentation_interface, 1));
      static const wp_presentation_listener clock = {[](void* d, wp_presentation*, uint32_t id) {
        static_cast<Client*>(d)->presentation_clock = id;
      }};
      wp_presentation_add_listener(c->presentation, &clock, c);
    }
  }

  static void seat_capabilities(void* data, wl_seat* seat, uint32_t caps) {
    auto* c = static_cast<Client*>(data);
    c->seat_capabilities = caps;
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && c->keyboard == nullptr) {
      c->keyboard = wl_seat_get_keyboard(seat);
      static const wl_keyboard_listener listener = {
          [](void* d, wl_keyboard*, uint32_t, int32_t fd, uint32_t) {
            static_cast<Client*>(d)->keymap_received = true;
            close(fd);
          },
          [](void* d, wl_keyboard*, uint32_t serial, wl_surface* s, wl_array* keys) {
            auto* client = static_cast<Client*>(d);
            client->keyboard_focus = s;
            client->keyboard_enter_serial = serial;
            auto* held = static_cast<uint32_t*>(keys->data);
            client->enter_keys.assign(held, held + keys->size / sizeof(uint32_t));
          },
          [](void* d, wl_keyboard*, uint32_t, wl_surface* s) {
            auto* client = static_cast<Client*>(d);
            if (client->keyboard_focus == s) client->keyboard_focus = nullptr;
          },
          [](void* d, wl_keyboard*, uint32_t serial, uint32_t, uint32_t key, uint32_t state) {
            static_cast<Client*>(d)->keys.push_back({key, state});
            static_cast<Client*>(d)->key_serial = serial;
          },
          [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {},
          [](void*, wl_keyboard*, int32_t, int32_t) {},
      };
      wl_keyboard_add_listener(c->keyboard, &listener, c);
    }
    if ((caps & WL_SEAT_CAPABILITY_POINTER) && c->pointer == nullptr) {
      c->pointer = wl_seat_get_pointer(seat);
      static const wl_pointer_listener listener = {
          [](void* d, wl_pointer*, uint32_t serial, wl_surface* s, wl_fixed_t x, wl_fixed_t y) {
            auto* client = static_cast<Client*>(d);
            client->pointer_focus = s;
            client->pointer_enter_serial = serial;
            client->pointer_x = wl_fixed_to_double(x);
            client->pointer_y = wl_fixed_to_double(y);
          },
          [](void* d, wl_pointer*, uint32_t, wl_surface* s) {
            auto* client = static_cast<Client*>(d);
            if (client->pointer_focus == s) client->pointer_focus = nullptr;
          },
          [](void* d, wl_pointer*, uint32_t, wl_fixed_t x, wl_fixed_t y) {
            auto* client = static_cast<Client*>(d);
            client->pointer_x = wl_fixed_to_double(x);
            client->pointer_y = wl_fixed_to_double(y);
          },
          [](void* d, wl_pointer*, uint32_t serial, uint32_t, uint32_t button, uint32_t state) {
            auto* client = static_cast<Client*>(d);
            if (state != WL_POINTER_BUTTON_STATE_PRESSED) {
              client->released_buttons.push_back(button);
              return;
            }
            client->button_serial = serial;
            client->buttons.push_back(button);
          },
          [](void*, wl_pointer*, uint32_t, uint32_t, wl_fixed_t) {},
          [](void*, wl_pointer*) {},
          [](void*, wl_pointer*, uint32_t) {},
          [](void*, wl_pointer*, uint32_t, uint32_t) {},
          [](void* d, wl_pointer*, uint32_t, int32_t discrete) {
            static_cast<Client*>(d)->axis_discrete.push_back(discrete);
          },
          [](void*, wl_pointer*, uint32_t, int32_t) {},
          [](void*, wl_pointer*, uint32_t, uint32_t) {},
      };
      wl_pointer_add_listener(c->pointer, &listener, c);
    }
    if ((caps & WL_SEAT_CAPABILITY_TOUCH) && c->touch == nullptr) {
      c->touch = wl_seat_get_touch(seat);
      static const wl_touch_listener listener = {
          .down =
              [](void* d, wl_touch*, uint32_t serial, uint32_t, wl_surface* surface, int32_t id,
                 wl_fixed_t x, wl_fixed_t y) {
                static_cast<Client*>(d)->touch_down_serial = serial;
                static_cast<Client*>(d)->touch_events.push_back(
                    {"down", id, surface, wl_fixed_to_double(x), wl_fixed_to_double(y)});
              },
          .up =
              [](void* d, wl_touch*, uint32_t, uint32_t, int32_t id) {
                static_cast<Client*>(d)->touch_events.push_back({"up", id, nullptr, 0, 0});
              },
          .motion =
              [](void* d, wl_touch*, uint32_t, int32_t id, wl_fixed_t x, wl_fixed_t y) {
                static_cast<Client*>(d)->touch_events.push_back(
                    {"motion", id, nullptr, wl_fixed_to_double(x), wl_fixed_to_double(y)});
              },
          .frame =
              [](void* d, wl_touch*) {
                static_cast<Client*>(d)->touch_events.push_back({"frame", -1, nullptr, 0, 0});
              },
          .cancel =
              [](void* d, wl_touch*) {
                static_cast<Client*>(d)->touch_events.push_back({"cancel", -1, nullptr, 0, 0});
              },
          .shape = [](void*, wl_touch*, int32_t, wl_fixed_t, wl_fixed_t) {},
          .orientation = [](void*, wl_touch*, int32_t, wl_fixed_t) {},
      };
      wl_touch_add_listener(c->touch, &listener, c);
    }
  }
};

Client::Client(Harness& harness) : Client(harness, harness.connect()) {}

Client::Client(Harness& harness, wl_display* display) : harness_(harness), display_(display) {
  registry_ = wl_display_get_registry(display_);
  static const wl_registry_listener listener = {ClientListeners::global,
                                                [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(registry_, &listener, this);
  harness.sync();  // globals
  harness.sync();  // events from the bound globals (seat capabilities, clock id)
}

Client::~Client() {
  if (keyboard != nullptr) wl_keyboard_destroy(keyboard);
  if (pointer != nullptr) wl_pointer_destroy(pointer);
  if (touch != nullptr) wl_touch_destroy(touch);
  if (presentation != nullptr) wp_presentation_destroy(presentation);
  if (seat != nullptr) wl_seat_destroy(seat);
  if (output != nullptr) wl_output_destroy(output);
  if (wm_base != nullptr) xdg_wm_base_destroy(wm_base);
  if (shm != nullptr) wl_shm_destroy(shm);
  if (compositor != nullptr) wl_compositor_destroy(compositor);
  wl_registry_destroy(registry_);
}

}  // namespace baton::test
