#include "compositor/server.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <ctime>

#include "backend/backend_factory.hpp"
#include "compositor/launcher.hpp"
#include "compositor/log.hpp"
#include "compositor/output.hpp"
#include "compositor/screenshot_writer.hpp"
#include "compositor/seat.hpp"
#include "compositor/xdg_view.hpp"
#include "compositor/xwayland.hpp"
#include "compositor/xwayland_view.hpp"
#include "compositor/wlr.hpp"
#include "renderer/render_stack.hpp"

namespace baton {
namespace {

uint32_t now_msec() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint32_t>(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

}  // namespace

Server::Server(Options options) : options_(std::move(options)) {}

Server::~Server() {
  screenshot_writer_.reset();
  launcher_.reset();
  // Xwayland's windows go first, while the scene and seat still exist.
  xwayland_.reset();
  if (display_ != nullptr) wl_display_destroy_clients(display_);
  backend_destroy_.disconnect();
  new_output_.disconnect();
  new_input_.disconnect();
  new_toplevel_.disconnect();
  new_popup_.disconnect();
  // Destroying the backend destroys its outputs and input devices, whose
  // shadows (Output, Keyboard) unhook themselves through destroy signals.
  if (backend_ != nullptr) wlr_backend_destroy(backend_);
  popups_.clear();
  views_.clear();
  outputs_.clear();
  seat_.reset();
  if (scene_ != nullptr) wlr_scene_node_destroy(&scene_->tree.node);
  render_.reset();
  if (display_ != nullptr) wl_display_destroy(display_);
}

bool Server::start() {
  display_ = wl_display_create();
  if (display_ == nullptr) {
    start_error_ = "wl_display_create failed";
    return false;
  }
  event_loop_ = wl_display_get_event_loop(display_);

  CreatedBackend backend = create_backend(event_loop_, options_);
  if (backend.backend == nullptr) {
    start_error_ = "backend '" + std::string(backend_name(backend.kind)) + "' unavailable: " + backend.error;
    return false;
  }
  backend_ = backend.backend;
  backend_kind_ = backend.kind;
  session_ = backend.session;

  render_ = std::make_unique<RenderStack>(display_, backend_, options_);
  if (!render_->create(backend_name(backend_kind_), start_error_)) return false;
  renderer_ = render_->renderer();
  renderer_name_ = render_->name();
  allocator_ = render_->allocator();
  render_->on_rebuilt([this](wlr_renderer* r, wlr_allocator* a) { handle_renderer_rebuilt(r, a); });
  if (!create_globals()) return false;

  if (options_.socket_name) {
    if (wl_display_add_socket(display_, options_.socket_name->c_str()) != 0) {
      start_error_ = "cannot listen on socket '" + *options_.socket_name + "' (in use, or XDG_RUNTIME_DIR unset?)";
      return false;
    }
    socket_name_ = *options_.socket_name;
  } else {
    const char* socket = wl_display_add_socket_auto(display_);
    if (socket == nullptr) {
      start_error_ = "cannot create a Wayland socket (is XDG_RUNTIME_DIR set and writable?)";
      return false;
    }
    socket_name_ = socket;
  }

  if (!wlr_backend_start(backend_)) {
    start_error_ = std::string("the ") + backend_name(backend_kind_) + " backend failed to start";
    return false;
  }

  launcher_ = std::make_unique<Launcher>(event_loop_, socket_name_, [this](pid_t pid, int status) {
    if (pid == session_pid_ && options_.exit_with_session) {
      LOG_INFO("the session command exited; shutting down");
      terminate(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
  });
  if (options_.xwayland != XwaylandMode::off) {
    xwayland_ = Xwayland::create(*this, options_.xwayland == XwaylandMode::lazy);
    if (xwayland_) launcher_->set_env("DISPLAY", xwayland_->display_name());
  }
  if (options_.screenshot_path)
    screenshot_writer_ = std::make_unique<ScreenshotWriter>(
        *this, *options_.screenshot_path, options_.screenshot_delay_ms, options_.exit_after_screenshot);

  LOG_INFO("baton %s running on WAYLAND_DISPLAY=%s (backend %s, renderer %s)", BATON_VERSION,
           socket_name_.c_str(), backend_name(backend_kind_), renderer_name_);
  return true;
}

bool Server::create_globals() {
  if (!wlr_renderer_init_wl_shm(renderer_, display_)) {
    start_error_ = "wl_shm could not be set up for the renderer";
    return false;
  }
  // linux-dmabuf-v1 only when the renderer can really import dma-bufs.
  if (wlr_renderer_get_texture_formats(renderer_, WLR_BUFFER_CAP_DMABUF) != nullptr) {
    // renderer/dmabuf_global.hpp's create_linux_dmabuf() also serves
    // renderers without a DRM node (lavapipe); it is switched on together
    // with the implicit-sync readiness gate (dmabuf-clients fails without it).
    advertises_dmabuf_ = wlr_linux_dmabuf_v1_create_with_renderer(display_, 5, renderer_) != nullptr;
  }
  compositor_ = wlr_compositor_create(display_, 6, renderer_);
  wlr_subcompositor_create(display_);
  wlr_data_device_manager_create(display_);

  output_layout_ = wlr_output_layout_create(display_);
  scene_ = wlr_scene_create();
  scene_layout_ = wlr_scene_attach_output_layout(scene_, output_layout_);
  background_layer_ = wlr_scene_tree_create(&scene_->tree);
  view_layer_ = wlr_scene_tree_create(&scene_->tree);
  unmanaged_layer_ = wlr_scene_tree_create(&scene_->tree);

  xdg_shell_ = wlr_xdg_shell_create(display_, 6);
  wlr_xdg_output_manager_v1_create(display_, output_layout_);
  wlr_presentation_create(display_, backend_);
  wlr_viewporter_create(display_);
  wlr_single_pixel_buffer_manager_v1_create(display_);
  wlr_fractional_scale_manager_v1_create(display_, 1);

  seat_ = std::make_unique<Seat>(*this);

  // Nested backends destroy themselves when the parent compositor or X
  // server goes away; a nested baton then has nothing left to show.
  backend_destroy_.connect(&backend_->events.destroy, [this](void*) {
    backend_ = nullptr;
    LOG_INFO("the backend was closed (parent display gone?); shutting down");
    terminate(0);
  });
  new_output_.connect(&backend_->events.new_output, [this](wlr_output* output) { handle_new_output(output); });
  new_input_.connect(&backend_->events.new_input, [this](wlr_input_device* device) { seat_->add_input(device); });
  new_toplevel_.connect(&xdg_shell_->events.new_toplevel,
                        [this](wlr_xdg_toplevel* toplevel) { handle_new_toplevel(toplevel); });
  new_popup_.connect(&xdg_shell_->events.new_popup, [this](wlr_xdg_popup* popup) { handle_new_popup(popup); });
  return true;
}

int Server::run() {
  for (size_t i = 0; i < options_.startup_commands.size(); ++i) {
    pid_t pid = spawn(options_.startup_commands[i]);
    if (i == 0) session_pid_ = pid;
  }
  if (options_.exit_with_session && session_pid_ < 0) {
    LOG_ERROR("--exit-with-session without a startup command that could start");
    return 1;
  }
  if (!terminated_) wl_display_run(display_);
  return exit_code_;
}

void Server::dispatch(int timeout_ms) {
  wl_display_flush_clients(display_);
  wl_event_loop_dispatch(event_loop_, timeout_ms);
  wl_display_flush_clients(display_);
}

void Server::terminate(int exit_code) {
  exit_code_ = exit_code;
  terminated_ = true;
  wl_display_terminate(display_);
}

int Server::spawn(const std::string& command) { return launcher_ ? launcher_->spawn(command) : -1; }

std::vector<Output*> Server::outputs() const {
  std::vector<Output*> result;
  for (const auto& output : outputs_) result.push_back(output.get());
  return result;
}

Output* Server::output_at(double lx, double ly) const {
  wlr_output* output = wlr_output_layout_output_at(output_layout_, lx, ly);
  for (const auto& o : outputs_)
    if (o->wlr() == output) return o.get();
  return outputs_.empty() ? nullptr : outputs_.front().get();
}

View* Server::view_at(double lx, double ly, wlr_surface** surface, double* sx, double* sy) const {
  *surface = nullptr;
  wlr_scene_node* node = wlr_scene_node_at(&scene_->tree.node, lx, ly, sx, sy);
  if (node == nullptr || node->type != WLR_SCENE_NODE_BUFFER) return nullptr;
  wlr_scene_surface* scene_surface = wlr_scene_surface_try_from_buffer(wlr_scene_buffer_from_node(node));
  if (scene_surface == nullptr) return nullptr;
  *surface = scene_surface->surface;
  for (wlr_scene_tree* tree = node->parent; tree != nullptr; tree = tree->node.parent)
    if (tree->node.data != nullptr) return static_cast<View*>(tree->node.data);
  return nullptr;
}

void Server::focus_view(View* view) {
  if (view != nullptr && !view->managed()) return;
  if (focused_view_ != nullptr && focused_view_ != view) focused_view_->set_activated(false);
  focused_view_ = view;
  if (view == nullptr) {
    seat_->focus_keyboard(nullptr);
    return;
  }
  wlr_scene_node_raise_to_top(&view->tree()->node);
  auto it = std::find_if(views_.begin(), views_.end(), [view](const auto& v) { return v.get() == view; });
  if (it != views_.end()) std::rotate(views_.begin(), it, it + 1);
  view->set_activated(true);
  seat_->focus_keyboard(view->surface());
}

void Server::handle_new_output(wlr_output* output) {
  outputs_.push_back(std::make_unique<Output>(*this, output));
}

void Server::output_destroyed(Output& output) {
  std::erase_if(outputs_, [&](const auto& o) { return o.get() == &output; });
  // Closing the last window of a nested baton ends it, as closing a nested
  // sway or weston does.
  bool nested = backend_kind_ == BackendChoice::wayland || backend_kind_ == BackendChoice::x11;
  if (nested && outputs_.empty() && !terminated_) {
    LOG_INFO("the last nested output was closed; shutting down");
    terminate(0);
  }
}

void Server::handle_new_toplevel(wlr_xdg_toplevel* toplevel) {
  views_.push_back(std::make_unique<XdgView>(*this, toplevel));
}

void Server::handle_new_popup(wlr_xdg_popup* popup) {
  popups_.push_back(std::make_unique<Popup>(*this, popup));
}

void Server::popup_destroyed(Popup& popup) {
  std::erase_if(popups_, [&](const auto& p) { return p.get() == &popup; });
}

void Server::add_xwayland_surface(wlr_xwayland_surface* surface) {
  views_.push_back(std::make_unique<XwaylandView>(*this, surface));
}

void Server::view_mapped(View& view) {
  if (view.managed()) focus_view(&view);
  seat_->refresh_pointer_focus(now_msec());
  if (screenshot_writer_) screenshot_writer_->window_mapped();
}

void Server::view_unmapped(View& view) {
  if (focused_view_ == &view) {
    focused_view_ = nullptr;
    // Focus passes to the most recently focused window still mapped.
    View* next = nullptr;
    for (const auto& v : views_)
      if (v.get() != &view && v->mapped() && v->managed()) {
        next = v.get();
        break;
      }
    focus_view(next);
  }
  seat_->refresh_pointer_focus(now_msec());
}

void Server::view_destroyed(View& view) {
  if (focused_view_ == &view) focused_view_ = nullptr;
  std::erase_if(views_, [&](const auto& v) { return v.get() == &view; });
}

// ---- GPU loss: everything that holds the renderer moves to the new one ----

int Server::renderer_rebuilds() const { return render_ ? render_->rebuilds() : 0; }

void Server::handle_renderer_rebuilt(wlr_renderer* renderer, wlr_allocator* allocator) {
  renderer_ = renderer;
  allocator_ = allocator;
  renderer_name_ = render_->name();
  wlr_compositor_set_renderer(compositor_, renderer);
  for (const auto& output : outputs_) output->renderer_rebuilt();
}

}  // namespace baton
