// The compositor: one Server owns everything baton runs.
//
// Nothing in baton is global; a test can build as many Servers in one process
// as it likes. The Server builds the subsystems bottom up (config < output <
// desktop < shell < input), hands each what it uses from the layers below,
// and wires the signals that go back up; no subsystem sees the Server.
#pragma once

#include <sys/types.h>
#include <wayland-server-core.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compositor/config/config.hpp"
#include "compositor/config/options.hpp"
#include "compositor/output/scene_layers.hpp"
#include "util/event_source.hpp"
#include "util/image.hpp"
#include "util/listener.hpp"
#include "util/owned.hpp"
#include "util/result.hpp"
#include "util/signal.hpp"
#include "util/unique_fd.hpp"
#include "util/weak.hpp"

struct wl_display;
struct wl_event_loop;
struct wlr_allocator;
struct wlr_backend;
struct wlr_compositor;
struct wlr_output;
struct wlr_output_layout;
struct wlr_renderer;
struct wlr_scene;
struct wlr_scene_output_layout;
struct wlr_scene_tree;
struct wlr_session;
struct wlr_surface;
struct wlr_xdg_shell;
struct wlr_xdg_toplevel;
struct wlr_xdg_popup;
struct wlr_input_device;
struct wlr_xwayland_surface;
struct wlr_tearing_control_manager_v1;
struct wlr_content_type_manager_v1;
struct wlr_cursor;
struct wlr_seat;

namespace baton {

// Destroy functions for the wlroots objects the Server owns (Owned<>).
void destroy_scene(wlr_scene* scene);
void destroy_cursor(wlr_cursor* cursor);
void destroy_backend(wlr_backend* backend);

class Output;
class Outputs;
struct OutputContext;
struct DesktopContext;
class VirtualInput;
class DrmLeases;
class View;
class Popup;
class Seat;
class SurfaceCommits;
class Launcher;
class ScreenshotWriter;
class Xwayland;
class Workspaces;
class Windows;
class LayerShell;
class DesktopProtocols;
class SessionLock;
class LinuxDrmSyncobj;
class LinuxDmabuf;
class BufferFences;
class HoldQueue;
class ReleaseTracker;
class ReadinessGate;
class Fifo;
class CommitTiming;
class ColorRepresentationManager;
class Trace;
class RenderStack;

class Server {
 public:
  explicit Server(Options options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Creates the display, backend, renderer and globals and starts the
  /// backend; an error says why not.
  [[nodiscard]] Status start();

  /// Runs the startup commands, then the event loop until terminate().
  int run();
  /// Dispatches pending events, waiting at most `timeout_ms` (tests).
  void dispatch(int timeout_ms);
  void terminate(int exit_code = 0);
  [[nodiscard]] bool terminated() const { return terminated_; }

  [[nodiscard]] const Options& options() const { return options_; }
  [[nodiscard]] wl_display* display() const { return display_.get(); }
  [[nodiscard]] wl_event_loop* event_loop() const { return event_loop_; }
  [[nodiscard]] const std::string& socket_name() const { return socket_name_; }
  [[nodiscard]] wlr_backend* backend() const { return backend_.get(); }
  [[nodiscard]] BackendChoice backend_kind() const { return backend_kind_; }
  [[nodiscard]] wlr_session* session() const { return session_; }
  [[nodiscard]] wlr_renderer* renderer() const { return renderer_; }
  [[nodiscard]] const char* renderer_name() const { return renderer_name_; }
  [[nodiscard]] wlr_allocator* allocator() const { return allocator_; }
  /// Renderer rebuilds after GPU losses so far (renderer() changed each time).
  [[nodiscard]] int renderer_rebuilds() const;
  [[nodiscard]] wlr_scene* scene() const { return scene_.get(); }
  [[nodiscard]] wlr_output_layout* output_layout() const { return output_layout_; }
  [[nodiscard]] wlr_scene_output_layout* scene_layout() const { return scene_layout_; }
  [[nodiscard]] const SceneLayers& layers() const { return layers_; }
  [[nodiscard]] wlr_compositor* compositor() const { return compositor_; }
  /// Null when Xwayland is off or could not be set up.
  [[nodiscard]] Xwayland* xwayland() const { return xwayland_.get(); }
  [[nodiscard]] bool advertises_dmabuf() const { return advertises_dmabuf_; }
  /// linux-dmabuf-v1, when advertised (see advertises_dmabuf).
  [[nodiscard]] const LinuxDmabuf* linux_dmabuf() const { return linux_dmabuf_.get(); }
  /// linux-drm-syncobj-v1; null when not advertised.
  [[nodiscard]] LinuxDrmSyncobj* explicit_sync() const { return syncobj_.get(); }
  /// The hold queue of every surface: held commits and what they cost.
  [[nodiscard]] HoldQueue& hold_queue() { return *hold_queue_; }
  /// fifo-v1 and commit-timing-v1: the render loop tells them of frames.
  [[nodiscard]] Fifo& fifo() { return *fifo_; }
  [[nodiscard]] CommitTiming& commit_timing() { return *commit_timing_; }
  /// The frame trace (--trace); null when not recording.
  [[nodiscard]] Trace* trace() const { return trace_.get(); }
  Seat& seat() { return *seat_; }

  /// Outputs in creation order.
  [[nodiscard]] std::vector<Output*> outputs() const;
  /// The outputs and their signals (added, removed, layout changed).
  [[nodiscard]] Outputs& output_set() { return *outputs_; }
  /// Every window, focus and hit-testing.
  [[nodiscard]] Windows& windows() { return *windows_; }
  [[nodiscard]] const Windows& windows() const { return *windows_; }
  /// The output containing layout point (lx, ly), else the first output.
  [[nodiscard]] Output* output_at(double lx, double ly) const;

  [[nodiscard]] wlr_tearing_control_manager_v1* tearing_control() const { return tearing_control_; }

  /// The configuration in effect, and what was wrong with its file.
  [[nodiscard]] const Config& config() const { return config_; }
  [[nodiscard]] const std::vector<ConfigError>& config_errors() const { return config_errors_; }
  [[nodiscard]] const std::string& config_path() const { return config_path_; }
  /// Re-reads the config file and applies bindings, outputs, inputs and
  /// colours (startup commands run once). Returns whether it was error-free.
  bool reload_config();

  Workspaces& workspaces();
  LayerShell& layer_shell() { return *layer_shell_; }
  DesktopProtocols& protocols() { return *protocols_; }
  SessionLock& session_lock() { return *session_lock_; }

  /// Spawns `command` through /bin/sh with this server's WAYLAND_DISPLAY and
  /// an activation token of its own. The child's pid, or why it could not
  /// start (logged here too).
  Result<pid_t> spawn(const std::string& command);

 private:
  /// An output's wlr_output is being destroyed.
  void output_destroyed(Output& output);
  Status create_globals();
  /// The desktop, bottom up: outputs, windows, shell, seat.
  void create_desktop();
  /// The DRM fd for explicit sync: the backend's, the renderer's, or
  /// --drm-device's; -1 when there is none.
  int sync_drm_fd();
  void create_sync_globals();
  void handle_new_output(wlr_output* output);
  void run_loop();
  void load_config();
  void apply_config();
  void handle_session_active(bool active);
  void update_activation_environment();
  // GPU loss: moves the compositor, outputs and client buffers to a new renderer.
  void handle_renderer_rebuilt(wlr_renderer* renderer, wlr_allocator* allocator);

  Options options_;
  std::unique_ptr<Trace> trace_;  // everything that traces is declared below it
  Config config_;
  std::vector<ConfigError> config_errors_;
  std::string config_path_;
  bool terminated_ = false;
  int exit_code_ = 0;
  UniqueFd drm_device_;  // --drm-device, when opened; closed after the display

  // Teardown is member order: what is declared below goes first. So the
  // display goes last, then the renderer, the scene, the seat, the shell,
  // outputs and windows; before them the backend (its outputs and input
  // devices unhook their shadows), and before it the protocols, the
  // listeners, the timing protocols, the clients and Xwayland.
  Owned<wl_display, wl_display_destroy> display_;
  wl_event_loop* event_loop_ = nullptr;
  std::string socket_name_;
  BackendChoice backend_kind_ = BackendChoice::headless;
  std::unique_ptr<RenderStack> render_;  // owns renderer_ and allocator_
  wlr_renderer* renderer_ = nullptr;
  const char* renderer_name_ = "";
  wlr_allocator* allocator_ = nullptr;
  std::unique_ptr<LinuxDmabuf> linux_dmabuf_;
  bool advertises_dmabuf_ = false;
  Owned<wlr_scene, destroy_scene> scene_;
  wlr_compositor* compositor_ = nullptr;
  wlr_output_layout* output_layout_ = nullptr;
  wlr_scene_output_layout* scene_layout_ = nullptr;
  SceneLayers layers_;
  wlr_xdg_shell* xdg_shell_ = nullptr;
  wlr_tearing_control_manager_v1* tearing_control_ = nullptr;
  wlr_content_type_manager_v1* content_type_ = nullptr;
  wlr_seat* wlr_seat_ = nullptr;
  Owned<wlr_cursor, destroy_cursor> cursor_;         // after the Seat that listens to it
  std::unique_ptr<OutputContext> output_context_;    // shared by every Output
  std::unique_ptr<DesktopContext> desktop_context_;  // shared by every window
  std::unique_ptr<SurfaceCommits> surface_commits_;  // the Seat listens to it
  std::unique_ptr<Seat> seat_;
  std::unique_ptr<LayerShell> layer_shell_;
  std::unique_ptr<Outputs> outputs_;
  std::unique_ptr<Windows> windows_;
  Owned<wlr_backend, destroy_backend> backend_;
  wlr_session* session_ = nullptr;  // the backend's
  std::unique_ptr<DesktopProtocols> protocols_;
  std::unique_ptr<SessionLock> session_lock_;
  std::unique_ptr<VirtualInput> virtual_input_;
  std::unique_ptr<DrmLeases> drm_leases_;  // null without a DRM backend

  Listener<void> backend_destroy_;
  Listener<wlr_output> new_output_;
  Listener<wlr_input_device> new_input_;
  Listener<wlr_xdg_toplevel> new_toplevel_;
  Listener<wlr_xdg_popup> new_popup_;
  Listener<void> session_active_;

  // Every client buffer baton showed goes back through it; it outlives the
  // explicit-sync global, whose release points it pays.
  std::unique_ptr<ReleaseTracker> releases_;
  std::unique_ptr<LinuxDrmSyncobj> syncobj_;
  std::unique_ptr<HoldQueue> hold_queue_;        // its producers, below, go first
  std::unique_ptr<BufferFences> buffer_fences_;  // what the gate's commits wait for
  std::unique_ptr<ReadinessGate> gate_;
  std::unique_ptr<Fifo> fifo_;
  std::unique_ptr<CommitTiming> commit_timing_;
  std::unique_ptr<ColorRepresentationManager> color_representation_;
  /// The clients go before the protocols they use: their surfaces, held
  /// commits and timelines are freed while those still exist.
  struct ClientsGoFirst {
    wl_display* display = nullptr;
    ClientsGoFirst() = default;
    ClientsGoFirst(const ClientsGoFirst&) = delete;
    ClientsGoFirst& operator=(const ClientsGoFirst&) = delete;
    ~ClientsGoFirst();
  } clients_;
  std::unique_ptr<Xwayland> xwayland_;  // its windows go while the scene and seat exist
  std::unique_ptr<Launcher> launcher_;
  std::unique_ptr<ScreenshotWriter> screenshot_writer_;
  Connection screenshot_on_map_;
  /// Each Output's fullscreen surface on KMS gets scanout feedback (linux-dmabuf).
  std::unordered_map<const Output*, Connection> scanout_feedback_;
  std::optional<pid_t> session_pid_;  // the first startup command
};

}  // namespace baton
