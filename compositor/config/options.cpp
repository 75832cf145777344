#include "compositor/config/options.hpp"

#include <charconv>
#include <cstdlib>
#include <functional>
#include <map>

namespace baton {
namespace {

std::optional<int> parse_int(std::string_view text, int min, int max) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < min || value > max) return std::nullopt;
  return value;
}

std::optional<BackendChoice> parse_backend(std::string_view text) {
  static const std::map<std::string_view, BackendChoice> names = {
      {"auto", BackendChoice::automatic},
      {"headless", BackendChoice::headless},
      {"wayland", BackendChoice::wayland},
      {"x11", BackendChoice::x11},
      {"drm", BackendChoice::drm}};
  auto it = names.find(text);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

std::optional<RendererChoice> parse_renderer(std::string_view text) {
  if (text == "auto") return RendererChoice::automatic;
  if (text == "vulkan") return RendererChoice::vulkan;
  if (text == "pixman") return RendererChoice::pixman;
  return std::nullopt;
}

std::optional<CompositingChoice> parse_compositing(std::string_view text) {
  if (text == "auto") return CompositingChoice::automatic;
  if (text == "raster") return CompositingChoice::raster;
  if (text == "compute") return CompositingChoice::compute;
  return std::nullopt;
}

}  // namespace

std::optional<RenderDeadline> parse_render_deadline(std::string_view text) {
  if (text == "auto") return RenderDeadline{};
  if (text == "off") return RenderDeadline{RenderDeadline::Mode::off, 0};
  std::string copy(text);
  char* end = nullptr;
  const double ms = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !(ms >= 0.1 && ms <= 100))
    return std::nullopt;
  return RenderDeadline{RenderDeadline::Mode::fixed, static_cast<int64_t>(ms * 1e6)};
}

std::optional<OutputSize> parse_output_size(std::string_view text) {
  OutputSize size;
  auto at = text.find('@');
  std::string_view dims = text.substr(0, at);
  auto x = dims.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  auto w = parse_int(dims.substr(0, x), 1, 16384);
  auto h = parse_int(dims.substr(x + 1), 1, 16384);
  if (!w || !h) return std::nullopt;
  size.width = *w;
  size.height = *h;
  if (at != std::string_view::npos) {
    auto hz = parse_int(text.substr(at + 1), 1, 1000);
    if (!hz) return std::nullopt;
    size.refresh_mhz = *hz * 1000;
  }
  return size;
}

std::optional<uint32_t> parse_colour(std::string_view text) {
  if (text.starts_with('#')) text.remove_prefix(1);
  if (text.size() != 6) return std::nullopt;
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string usage_text(std::string_view program) {
  std::string text = "Usage: ";
  text += program;
  text += R"( [options]

  -h, --help                 Show this help and exit.
  -v, --version              Show the version and exit.
  -s, --startup CMD          Run CMD (through /bin/sh) once baton is ready. Repeatable.
      --exit-with-session    Exit when the first startup command exits.
      --session              Started as a desktop session (the installed
                             baton.desktop does this): also log to
                             $XDG_STATE_HOME/baton/log (~/.local/state/...),
                             the previous run's kept as log.old.
      --backend NAME         auto|headless|wayland|x11|drm (default auto: nested
                             when WAYLAND_DISPLAY or DISPLAY is set, DRM when a
                             seat and a GPU are available, headless otherwise).
      --renderer NAME        auto|vulkan|pixman (default auto: Vulkan on a GPU,
                             pixman where every usable Vulkan device is a CPU,
                             such as lavapipe, or there is none).
      --vulkan-device NAME|INDEX
                             Render on this Vulkan device (index or part of
                             its name) instead of the one baton picks.
      --compositing PATH     auto|raster|compute: how the Vulkan renderer
                             composites (default auto: compute dispatches on
                             discrete GPUs, raster draws elsewhere).
      --swapchain-slots N    Buffers per output for the Vulkan renderer (2..8,
                             default 3).
      --headless-size WxH[@Hz]
                             Size of headless outputs (default 1280x720@60).
      --outputs N            Number of headless or nested outputs (default 1).
      --screenshot PATH      Write a PNG of each output once the first client
                             window has drawn (PATH gets -N before .png for
                             output N > 0).
      --screenshot-delay MS  Wait MS after the first window maps (default 300).
      --readiness-gate on|off
                             off latches commits once their acquire fence
                             exists and lets the render wait for it, as
                             wlroots does: a slow client then delays every
                             output (for comparisons; default on).
      --trace PATH           Record every output frame's fences (buffers let
                             through the readiness gate, render, KMS commit,
                             flip, out-fence) as Chrome/Perfetto trace JSON;
                             build/bench/baton-trace-png draws it.
      --exit-after-screenshot
                             Exit once the screenshot is written.
      --xwayland MODE        lazy|eager|off: start Xwayland on the first X11
                             client (default), at start-up, or never.
      --cadence MODE         auto|damage|fixed: when outputs render (default
                             auto: fixed cadence for fullscreen games).
      --render-deadline auto|off|MS
                             When outputs with a real vblank start a frame:
                             auto (default) predicts the render time and
                             starts that long (plus a margin) before vblank;
                             off renders right after the previous flip; MS
                             starts MS milliseconds before vblank.
      --game-fps N           auto cadence treats a fullscreen surface committing
                             faster than N per second as a game (default 30).
      --tearing POLICY       fullscreen|off: honour a fullscreen surface's
                             tearing-control async hint (default fullscreen).
      --drm-device PATH      DRM node for explicit sync (and dma-buf feedback)
                             instead of the backend's or renderer's (e.g.
                             headless with a Vulkan device that has no DRM
                             node, or a display device without timelines).
      --socket NAME          Listen on NAME instead of the first free wayland-N.
      --background COLOR     Solid background colour, #rrggbb (default #292e38).
  -c, --config PATH          Read configuration from PATH.
  -d, --debug                Verbose logging.
)";
  return text;
}

Result<ParsedCommandLine> parse_command_line(const std::vector<std::string_view>& args) {
  ParsedCommandLine result;
  Options& o = result.options;
  auto fail = [](std::string message) -> Error { return failure("", std::move(message)); };

  for (size_t i = 1; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string_view inline_value;
    bool has_inline = false;
    if (arg.starts_with("--")) {
      if (auto eq = arg.find('='); eq != std::string_view::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    // Fetches the option's value: inline (--x=v) or the next argument.
    auto value = [&](std::string_view& out) {
      if (has_inline) {
        out = inline_value;
        return true;
      }
      if (i + 1 >= args.size()) return false;
      out = args[++i];
      return true;
    };
    std::string_view v;
    auto needs_value = [&]() { return !value(v); };

    if (arg == "-h" || arg == "--help") {
      result.action = ParsedCommandLine::Action::help;
      return result;
    } else if (arg == "-v" || arg == "--version") {
      result.action = ParsedCommandLine::Action::version;
      return result;
    } else if (arg == "-d" || arg == "--debug") {
      o.debug = true;
    } else if (arg == "--exit-with-session") {
      o.exit_with_session = true;
    } else if (arg == "--session") {
      o.session = true;
    } else if (arg == "--exit-after-screenshot") {
      o.exit_after_screenshot = true;
    } else if (arg == "-s" || arg == "--startup") {
      if (needs_value()) return fail("option " + std::string(arg) + " needs a command");
      o.startup_commands.emplace_back(v);
    } else if (arg == "--backend") {
      if (needs_value()) return fail("option --backend needs a value");
      auto b = parse_backend(v);
      if (!b)
        return fail("unknown backend '" + std::string(v) + "' (auto|headless|wayland|x11|drm)");
      o.backend = *b;
    } else if (arg == "--renderer") {
      if (needs_value()) return fail("option --renderer needs a value");
      auto r = parse_renderer(v);
      if (!r) return fail("unknown renderer '" + std::string(v) + "' (auto|vulkan|pixman)");
      o.renderer = *r;
    } else if (arg == "--vulkan-device") {
      if (needs_value() || v.empty()) return fail("option --vulkan-device needs a name or index");
      o.vulkan_device = std::string(v);
    } else if (arg == "--compositing") {
      if (needs_value()) return fail("option --compositing needs a value");
      auto c = parse_compositing(v);
      if (!c) return fail("unknown compositing '" + std::string(v) + "' (auto|raster|compute)");
      o.compositing = *c;
    } else if (arg == "--swapchain-slots") {
      if (needs_value()) return fail("option --swapchain-slots needs a number");
      auto n = parse_int(v, 2, 8);
      if (!n) return fail("bad --swapchain-slots '" + std::string(v) + "' (2..8)");
      o.swapchain_slots = *n;
    } else if (arg == "--headless-size") {
      if (needs_value()) return fail("option --headless-size needs WxH[@Hz]");
      auto size = parse_output_size(v);
      if (!size) return fail("bad --headless-size '" + std::string(v) + "' (expected WxH[@Hz])");
      o.headless_size = *size;
    } else if (arg == "--outputs") {
      if (needs_value()) return fail("option --outputs needs a number");
      auto n = parse_int(v, 1, 16);
      if (!n) return fail("bad --outputs '" + std::string(v) + "' (1..16)");
      o.outputs = *n;
    } else if (arg == "--screenshot") {
      if (needs_value()) return fail("option --screenshot needs a path");
      o.screenshot_path = std::string(v);
    } else if (arg == "--readiness-gate") {
      if (needs_value() || (v != "on" && v != "off"))
        return fail("option --readiness-gate needs on or off");
      o.readiness_gate = v == "on";
    } else if (arg == "--trace") {
      if (needs_value() || v.empty()) return fail("option --trace needs a path");
      o.trace_path = std::string(v);
    } else if (arg == "--screenshot-delay") {
      if (needs_value()) return fail("option --screenshot-delay needs milliseconds");
      auto ms = parse_int(v, 0, 600000);
      if (!ms) return fail("bad --screenshot-delay '" + std::string(v) + "'");
      o.screenshot_delay_ms = *ms;
    } else if (arg == "--drm-device") {
      if (needs_value() || v.empty()) return fail("option --drm-device needs a path");
      o.drm_device = std::string(v);
    } else if (arg == "--socket") {
      if (needs_value()) return fail("option --socket needs a name");
      o.socket_name = std::string(v);
    } else if (arg == "--xwayland") {
      if (needs_value()) return fail("option --xwayland needs lazy|eager|off");
      if (v == "lazy")
        o.xwayland = XwaylandMode::lazy;
      else if (v == "eager")
        o.xwayland = XwaylandMode::eager;
      else if (v == "off")
        o.xwayland = XwaylandMode::off;
      else
        return fail("unknown --xwayland mode '" + std::string(v) + "' (lazy|eager|off)");
    } else if (arg == "--cadence") {
      if (needs_value()) return fail("option --cadence needs auto|damage|fixed");
      if (v == "auto")
        o.cadence = CadenceMode::automatic;
      else if (v == "damage")
        o.cadence = CadenceMode::damage;
      else if (v == "fixed")
        o.cadence = CadenceMode::fixed;
      else
        return fail("unknown --cadence '" + std::string(v) + "' (auto|damage|fixed)");
    } else if (arg == "--render-deadline") {
      if (needs_value()) return fail("option --render-deadline needs auto|off|MS");
      o.render_deadline = parse_render_deadline(v);
      if (!o.render_deadline)
        return fail("bad --render-deadline '" + std::string(v) + "' (auto|off|0.1..100 ms)");
    } else if (arg == "--game-fps") {
      if (needs_value()) return fail("option --game-fps needs a number");
      auto fps = parse_int(v, 1, 1000);
      if (!fps) return fail("bad --game-fps '" + std::string(v) + "' (1..1000)");
      o.game_fps = *fps;
    } else if (arg == "--tearing") {
      if (needs_value()) return fail("option --tearing needs fullscreen|off");
      if (v == "fullscreen")
        o.tearing = TearingPolicy::fullscreen;
      else if (v == "off")
        o.tearing = TearingPolicy::off;
      else
        return fail("unknown --tearing '" + std::string(v) + "' (fullscreen|off)");
    } else if (arg == "--background") {
      if (needs_value()) return fail("option --background needs a colour");
      auto colour = parse_colour(v);
      if (!colour) return fail("bad --background '" + std::string(v) + "' (expected #rrggbb)");
      o.background = *colour;
      o.background_set = true;
    } else if (arg == "-c" || arg == "--config") {
      if (needs_value()) return fail("option " + std::string(arg) + " needs a path");
      o.config_path = std::string(v);
    } else {
      return fail("unknown option '" + std::string(args[i]) + "'");
    }
  }
  if (o.exit_after_screenshot && !o.screenshot_path)
    return fail("--exit-after-screenshot needs --screenshot PATH");
  return result;
}

}  // namespace baton
