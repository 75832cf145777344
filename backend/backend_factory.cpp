#include "backend/backend_factory.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

bool env_set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0';
}

bool has_gpu_device() {
  struct stat st {};
  return stat("/dev/dri", &st) == 0 && S_ISDIR(st.st_mode);
}

// True when started from a text console: the session type says so, or stdin
// is a virtual terminal.
bool on_virtual_terminal() {
  const char* type = std::getenv("XDG_SESSION_TYPE");
  if (type != nullptr && std::strcmp(type, "tty") == 0) return true;
  const char* tty = isatty(STDIN_FILENO) ? ttyname(STDIN_FILENO) : nullptr;
  return tty != nullptr && std::strncmp(tty, "/dev/tty", 8) == 0 && tty[8] >= '0' && tty[8] <= '9';
}

// Undoes what was made and says why, naming the backend.
Error fail(const CreatedBackend& result, std::string why) {
  if (result.backend != nullptr) wlr_backend_destroy(result.backend);
  return failure(std::string("backend '") + backend_name(result.kind) + "' unavailable",
                 std::move(why));
}

Result<CreatedBackend> create_drm(wl_event_loop* loop) {
  CreatedBackend result;
  result.kind = BackendChoice::drm;
  // Without any DRM driver loaded, wlroots would wait 10 s for a card to
  // appear; say so at once instead.
  if (!has_gpu_device() && std::getenv("WLR_DRM_DEVICES") == nullptr)
    return fail(result,
                "the DRM backend needs a GPU with a kernel display driver: /dev/dri does not "
                "exist (nested in a window or headless, baton runs without one)");
  wlr_session* session = wlr_session_create(loop);
  if (session == nullptr)
    return fail(result,
                "the DRM backend needs a seat: no session could be opened through libseat "
                "(start baton from a VT or a display manager, with seatd or logind running)");
  result.session = session;
  result.backend = wlr_multi_backend_create(loop);
  wlr_device* gpus[8];
  ssize_t n = wlr_session_find_gpus(session, 8, gpus);
  if (n <= 0) {
    // wlroots only takes cards whose udev ID_SEAT (default seat0) is the
    // session's seat; libseat's noop backend calls its seat "noop".
    std::string why = std::string("the DRM backend found no GPU on seat '") + session->seat +
                      "' (no usable /dev/dri/card* device";
    if (std::strcmp(session->seat, "seat0") != 0)
      why +=
          ", or none assigned to this seat: run seatd or logind, or name the cards in "
          "WLR_DRM_DEVICES";
    why += ")";
    wlr_session_destroy(session);
    return fail(result, why);
  }
  wlr_backend* primary = nullptr;
  for (ssize_t i = 0; i < n; ++i) {
    wlr_backend* drm = wlr_drm_backend_create(session, gpus[i], primary);
    if (drm == nullptr) continue;
    if (primary == nullptr) primary = drm;
    wlr_multi_backend_add(result.backend, drm);
  }
  if (primary == nullptr) {
    wlr_session_destroy(session);
    return fail(result, "no DRM device could be opened (see the wlroots messages above)");
  }
  if (wlr_backend* input = wlr_libinput_backend_create(session); input != nullptr)
    wlr_multi_backend_add(result.backend, input);
  else
    LOG_ERROR("libinput backend unavailable: running without input devices");
  return result;
}

}  // namespace

BackendChoice resolve_backend(BackendChoice requested) {
  if (requested != BackendChoice::automatic) return requested;
  if (env_set("WAYLAND_DISPLAY")) return BackendChoice::wayland;
  if (env_set("DISPLAY")) return BackendChoice::x11;
  if (has_gpu_device() && on_virtual_terminal()) return BackendChoice::drm;
  return BackendChoice::headless;
}

const char* backend_name(BackendChoice choice) {
  switch (choice) {
    case BackendChoice::automatic:
      return "auto";
    case BackendChoice::headless:
      return "headless";
    case BackendChoice::wayland:
      return "wayland";
    case BackendChoice::x11:
      return "x11";
    case BackendChoice::drm:
      return "drm";
  }
  return "?";
}

Result<CreatedBackend> create_backend(wl_event_loop* loop, const BackendOptions& options) {
  CreatedBackend result;
  result.kind = resolve_backend(options.backend);
  switch (result.kind) {
    case BackendChoice::headless: {
      result.backend = wlr_headless_backend_create(loop);
      if (result.backend == nullptr) return fail(result, "the headless backend failed to start");
      for (int i = 0; i < options.outputs; ++i)
        wlr_headless_add_output(result.backend, static_cast<unsigned>(options.headless_size.width),
                                static_cast<unsigned>(options.headless_size.height));
      return result;
    }
    case BackendChoice::wayland: {
      if (!env_set("WAYLAND_DISPLAY") && !env_set("WAYLAND_SOCKET"))
        return fail(result,
                    "the wayland backend needs a parent compositor: WAYLAND_DISPLAY is not set");
      result.backend = wlr_wl_backend_create(loop, nullptr);
      if (result.backend == nullptr)
        return fail(result,
                    std::string("the wayland backend could not connect to the parent "
                                "compositor at WAYLAND_DISPLAY=") +
                        (std::getenv("WAYLAND_DISPLAY") ? std::getenv("WAYLAND_DISPLAY") : ""));
      for (int i = 0; i < options.outputs; ++i) wlr_wl_output_create(result.backend);
      return result;
    }
    case BackendChoice::x11: {
      if (!env_set("DISPLAY"))
        return fail(result, "the x11 backend needs an X server: DISPLAY is not set");
      result.backend = wlr_x11_backend_create(loop, nullptr);
      if (result.backend == nullptr)
        return fail(result,
                    std::string("the x11 backend could not connect to the X server at DISPLAY=") +
                        std::getenv("DISPLAY"));
      for (int i = 0; i < options.outputs; ++i) wlr_x11_output_create(result.backend);
      return result;
    }
    case BackendChoice::drm:
      return create_drm(loop);
    case BackendChoice::automatic:
      break;
  }
  return fail(result, "no backend chosen");
}

}  // namespace baton
