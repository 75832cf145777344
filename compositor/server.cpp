#include "compositor/server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "backend/backend_factory.hpp"
#include "compositor/config/factory_options.hpp"
#include "compositor/desktop/desktop_context.hpp"
#include "compositor/desktop/surface_commits.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/desktop/xdg_view.hpp"
#include "compositor/desktop/xwayland.hpp"
#include "compositor/desktop/xwayland_view.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/input/virtual_input.hpp"
#include "compositor/launcher.hpp"
#include "compositor/output/drm_leases.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/output/screenshot_writer.hpp"
#include "compositor/shell/activation.hpp"
#include "compositor/shell/desktop_protocols.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "compositor/shell/sandbox.hpp"
#include "compositor/shell/session_lock.hpp"
#include "handoff/buffer_fences.hpp"
#include "handoff/hold_queue.hpp"
#include "handoff/readiness_gate.hpp"
#include "handoff/release_tracker.hpp"
#include "protocols/color_representation.hpp"
#include "protocols/commit_timing.hpp"
#include "protocols/fifo.hpp"
#include "protocols/linux_dmabuf.hpp"
#include "protocols/linux_drm_syncobj.hpp"
#include "renderer/gpu_reads.hpp"
#include "renderer/render_stack.hpp"
#include "renderer/renderer_factory.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"
#include "util/wlr.hpp"

namespace baton {
Server::Server(Options options) : options_(std::move(options)) {}

void destroy_scene(wlr_scene* scene) { wlr_scene_node_destroy(&scene->tree.node); }
void destroy_cursor(wlr_cursor* cursor) { wlr_cursor_destroy(cursor); }
void destroy_backend(wlr_backend* backend) { wlr_backend_destroy(backend); }

Server::~Server() {
  // What goes when follows from member order (server.hpp). Before anything
  // goes: keys released as the backend goes must not reach a half torn-down
  // server, outputs going change no layout anyone still cares about, and the
  // sandbox forgets Xwayland.
  if (seat_ != nullptr) seat_->stop_keyboards();
  if (outputs_ != nullptr) outputs_->stop_layout_events();
  if (protocols_ != nullptr) protocols_->sandbox().set_xwayland(nullptr);
}

Server::ClientsGoFirst::~ClientsGoFirst() {
  if (display != nullptr) wl_display_destroy_clients(display);
}

Status Server::start() {
  display_ = Owned<wl_display, wl_display_destroy>(wl_display_create());
  if (display_ == nullptr) return failure("wl_display_create", "out of memory");
  clients_.display = display_;
  event_loop_ = wl_display_get_event_loop(display_);
  if (options_.trace_path) {
    auto trace = Trace::open(*options_.trace_path);
    if (!trace) return trace.error();
    trace_ = std::move(*trace);
  }
  load_config();

  auto backend = create_backend(event_loop_, backend_options(options_));
  if (!backend) return backend.error();
  backend_ = Owned<wlr_backend, destroy_backend>(backend->backend);
  backend_kind_ = backend->kind;
  session_ = backend->session;

  render_ = std::make_unique<RenderStack>(display_, backend_, render_options(options_, config_));
  if (Status created = render_->create(backend_name(backend_kind_)); !created) return created;
  renderer_ = render_->renderer();
  renderer_name_ = render_->name();
  allocator_ = render_->allocator();
  render_->on_rebuilt([this](wlr_renderer* r, wlr_allocator* a) { handle_renderer_rebuilt(r, a); });
  if (Status globals = create_globals(); !globals) return globals;

  if (options_.socket_name) {
    if (wl_display_add_socket(display_, options_.socket_name->c_str()) != 0)
      return failure("cannot listen on socket '" + *options_.socket_name + "'",
                     "in use, or XDG_RUNTIME_DIR unset?");
    socket_name_ = *options_.socket_name;
  } else {
    const char* socket = wl_display_add_socket_auto(display_);
    if (socket == nullptr)
      return failure("cannot create a Wayland socket", "is XDG_RUNTIME_DIR set and writable?");
    socket_name_ = socket;
  }

  if (!wlr_backend_start(backend_))
    return failure(std::string("wlr_backend_start (") + backend_name(backend_kind_) + ")",
                   "the backend failed to start");

  launcher_ = std::make_unique<Launcher>(event_loop_, socket_name_, [this](pid_t pid, int status) {
    if (pid == session_pid_ && options_.exit_with_session) {
      LOG_INFO("the session command exited; shutting down");
      terminate(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
  });
  if (options_.xwayland != XwaylandMode::off) {
    auto xwayland = Xwayland::create(display_, compositor_, wlr_seat_, *windows_,
                                     options_.xwayland == XwaylandMode::lazy);
    if (xwayland)
      xwayland_ = std::move(*xwayland);
    else  // baton runs on without X11 clients
      LOG_ERROR("%s", xwayland.error().describe().c_str());
    protocols_->sandbox().set_xwayland(xwayland_.get());
    if (xwayland_) launcher_->set_env("DISPLAY", xwayland_->display_name());
  }
  if (options_.screenshot_path)
    screenshot_writer_ = std::make_unique<ScreenshotWriter>(
        event_loop_, *outputs_, *options_.screenshot_path, options_.screenshot_delay_ms,
        options_.exit_after_screenshot, [this](int code) { terminate(code); });
  if (screenshot_writer_)
    screenshot_on_map_ =
        windows_->view_mapped.connect([this](View&) { screenshot_writer_->window_mapped(); });

  // The newest global is made last: the fuzzer's seeds (tests/fuzz/*_seeds.py)
  // name globals by their place in the registry, outputs included.
  color_representation_ = std::make_unique<ColorRepresentationManager>(display_);

  // tests grep this line: tests/vm/guest-test.sh (every guest test), tests/vm/login_test.sh,
  // tests/vm/baton_drm_test.sh, tests/integration/test_cli.cpp,
  // tests/desktop/test_config_apply.cpp, tests/renderer/nested_test.cpp
  LOG_INFO("baton %s running on WAYLAND_DISPLAY=%s (backend %s, renderer %s)", BATON_VERSION,
           socket_name_.c_str(), backend_name(backend_kind_), renderer_name_);
  return {};
}

Status Server::create_globals() {
  if (!wlr_renderer_init_wl_shm(renderer_, display_))
    return failure("wlr_renderer_init_wl_shm", "wl_shm could not be set up for the renderer");
  if (options_.drm_device) {
    drm_device_ = UniqueFd(open(options_.drm_device->c_str(), O_RDWR | O_CLOEXEC));
    if (!drm_device_) return last_error("--drm-device " + *options_.drm_device + ": open");
  }
  compositor_ = wlr_compositor_create(display_, 6, renderer_);
  // One hold queue for every reason a commit waits: the readiness gate's
  // fences (create_sync_globals), fifo barriers and commit-timing targets.
  hold_queue_ = std::make_unique<HoldQueue>(event_loop_, compositor_, HoldBudget{}, trace_.get());
  releases_ = std::make_unique<ReleaseTracker>(
      compositor_, make_gpu_reads_watch(wl_display_get_event_loop(display_)));
  create_sync_globals();
  fifo_ = std::make_unique<Fifo>(display_, event_loop_, *hold_queue_);
  commit_timing_ = std::make_unique<CommitTiming>(display_, event_loop_, *hold_queue_);
  wlr_subcompositor_create(display_);
  wlr_data_device_manager_create(display_);

  output_layout_ = wlr_output_layout_create(display_);
  scene_ = Owned<wlr_scene, destroy_scene>(wlr_scene_create());
  scene_layout_ = wlr_scene_attach_output_layout(scene_, output_layout_);
  layers_ = SceneLayers::create(scene_);

  xdg_shell_ = wlr_xdg_shell_create(display_, 6);
  wlr_xdg_output_manager_v1_create(display_, output_layout_);
  wlr_presentation_create(display_, backend_, 2);
  wlr_viewporter_create(display_);
  wlr_single_pixel_buffer_manager_v1_create(display_);
  wlr_fractional_scale_manager_v1_create(display_, 1);
  tearing_control_ = wlr_tearing_control_manager_v1_create(display_, 1);
  content_type_ = wlr_content_type_manager_v1_create(display_, 1);

  create_desktop();
  if (session_ != nullptr)
    session_active_.connect(&session_->events.active,
                            [this](void*) { handle_session_active(session_->active); });

  // Nested backends destroy themselves when the parent compositor or X
  // server goes away; a nested baton then has nothing left to show.
  backend_destroy_.connect(&backend_->events.destroy, [this](void*) {
    // wlroots asserts that nothing listens to a backend it has finished.
    backend_destroy_.disconnect();
    new_output_.disconnect();
    new_input_.disconnect();
    backend_.release();  // wlroots is destroying it
    // tests grep this line: tests/integration/test_nested.cpp
    LOG_INFO("the backend was closed (parent display gone?); shutting down");
    terminate(0);
  });
  new_output_.connect(&backend_->events.new_output,
                      [this](wlr_output* output) { handle_new_output(output); });
  new_input_.connect(&backend_->events.new_input,
                     [this](wlr_input_device* device) { seat_->add_input(device); });
  new_toplevel_.connect(&xdg_shell_->events.new_toplevel, [this](wlr_xdg_toplevel* toplevel) {
    windows_->add_xdg_toplevel(toplevel);
  });
  new_popup_.connect(&xdg_shell_->events.new_popup,
                     [this](wlr_xdg_popup* popup) { windows_->add_xdg_popup(popup); });
  return {};
}

void Server::create_desktop() {
  wlr_seat_ = wlr_seat_create(display_, "seat0");
  cursor_ = Owned<wlr_cursor, destroy_cursor>(wlr_cursor_create());
  outputs_ = std::make_unique<Outputs>(output_layout_);
  output_context_ = std::make_unique<OutputContext>(OutputContext{
      .event_loop = event_loop_,
      .trace = trace_.get(),
      .options = options_,
      .config = config_,
      .render = *render_,
      .layout = output_layout_,
      .scene = scene_,
      .scene_layout = scene_layout_,
      .background_layer = layers_.background,
      .tearing_control = tearing_control_,
      .content_type = content_type_,
      .fifo = *fifo_,
      .commit_timing = *commit_timing_,
      .fullscreen_on =
          [this](const Output& output) {
            const View* view = windows_->fullscreen_on(output);
            if (view == nullptr || view->surface() == nullptr) return FullscreenWindow{};
            return FullscreenWindow{view->surface(), view->app_id()};
          },
      .destroyed = [this](Output& output) { output_destroyed(output); },
  });
  desktop_context_ = std::make_unique<DesktopContext>(DesktopContext{
      .config = config_,
      .outputs = *outputs_,
      .layers = layers_,
      .cursor = cursor_,
      .session = session_,
      .foreign_toplevels = wlr_foreign_toplevel_manager_v1_create(display_),
      .toplevel_list = wlr_ext_foreign_toplevel_list_v1_create(display_, 1),
  });
  windows_ = std::make_unique<Windows>(*desktop_context_);
  layer_shell_ = std::make_unique<LayerShell>(display_, wlr_seat_, *outputs_, layers_, *windows_);
  protocols_ = std::make_unique<DesktopProtocols>(display_, event_loop_, wlr_seat_, config_,
                                                  *outputs_, *windows_);
  session_lock_ = std::make_unique<SessionLock>(display_, wlr_seat_, *outputs_, layers_, *windows_,
                                                *layer_shell_);
  surface_commits_ = std::make_unique<SurfaceCommits>(compositor_);
  seat_ = std::make_unique<Seat>(SeatContext{
      .display = display_,
      .seat = wlr_seat_,
      .cursor = cursor_,
      .session = session_,
      .config = config_,
      .outputs = *outputs_,
      .windows = *windows_,
      .layer_shell = *layer_shell_,
      .session_lock = *session_lock_,
      .surface_commits = *surface_commits_,
      .protocols = *protocols_,
      .layers = layers_,
      .actions = ServerActions{
          .spawn = [this](const std::string& command) { (void)spawn(command); },
          .terminate = [this](int exit_code) { terminate(exit_code); },
          .reload_config = [this] { return reload_config(); },
      },
  });
  virtual_input_ = std::make_unique<VirtualInput>(display_, *seat_);
  drm_leases_ = DrmLeases::create(display_, backend_);
}

int Server::sync_drm_fd() {
  if (drm_device_) return drm_device_.get();  // asked for by name
  if (int fd = wlr_backend_get_drm_fd(backend_); fd >= 0) return fd;
  return wlr_renderer_get_drm_fd(renderer_);
}

void Server::create_sync_globals() {
  const int drm_fd = sync_drm_fd();
  // linux-dmabuf-v1 only when the renderer can really import dma-bufs.
  auto dmabuf = LinuxDmabuf::create(display_, renderer_, drm_fd);
  advertises_dmabuf_ = dmabuf.ok();
  if (advertises_dmabuf_)
    linux_dmabuf_ = std::move(*dmabuf);
  else
    LOG_INFO("linux-dmabuf-v1 not advertised: %s", dmabuf.error().describe().c_str());
  // Explicit sync is about dma-bufs: without them a client could not use it.
  const bool dmabuf_clients = advertises_dmabuf_ || options_.syncobj_without_own_dmabuf;
  if (dmabuf_clients && drm_fd >= 0) {
    auto syncobj = LinuxDrmSyncobj::create(display_, drm_fd, *releases_);
    if (syncobj)
      syncobj_ = std::move(*syncobj);
    else
      LOG_INFO("linux-drm-syncobj-v1 not advertised: %s", syncobj.error().describe().c_str());
  } else if (dmabuf_clients) {
    LOG_INFO("linux-drm-syncobj-v1 not advertised: no DRM device (see --drm-device)");
  }
  buffer_fences_ = std::make_unique<BufferFences>(
      syncobj_.get(), options_.readiness_gate ? Latch::when_ready : Latch::at_materialize);
  gate_ = std::make_unique<ReadinessGate>(*hold_queue_, *buffer_fences_);
  // tests grep this line: tests/vm/guest-baton.sh, tests/screencast/screencast.sh,
  // tests/integration/test_cli.cpp
  LOG_INFO("buffers: linux-dmabuf-v1 %s, linux-drm-syncobj-v1 %s",
           advertises_dmabuf_ ? "on" : "off", syncobj_ ? "on" : "off");
}

int Server::run() {
  update_activation_environment();
  for (size_t i = 0; i < options_.startup_commands.size(); ++i) {
    Result<pid_t> pid = spawn(options_.startup_commands[i]);
    if (i == 0 && pid) session_pid_ = *pid;
  }
  for (const std::string& command : config_.startup) (void)spawn(command);
  if (options_.exit_with_session && !session_pid_) {
    LOG_ERROR("--exit-with-session without a startup command that could start");
    return 1;
  }
  run_loop();
  return exit_code_;
}

void Server::run_loop() {
  // wl_display_run, with each dispatch timed: how long the loop is busy at a
  // stretch is how long a client (or a frame) may wait for it.
  const int loop_fd = wl_event_loop_get_fd(event_loop_);
  const int track = trace_ ? trace_->track("main loop") : 0;
  int64_t longest_ns = 0;
  uint64_t over_1ms = 0;
  while (!terminated_) {
    wl_event_loop_dispatch_idle(event_loop_);
    wl_display_flush_clients(display_);
    if (terminated_) break;
    pollfd ready{loop_fd, POLLIN, 0};
    if (poll(&ready, 1, -1) < 0 && errno != EINTR) {
      LOG_ERROR("main loop: %s", last_error("poll").describe().c_str());
      break;
    }
    const int64_t begin = Trace::now();
    wl_event_loop_dispatch(event_loop_, 0);
    const int64_t busy = Trace::now() - begin;
    longest_ns = std::max(longest_ns, busy);
    if (busy > 1'000'000) {
      ++over_1ms;
      if (trace_) trace_->span(track, "loop busy", begin, begin + busy);
    }
  }
  LOG_INFO("main loop: longest dispatch %.2f ms, %llu dispatches over 1 ms",
           static_cast<double>(longest_ns) / 1e6, static_cast<unsigned long long>(over_1ms));
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

Result<pid_t> Server::spawn(const std::string& command) {
  if (!launcher_) return failure("spawn", "the server is not running yet");
  // What we start may focus its first window once (xdg-activation; GTK and
  // Qt read either name).
  std::string token = protocols_->activation().launch_token();
  Result<pid_t> pid =
      launcher_->spawn(command, {{"XDG_ACTIVATION_TOKEN", token}, {"DESKTOP_STARTUP_ID", token}});
  if (!pid) LOG_ERROR("cannot start '%s': %s", command.c_str(), pid.error().describe().c_str());
  return pid;
}

Workspaces& Server::workspaces() { return windows_->workspaces(); }

std::vector<Output*> Server::outputs() const {
  return outputs_ ? outputs_->all() : std::vector<Output*>{};
}

Output* Server::output_at(double lx, double ly) const { return outputs_->at(lx, ly); }

void Server::load_config() {
  config_path_ = options_.config_path ? *options_.config_path : default_config_path();
  ParsedConfig parsed;
  if (options_.config_path || access(config_path_.c_str(), F_OK) == 0) {
    parsed = baton::load_config(config_path_);
  } else {
    LOG_DEBUG("no config file at %s; using the defaults", config_path_.c_str());
    parsed.config.bindings = default_bindings();
  }
  config_ = std::move(parsed.config);
  config_errors_ = std::move(parsed.errors);
  for (const ConfigError& error : config_errors_)
    LOG_ERROR("config: %s", error.to_string().c_str());
  if (config_.background && !options_.background_set) options_.background = *config_.background;
}

bool Server::reload_config() {
  load_config();
  apply_config();
  // tests grep this line: tests/vm/input_test.sh, tests/desktop/test_config_apply.cpp
  LOG_INFO("configuration reloaded from %s (%zu problem%s)", config_path_.c_str(),
           config_errors_.size(), config_errors_.size() == 1 ? "" : "s");
  return config_errors_.empty();
}

void Server::apply_config() {
  seat_->reapply_input_config();
  for (Output* output : outputs_->all()) output->apply_config();
  outputs_->layout_changed.emit();
}

void Server::handle_session_active(bool active) {
  if (!active) {
    // tests grep this line: tests/vm/vt_switch_test.sh
    LOG_INFO("session paused (VT switch)");
    return;
  }
  // tests grep this line: tests/vm/vt_switch_test.sh, tests/vm/login_test.sh
  LOG_INFO("session resumed; re-enabling outputs");
  for (Output* output : outputs_->all()) output->session_resumed();
}

void Server::update_activation_environment() {
  // D-Bus-activated services (portals, notification daemons) and systemd
  // user units must learn which display to use.
  if (std::getenv("DBUS_SESSION_BUS_ADDRESS") == nullptr) {
    LOG_DEBUG("no session bus; the activation environment is not updated");
    return;
  }
  const char* path = std::getenv("PATH");
  bool found = false;
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/dbus-update-activation-environment";
    if (access(candidate.c_str(), X_OK) == 0) found = true;
    start = end + 1;
  }
  if (!found) {
    LOG_DEBUG("dbus-update-activation-environment not found; skipped");
    return;
  }
  (void)spawn(
      "dbus-update-activation-environment --systemd WAYLAND_DISPLAY XDG_CURRENT_DESKTOP "
      "XDG_SESSION_TYPE");
}

void Server::handle_new_output(wlr_output* output) {
  // Not part of the desktop: a headset (non-desktop), or marked leasable.
  bool leasable = output->non_desktop;
  for (const OutputConfig* c : config_.outputs_for(output->name))
    if (c->leasable) leasable = *c->leasable;
  if (leasable) {
    if (drm_leases_ != nullptr && drm_leases_->offer(output)) return;
    if (output->non_desktop) {
      LOG_INFO("output %s is not a desktop output and cannot be leased here: left off",
               output->name);
      return;
    }
    LOG_INFO("output %s: leasable, but there is no DRM lease here: a desktop output", output->name);
  }
  // The output starts in its configured state (Output's constructor).
  auto added = std::make_unique<Output>(*output_context_, output);
  // A surface it could scan out is told what its primary plane takes.
  if (linux_dmabuf_)
    scanout_feedback_[added.get()] =
        added->scanout_candidate_changed.connect([this](const ScanoutCandidate& c) {
          linux_dmabuf_->set_scanout_output(c.surface, c.output);
        });
  outputs_->add(std::move(added));
}

void Server::output_destroyed(Output& output) {
  const Output* gone = &output;
  outputs_->remove(output);  // its scanout surface is told first
  scanout_feedback_.erase(gone);
  // Closing the last window of a nested baton ends it, as closing a nested
  // sway or weston does.
  bool nested = backend_kind_ == BackendChoice::wayland || backend_kind_ == BackendChoice::x11;
  if (nested && outputs_->empty() && !terminated_) {
    LOG_INFO("the last nested output was closed; shutting down");
    terminate(0);
  }
}

// ---- GPU loss: everything that holds the renderer moves to the new one ----

int Server::renderer_rebuilds() const { return render_ ? render_->rebuilds() : 0; }

void Server::handle_renderer_rebuilt(wlr_renderer* renderer, wlr_allocator* allocator) {
  renderer_ = renderer;
  allocator_ = allocator;
  renderer_name_ = render_->name();
  wlr_compositor_set_renderer(compositor_, renderer);
  // Imports are checked against the new renderer's formats from now on.
  if (linux_dmabuf_) linux_dmabuf_->renderer_changed(renderer);
  for (Output* output : outputs_->all()) output->renderer_rebuilt();
}

}  // namespace baton
