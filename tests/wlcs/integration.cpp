// The WLCS integration module: a real baton Server on the headless backend
// (pixman), run by WLCS's runner in its own process.
//
// WLCS calls start_on_this_thread on a thread of its own and proxies every
// later call (client sockets, window positions, input) through its event
// loop, which we dispatch from baton's: the Server only ever runs on one
// thread, as it does in baton.
#include <linux/input-event-codes.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <wayland-client-core.h>
#include <wlcs/display_server.h>
#include <wlcs/pointer.h>
#include <wlcs/touch.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compositor/config/options.hpp"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"
#include "tests/support/fake_input.hpp"
#include "util/event_source.hpp"
#include "util/log.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::wlcs {
namespace {

class Integration;

// The C structs WLCS sees, each first in a standard-layout wrapper so the
// pointer WLCS hands back leads to ours.
struct ServerHandle {
  WlcsDisplayServer wlcs;
  Integration* self;
};
struct PointerHandle {
  WlcsPointer wlcs;
  Integration* self;
  test::FakePointer* pointer;  // null once the server stopped
};
struct TouchHandle {
  WlcsTouch wlcs;
  Integration* self;
  test::FakeTouch* touch;  // null once the server stopped
};

Options wlcs_options() {
  Options options;
  options.backend = BackendChoice::headless;
  options.renderer = RendererChoice::pixman;
  options.headless_size = {1280, 1024, 60000};
  options.outputs = 1;
  options.xwayland = XwaylandMode::off;
  static int counter = 0;
  options.socket_name = "baton-wlcs-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  return options;
}

// What WLCS may test. It skips the tests of extensions left out; baton's
// globals are created in compositor/server.cpp and protocols/ (versions as
// wlroots 0.19 implements them).
const WlcsExtensionDescriptor kExtensions[] = {
    {"wl_compositor", 6},
    {"wl_subcompositor", 1},
    {"wl_data_device_manager", 3},
    {"wl_seat", 9},
    {"wl_output", 4},
    {"xdg_wm_base", 6},
    {"zxdg_output_manager_v1", 3},
    {"wp_viewporter", 1},
    {"zwlr_layer_shell_v1", 4},
    {"zwp_relative_pointer_manager_v1", 1},
    {"zwp_pointer_constraints_v1", 1},
    {"zwp_primary_selection_device_manager_v1", 1},
    {"zwlr_foreign_toplevel_manager_v1", 3},
    {"xdg_activation_v1", 1},
    {"zwlr_virtual_pointer_manager_v1", 2},
    {"zxdg_decoration_manager_v1", 1},
    {"wp_fractional_scale_manager_v1", 1},
};
const WlcsIntegrationDescriptor kDescriptor = {
    .version = 1,
    .num_extensions = sizeof(kExtensions) / sizeof(kExtensions[0]),
    .supported_extensions = kExtensions,
};

class Integration {
 public:
  Integration() {
    handle_.wlcs = {};
    handle_.wlcs.version = 3;
    // No threaded start: WLCS then uses start_on_this_thread.
    handle_.wlcs.start = nullptr;
    handle_.wlcs.stop = [](WlcsDisplayServer* s) { of(s).stop(); };
    handle_.wlcs.create_client_socket = [](WlcsDisplayServer* s) {
      return of(s).create_client_socket();
    };
    handle_.wlcs.position_window_absolute = [](WlcsDisplayServer* s, wl_display* client,
                                               wl_surface* surface, int x, int y) {
      of(s).position_window(client, surface, x, y);
    };
    handle_.wlcs.create_pointer = [](WlcsDisplayServer* s) { return of(s).create_pointer(); };
    handle_.wlcs.create_touch = [](WlcsDisplayServer* s) { return of(s).create_touch(); };
    handle_.wlcs.get_descriptor = [](const WlcsDisplayServer*) { return &kDescriptor; };
    handle_.wlcs.start_on_this_thread = [](WlcsDisplayServer* s, wl_event_loop* loop) {
      of(s).run(loop);
    };
    handle_.self = this;
  }
  ~Integration() {
    for (PointerHandle* p : pointers_) p->self = nullptr;
    for (TouchHandle* t : touches_) t->self = nullptr;
  }
  Integration(const Integration&) = delete;
  Integration& operator=(const Integration&) = delete;

  WlcsDisplayServer* wlcs() { return &handle_.wlcs; }
  static Integration& of(const WlcsDisplayServer* s) {
    return *reinterpret_cast<const ServerHandle*>(s)->self;
  }

  // Blocks: the Server lives and dies on this thread.
  void run(wl_event_loop* wlcs_loop) {
    server_ = std::make_unique<Server>(wlcs_options());
    if (Status started = server_->start(); !started) {
      std::fprintf(stderr, "baton-wlcs: server failed to start: %s\n",
                   started.error().describe().c_str());
      std::abort();  // WLCS would wait for it forever
    }
    // A seat with a keyboard, a mouse and a touchscreen from the start, as
    // on a touchscreen laptop: clients then hold wl_pointer, wl_keyboard and
    // wl_touch before a test's first input, instead of racing it for the new
    // capability (a touch point that goes down before a client has wl_touch
    // is not its own, and no later event tells it).
    test::FakeKeyboard keyboard(*server_);
    test::FakePointer mouse(*server_);
    test::FakeTouch touchscreen(*server_);
    auto wlcs_calls =
        EventSource::fd(server_->event_loop(), wl_event_loop_get_fd(wlcs_loop), WL_EVENT_READABLE,
                        [wlcs_loop](uint32_t) { wl_event_loop_dispatch(wlcs_loop, 0); });
    while (!server_->terminated()) server_->dispatch(-1);
    wlcs_calls.reset();
    // Devices go before the seat they are attached to.
    for (PointerHandle* p : pointers_) p->pointer = nullptr;
    for (TouchHandle* t : touches_) t->touch = nullptr;
    fake_pointers_.clear();
    fake_touches_.clear();
    clients_.clear();
    server_.reset();
  }

  void stop() {
    if (server_) server_->terminate();
  }

  int create_client_socket() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return -1;
    UniqueFd server_end(fds[0]);
    UniqueFd client_end(fds[1]);
    // On success the wl_client owns the server end.
    wl_client* client = wl_client_create(server_->display(), server_end.get());
    if (client == nullptr) return -1;
    (void)server_end.release();
    // WLCS connects with wl_display_connect_to_fd(fd): wl_display_get_fd
    // gives this number back in position_window_absolute.
    clients_[client_end.get()] = client;
    return client_end.release();  // WLCS owns it
  }

  void position_window(wl_display* display, wl_surface* surface, int x, int y) {
    wlr_surface* wlr = server_surface(display, surface);
    View* view = wlr != nullptr ? server_->windows().view_for_surface(wlr) : nullptr;
    if (view == nullptr) {
      std::fprintf(stderr, "baton-wlcs: position_window_absolute: no window for surface %u\n",
                   wl_proxy_get_id(reinterpret_cast<wl_proxy*>(surface)));
      return;
    }
    // A toplevel's scene tree has the surface's origin at its own.
    view->move_to(x, y);
  }

  WlcsPointer* create_pointer() {
    auto* handle = new PointerHandle{};
    handle->wlcs.version = WLCS_POINTER_VERSION;
    handle->wlcs.move_absolute = [](WlcsPointer* p, wl_fixed_t x, wl_fixed_t y) {
      if (auto* f = pointer_of(p)) f->move_to(wl_fixed_to_double(x), wl_fixed_to_double(y));
    };
    handle->wlcs.move_relative = [](WlcsPointer* p, wl_fixed_t dx, wl_fixed_t dy) {
      if (auto* f = pointer_of(p)) f->move_by(wl_fixed_to_double(dx), wl_fixed_to_double(dy));
    };
    handle->wlcs.button_up = [](WlcsPointer* p, int button) {
      if (auto* f = pointer_of(p)) f->press(button, false);
    };
    handle->wlcs.button_down = [](WlcsPointer* p, int button) {
      if (auto* f = pointer_of(p)) f->press(button, true);
    };
    handle->wlcs.destroy = [](WlcsPointer* p) {
      auto* handle = reinterpret_cast<PointerHandle*>(p);
      if (handle->self != nullptr) handle->self->forget(handle);
      delete handle;
    };
    handle->self = this;
    handle->pointer =
        fake_pointers_.emplace_back(std::make_unique<test::FakePointer>(*server_)).get();
    pointers_.push_back(handle);
    return &handle->wlcs;
  }

  WlcsTouch* create_touch() {
    auto* handle = new TouchHandle{};
    handle->wlcs.version = WLCS_TOUCH_VERSION;
    // One finger per WLCS touch, each event a frame of its own. touch.h
    // says wl_fixed_t, but WLCS 1.5's Touch::down_at and move_to pass their
    // int pixel coordinates unconverted: they are whole pixels.
    handle->wlcs.touch_down = [](WlcsTouch* t, wl_fixed_t x, wl_fixed_t y) {
      if (auto* f = touch_of(t)) {
        f->down(0, static_cast<double>(x), static_cast<double>(y));
        f->frame();
      }
    };
    handle->wlcs.touch_move = [](WlcsTouch* t, wl_fixed_t x, wl_fixed_t y) {
      if (auto* f = touch_of(t)) {
        f->motion(0, static_cast<double>(x), static_cast<double>(y));
        f->frame();
      }
    };
    handle->wlcs.touch_up = [](WlcsTouch* t) {
      if (auto* f = touch_of(t)) {
        f->up(0);
        f->frame();
      }
    };
    handle->wlcs.destroy = [](WlcsTouch* t) {
      auto* handle = reinterpret_cast<TouchHandle*>(t);
      if (handle->self != nullptr) handle->self->forget(handle);
      delete handle;
    };
    handle->self = this;
    handle->touch = fake_touches_.emplace_back(std::make_unique<test::FakeTouch>(*server_)).get();
    touches_.push_back(handle);
    return &handle->wlcs;
  }

 private:
  static test::FakePointer* pointer_of(WlcsPointer* p) {
    return reinterpret_cast<PointerHandle*>(p)->pointer;
  }
  static test::FakeTouch* touch_of(WlcsTouch* t) {
    return reinterpret_cast<TouchHandle*>(t)->touch;
  }

  void forget(PointerHandle* handle) {
    std::erase(pointers_, handle);
    std::erase_if(fake_pointers_, [&](const auto& f) { return f.get() == handle->pointer; });
  }
  void forget(TouchHandle* handle) {
    std::erase(touches_, handle);
    std::erase_if(fake_touches_, [&](const auto& f) { return f.get() == handle->touch; });
  }

  // The server side of a client's wl_surface: same client, same object id.
  wlr_surface* server_surface(wl_display* display, wl_surface* surface) {
    auto it = clients_.find(wl_display_get_fd(display));
    if (it == clients_.end() || !alive(it->second)) return nullptr;
    wl_resource* resource =
        wl_client_get_object(it->second, wl_proxy_get_id(reinterpret_cast<wl_proxy*>(surface)));
    return resource != nullptr ? wlr_surface_from_resource(resource) : nullptr;
  }
  // A client's fd number may be reused after it disconnected.
  bool alive(wl_client* client) {
    wl_client* c = nullptr;
    wl_client_for_each(c, wl_display_get_client_list(server_->display())) {
      if (c == client) return true;
    }
    return false;
  }

  ServerHandle handle_{};
  std::unique_ptr<Server> server_;
  std::map<int, wl_client*> clients_;  // client-side fd -> server-side client
  std::vector<std::unique_ptr<test::FakePointer>> fake_pointers_;
  std::vector<std::unique_ptr<test::FakeTouch>> fake_touches_;
  std::vector<PointerHandle*> pointers_;
  std::vector<TouchHandle*> touches_;
};

WlcsDisplayServer* create_server(int /*argc*/, const char** /*argv*/) {
  // BATON_WLCS_DEBUG=1: baton's and wlroots' debug log; else errors only.
  const char* debug = std::getenv("BATON_WLCS_DEBUG");
  log::set_level(debug != nullptr && debug[0] == '1' ? log::Level::debug : log::Level::error);
  // The Server listens on a socket there too (meson's test env names a fresh one).
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr)
    mkdir(runtime, 0700);
  return (new Integration())->wlcs();
}

void destroy_server(WlcsDisplayServer* server) { delete &Integration::of(server); }

}  // namespace
}  // namespace baton::wlcs

extern "C" __attribute__((visibility("default")))
const WlcsServerIntegration wlcs_server_integration = {
    .version = 1,
    .create_server = baton::wlcs::create_server,
    .destroy_server = baton::wlcs::destroy_server,
};
