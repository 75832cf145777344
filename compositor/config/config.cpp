#include "compositor/config/config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "compositor/config/layout_reach.hpp"
#include "compositor/config/options.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    auto at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return parts;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<int> to_int(std::string_view s) {
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Collects errors against one file while walking its tables.
class Reader {
 public:
  Reader(const std::string& file, std::vector<ConfigError>& errors)
      : file_(file), errors_(errors) {}

  void error(const toml::node& node, std::string reason) {
    errors_.push_back({file_, static_cast<int>(node.source().begin.line), std::move(reason)});
  }
  void error(int line, std::string reason) { errors_.push_back({file_, line, std::move(reason)}); }

  template <typename T>
  std::optional<T> get(const toml::node& node, const std::string& key, const char* what) {
    if (auto value = node.value<T>()) return value;
    error(node, "'" + key + "' must be " + what);
    return std::nullopt;
  }
  std::optional<bool> boolean(const toml::node& n, const std::string& k) {
    if (!n.is_boolean()) {
      error(n, "'" + k + "' must be true or false");
      return std::nullopt;
    }
    return n.value<bool>();
  }
  std::optional<std::string> string(const toml::node& n, const std::string& k) {
    if (!n.is_string()) {
      error(n, "'" + k + "' must be a string");
      return std::nullopt;
    }
    return n.value<std::string>();
  }
  std::optional<int64_t> integer(const toml::node& n, const std::string& k, int64_t min,
                                 int64_t max) {
    auto v = n.is_integer() ? n.value<int64_t>() : std::nullopt;
    if (!v || *v < min || *v > max) {
      error(n, "'" + k + "' must be an integer in " + std::to_string(min) + ".." +
                   std::to_string(max));
      return std::nullopt;
    }
    return v;
  }
  std::optional<double> number(const toml::node& n, const std::string& k, double min, double max) {
    auto v = (n.is_floating_point() || n.is_integer()) ? n.value<double>() : std::nullopt;
    if (!v || *v < min || *v > max) {
      std::ostringstream range;
      range << min << ".." << max;
      error(n, "'" + k + "' must be a number in " + range.str());
      return std::nullopt;
    }
    return v;
  }
  std::optional<uint32_t> colour(const toml::node& n, const std::string& k) {
    auto s = string(n, k);
    if (!s) return std::nullopt;
    auto c = parse_colour(*s);
    if (!c) error(n, "'" + k + "' must be a colour \"#rrggbb\", not \"" + *s + "\"");
    return c;
  }

 private:
  const std::string& file_;
  std::vector<ConfigError>& errors_;
};

std::optional<int> parse_transform(std::string_view s) {
  static const std::map<std::string_view, int> names = {
      {"normal", WL_OUTPUT_TRANSFORM_NORMAL},
      {"0", WL_OUTPUT_TRANSFORM_NORMAL},
      {"90", WL_OUTPUT_TRANSFORM_90},
      {"180", WL_OUTPUT_TRANSFORM_180},
      {"270", WL_OUTPUT_TRANSFORM_270},
      {"flipped", WL_OUTPUT_TRANSFORM_FLIPPED},
      {"flipped-90", WL_OUTPUT_TRANSFORM_FLIPPED_90},
      {"flipped-180", WL_OUTPUT_TRANSFORM_FLIPPED_180},
      {"flipped-270", WL_OUTPUT_TRANSFORM_FLIPPED_270}};
  auto it = names.find(s);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

void read_keybindings(Reader& r, const toml::table& table, Config& config) {
  for (auto&& [key, node] : table) {
    std::string combo(key.str());
    KeyBinding binding;
    binding.text = combo;
    auto keys = parse_key_combo(combo);
    if (!keys) {
      r.error(node,
              std::string("key binding '").append(combo).append("': ").append(keys.error().reason));
      continue;
    }
    binding.modifiers = keys->modifiers;
    binding.keysym = keys->keysym;
    auto text = r.string(node, combo);
    if (!text) continue;
    auto action = parse_action(*text);
    if (!action) {
      r.error(
          node,
          std::string("key binding '").append(combo).append("': ").append(action.error().reason));
      continue;
    }
    binding.action = *action;
    // A later line for the same keys replaces the earlier one.
    std::erase_if(config.bindings, [&](const KeyBinding& b) {
      return b.modifiers == binding.modifiers && b.keysym == binding.keysym;
    });
    config.bindings.push_back(std::move(binding));
  }
}

void read_output(Reader& r, const toml::table& table, Config& config) {
  OutputConfig out;
  bool named = false;
  for (auto&& [key, node] : table) {
    std::string k(key.str());
    if (k == "name") {
      if (auto s = r.string(node, k)) {
        out.name = *s;
        named = true;
      }
    } else if (k == "enabled") {
      out.enabled = r.boolean(node, k);
    } else if (k == "mode") {
      auto s = r.string(node, k);
      if (!s) continue;
      auto size = parse_output_size(*s);
      if (!size) {
        r.error(node, "'mode' must be \"WIDTHxHEIGHT\" or \"WIDTHxHEIGHT@HZ\", not \"" + *s + "\"");
        continue;
      }
      out.mode = std::pair{size->width, size->height};
      if (s->find('@') != std::string::npos) out.refresh_mhz = size->refresh_mhz;
    } else if (k == "refresh") {
      if (auto hz = r.number(node, k, 1, 1000))
        out.refresh_mhz = static_cast<int>(std::lround(*hz * 1000));
    } else if (k == "scale") {
      out.scale = r.number(node, k, 0.25, 10);
    } else if (k == "transform") {
      auto s = r.string(node, k);
      if (!s) continue;
      out.transform = parse_transform(*s);
      if (!out.transform)
        r.error(node,
                "'transform' must be normal, 90, 180, 270, flipped, flipped-90, flipped-180 or "
                "flipped-270");
    } else if (k == "position") {
      const toml::array* a = node.as_array();
      if (a == nullptr || a->size() != 2 || !(*a)[0].is_integer() || !(*a)[1].is_integer()) {
        r.error(node, "'position' must be [x, y]");
        continue;
      }
      const int64_t x = *(*a)[0].value<int64_t>();
      const int64_t y = *(*a)[1].value<int64_t>();
      if (!within_layout_reach(x, y)) {
        r.error(node, "'position' must be within " + std::to_string(kLayoutReach) +
                          " pixels of 0 on each axis");
        continue;
      }
      out.position = std::pair{static_cast<int>(x), static_cast<int>(y)};
    } else if (k == "adaptive_sync") {
      // true and false are kept from when it was a switch.
      if (node.is_boolean()) {
        out.adaptive_sync = *node.value<bool>() ? AdaptiveSyncMode::on : AdaptiveSyncMode::off;
        continue;
      }
      auto s = node.is_string() ? node.value<std::string>() : std::nullopt;
      if (s && *s == "off")
        out.adaptive_sync = AdaptiveSyncMode::off;
      else if (s && *s == "on")
        out.adaptive_sync = AdaptiveSyncMode::on;
      else if (s && *s == "game")
        out.adaptive_sync = AdaptiveSyncMode::game;
      else
        r.error(node, "'adaptive_sync' must be \"off\", \"on\" or \"game\"");
    } else if (k == "low_framerate_compensation") {
      out.low_framerate_compensation = r.boolean(node, k);
    } else if (k == "max_fps") {
      if (auto fps = r.number(node, k, 1, 1000)) out.max_fps = static_cast<int>(std::lround(*fps));
    } else if (k == "leasable") {
      out.leasable = r.boolean(node, k);
    } else if (k == "cadence") {
      auto s = r.string(node, k);
      if (!s) continue;
      if (*s == "auto")
        out.cadence = CadenceMode::automatic;
      else if (*s == "damage")
        out.cadence = CadenceMode::damage;
      else if (*s == "fixed")
        out.cadence = CadenceMode::fixed;
      else
        r.error(node, "'cadence' must be auto, damage or fixed");
    } else if (k == "tearing") {
      out.tearing = r.boolean(node, k);
    } else if (k == "render_deadline") {
      // A number of milliseconds, or "auto" / "off" / "2.5".
      std::optional<RenderDeadline> deadline;
      if (node.is_integer() || node.is_floating_point())
        deadline = parse_render_deadline(std::to_string(node.value<double>().value_or(-1)));
      else if (node.is_string())
        deadline = parse_render_deadline(*node.value<std::string>());
      if (deadline)
        out.render_deadline = deadline;
      else
        r.error(node, "'render_deadline' must be \"auto\", \"off\" or milliseconds (0.1 to 100)");
    } else {
      r.error(node, "unknown output setting '" + k + "'");
    }
  }
  if (!named) {
    r.error(static_cast<int>(table.source().begin.line),
            "[[output]] needs a name (a connector, or \"*\")");
    return;
  }
  config.outputs.push_back(std::move(out));
}

void read_input(Reader& r, const toml::table& table, Config& config) {
  InputConfig in;
  for (auto&& [key, node] : table) {
    std::string k(key.str());
    auto str = [&, &node = node](std::optional<std::string>& field) { field = r.string(node, k); };
    if (k == "type") {
      auto s = r.string(node, k);
      if (!s) continue;
      if (*s != "keyboard" && *s != "pointer" && *s != "touchpad" && *s != "touch" &&
          *s != "tablet") {
        r.error(node, "'type' must be keyboard, pointer, touchpad, touch or tablet");
        continue;
      }
      in.type = *s;
    } else if (k == "name") {
      if (auto s = r.string(node, k)) in.name = *s;
    } else if (k == "xkb_rules") {
      str(in.xkb_rules);
    } else if (k == "xkb_model") {
      str(in.xkb_model);
    } else if (k == "xkb_layout") {
      str(in.xkb_layout);
    } else if (k == "xkb_variant") {
      str(in.xkb_variant);
    } else if (k == "xkb_options") {
      str(in.xkb_options);
    } else if (k == "repeat_rate") {
      if (auto v = r.integer(node, k, 0, 1000)) in.repeat_rate = static_cast<int>(*v);
    } else if (k == "repeat_delay") {
      if (auto v = r.integer(node, k, 0, 10000)) in.repeat_delay = static_cast<int>(*v);
    } else if (k == "accel") {
      in.accel = r.number(node, k, -1, 1);
    } else if (k == "accel_profile") {
      auto s = r.string(node, k);
      if (!s) continue;
      if (*s == "flat")
        in.accel_profile = InputConfig::AccelProfile::flat;
      else if (*s == "adaptive")
        in.accel_profile = InputConfig::AccelProfile::adaptive;
      else
        r.error(node, "'accel_profile' must be flat or adaptive");
    } else if (k == "natural_scroll") {
      in.natural_scroll = r.boolean(node, k);
    } else if (k == "tap") {
      in.tap = r.boolean(node, k);
    } else if (k == "map_to_output") {
      str(in.map_to_output);
    } else {
      r.error(node, "unknown input setting '" + k + "'");
    }
  }
  config.inputs.push_back(std::move(in));
}

void read_document(Reader& r, const toml::table& root, Config& config) {
  bool has_bindings = false;
  for (auto&& [key, node] : root) {
    std::string k(key.str());
    if (k == "keybindings") {
      if (const toml::table* t = node.as_table()) {
        has_bindings = true;
        read_keybindings(r, *t, config);
      } else {
        r.error(node, "'keybindings' must be a table");
      }
    } else if (k == "output" || k == "input") {
      const toml::array* a = node.as_array();
      if (a == nullptr) {
        r.error(node, "use [[" + k + "]] (an array of tables)");
        continue;
      }
      for (const toml::node& item : *a) {
        if (const toml::table* t = item.as_table())
          k == "output" ? read_output(r, *t, config) : read_input(r, *t, config);
        else
          r.error(item, "[[" + k + "]] entries must be tables");
      }
    } else if (k == "startup") {
      const toml::array* a = node.as_array();
      if (a == nullptr) {
        r.error(node, "'startup' must be an array of commands");
        continue;
      }
      for (const toml::node& item : *a)
        if (auto s = r.string(item, "startup")) config.startup.push_back(*s);
    } else if (k == "background") {
      config.background = r.colour(node, k);
    } else if (k == "renderer") {
      auto s = r.string(node, k);
      if (!s) continue;
      if (*s == "auto")
        config.renderer = RendererChoice::automatic;
      else if (*s == "vulkan")
        config.renderer = RendererChoice::vulkan;
      else if (*s == "pixman")
        config.renderer = RendererChoice::pixman;
      else
        r.error(node, "'renderer' must be auto, vulkan or pixman");
    } else if (k == "swapchain_slots") {
      if (auto v = r.integer(node, k, 2, 8)) config.swapchain_slots = static_cast<int>(*v);
    } else if (k == "activation_timeout") {
      if (auto v = r.number(node, k, 0.01, 3600))
        config.activation_timeout_ms = static_cast<int>(*v * 1000);
    } else if (k == "games") {
      const toml::table* t = node.as_table();
      if (t == nullptr) {
        r.error(node, "'games' must be a table");
        continue;
      }
      for (auto&& [gkey, gnode] : *t) {
        std::string gk(gkey.str());
        if (gk == "game_fps") {
          if (auto v = r.integer(gnode, gk, 1, 1000)) config.games.game_fps = static_cast<int>(*v);
        } else if (gk == "tearing") {
          auto s = r.string(gnode, gk);
          if (!s) continue;
          if (*s == "fullscreen")
            config.games.tearing = TearingPolicy::fullscreen;
          else if (*s == "off")
            config.games.tearing = TearingPolicy::off;
          else
            r.error(gnode, "'tearing' must be fullscreen or off");
        } else if (gk == "no_tearing_apps") {
          const toml::array* a = gnode.as_array();
          if (a == nullptr) {
            r.error(gnode, "'no_tearing_apps' must be an array of app ids");
            continue;
          }
          for (const toml::node& item : *a)
            if (auto s = r.string(item, gk)) config.games.no_tearing_apps.push_back(*s);
        } else {
          r.error(gnode, "unknown games setting '" + gk + "'");
        }
      }
    } else if (k == "decoration") {
      const toml::table* t = node.as_table();
      if (t == nullptr) {
        r.error(node, "'decoration' must be a table");
        continue;
      }
      for (auto&& [dkey, dnode] : *t) {
        std::string dk(dkey.str());
        std::optional<uint32_t> c = r.colour(dnode, dk);
        if (!c) continue;
        if (dk == "focused")
          config.focused_colour = *c;
        else if (dk == "unfocused")
          config.unfocused_colour = *c;
        else if (dk == "title")
          config.title_colour = *c;
        else if (dk == "urgent")
          config.urgent_colour = *c;
        else
          r.error(dnode, "unknown decoration setting '" + dk + "'");
      }
    } else {
      r.error(node, "unknown setting '" + k + "'");
    }
  }
  if (!has_bindings) config.bindings = default_bindings();
}

}  // namespace

std::string ConfigError::to_string() const {
  return file + ":" + std::to_string(line) + ": " + reason;
}

std::vector<const InputConfig*> Config::inputs_for(std::string_view type,
                                                   std::string_view name) const {
  std::vector<const InputConfig*> result;
  for (const auto& in : inputs)
    if (in.name.empty() && (in.type.empty() || in.type == type)) result.push_back(&in);
  for (const auto& in : inputs)
    if (!in.name.empty() && in.name == name && (in.type.empty() || in.type == type))
      result.push_back(&in);
  return result;
}

std::vector<const OutputConfig*> Config::outputs_for(std::string_view name) const {
  std::vector<const OutputConfig*> result;
  for (const auto& out : outputs)
    if (out.name == "*") result.push_back(&out);
  for (const auto& out : outputs)
    if (out.name == name) result.push_back(&out);
  return result;
}

Result<KeyCombo> parse_key_combo(std::string_view text) {
  static const std::map<std::string, uint32_t> mods = {
      {"super", WLR_MODIFIER_LOGO},  {"logo", WLR_MODIFIER_LOGO}, {"mod4", WLR_MODIFIER_LOGO},
      {"shift", WLR_MODIFIER_SHIFT}, {"ctrl", WLR_MODIFIER_CTRL}, {"control", WLR_MODIFIER_CTRL},
      {"alt", WLR_MODIFIER_ALT},     {"mod1", WLR_MODIFIER_ALT},  {"altgr", WLR_MODIFIER_MOD5},
      {"mod5", WLR_MODIFIER_MOD5}};
  KeyCombo combo;
  auto parts = split(text, '+');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto it = mods.find(lower(trim(parts[i])));
    if (it == mods.end()) {
      return failure("key combination", "unknown modifier '" + std::string(trim(parts[i])) + "'");
    }
    combo.modifiers |= it->second;
  }
  std::string name(trim(parts.back()));
  xkb_keysym_t sym = xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_NO_FLAGS);
  if (sym == XKB_KEY_NoSymbol)
    sym = xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_CASE_INSENSITIVE);
  if (sym == XKB_KEY_NoSymbol) {
    return failure("key combination", "unknown key '" + name + "'");
  }
  combo.keysym = xkb_keysym_to_lower(sym);
  return combo;
}

Result<Action> parse_action(std::string_view text) {
  text = trim(text);
  auto space = text.find(' ');
  std::string verb(text.substr(0, space));
  std::string_view rest = space == std::string_view::npos ? "" : trim(text.substr(space + 1));
  static const std::map<std::string, ActionKind> simple = {
      {"close", ActionKind::close},           {"focus_next", ActionKind::focus_next},
      {"focus_prev", ActionKind::focus_prev}, {"fullscreen", ActionKind::fullscreen},
      {"maximize", ActionKind::maximize},     {"exit", ActionKind::exit},
      {"reload", ActionKind::reload}};
  Action action;
  if (verb == "exec") {
    if (rest.empty()) {
      return failure("action", "'exec' needs a command");
    }
    action.kind = ActionKind::exec;
    action.command = std::string(rest);
    return action;
  }
  if (auto it = simple.find(verb); it != simple.end()) {
    if (!rest.empty()) {
      return failure("action", "'" + verb + "' takes no argument");
    }
    action.kind = it->second;
    return action;
  }
  if (verb == "workspace" || verb == "move_to_workspace") {
    auto n = to_int(rest);
    if (!n || *n < 1 || *n > 10) {
      return failure("action", "'" + verb + "' needs a workspace number 1..10");
    }
    action.kind = verb == "workspace" ? ActionKind::workspace : ActionKind::move_to_workspace;
    action.number = *n;
    return action;
  }
  if (verb == "move" || verb == "resize") {
    auto words = split(rest, ' ');
    int step = 20;
    if (words.size() == 2) {
      auto n = to_int(words[1]);
      if (!n || *n < 1 || *n > 10000) {
        return failure("action", "'" + verb + "' step must be 1..10000 pixels");
      }
      step = *n;
    }
    std::string dir = words.empty() ? "" : std::string(words[0]);
    bool ok = words.size() <= 2;
    if (verb == "move") {
      if (dir == "left")
        action.dx = -step;
      else if (dir == "right")
        action.dx = step;
      else if (dir == "up")
        action.dy = -step;
      else if (dir == "down")
        action.dy = step;
      else
        ok = false;
    } else {
      if (dir == "wider")
        action.dx = step;
      else if (dir == "narrower")
        action.dx = -step;
      else if (dir == "taller")
        action.dy = step;
      else if (dir == "shorter")
        action.dy = -step;
      else
        ok = false;
    }
    if (!ok) {
      return failure("action", verb == "move"
                                   ? "'move' needs left|right|up|down [pixels]"
                                   : "'resize' needs wider|narrower|taller|shorter [pixels]");
    }
    action.kind = verb == "move" ? ActionKind::move : ActionKind::resize;
    return action;
  }
  return failure("action", "unknown action '" + verb + "'");
}

std::vector<KeyBinding> default_bindings() {
  std::vector<std::pair<std::string, std::string>> table = {{"Super+Return", "exec foot"},
                                                            {"Super+Shift+Q", "close"},
                                                            {"Super+Tab", "focus_next"},
                                                            {"Super+Shift+Tab", "focus_prev"},
                                                            {"Super+F", "fullscreen"},
                                                            {"Super+M", "maximize"},
                                                            {"Super+Shift+E", "exit"},
                                                            {"Super+Shift+R", "reload"},
                                                            {"Super+Left", "move left"},
                                                            {"Super+Right", "move right"},
                                                            {"Super+Up", "move up"},
                                                            {"Super+Down", "move down"},
                                                            {"Super+Ctrl+Right", "resize wider"},
                                                            {"Super+Ctrl+Left", "resize narrower"},
                                                            {"Super+Ctrl+Down", "resize taller"},
                                                            {"Super+Ctrl+Up", "resize shorter"}};
  for (int i = 1; i <= 10; ++i) {
    std::string key = std::to_string(i % 10);
    table.emplace_back("Super+" + key, "workspace " + std::to_string(i));
    table.emplace_back("Super+Shift+" + key, "move_to_workspace " + std::to_string(i));
  }
  std::vector<KeyBinding> bindings;
  for (const auto& [keys, action] : table) {
    auto combo = parse_key_combo(keys);
    auto parsed = parse_action(action);
    if (!combo || !parsed) continue;
    KeyBinding b;
    b.text = keys;
    b.modifiers = combo->modifiers;
    b.keysym = combo->keysym;
    b.action = *parsed;
    bindings.push_back(std::move(b));
  }
  return bindings;
}

namespace {
ParsedConfig parse_unsorted(std::string_view text, const std::string& file_name);
}

ParsedConfig parse_config(std::string_view text, const std::string& file_name) {
  ParsedConfig parsed = parse_unsorted(text, file_name);
  // TOML tables come back sorted by key; report in file order.
  std::stable_sort(parsed.errors.begin(), parsed.errors.end(),
                   [](const ConfigError& a, const ConfigError& b) { return a.line < b.line; });
  return parsed;
}

namespace {
ParsedConfig parse_unsorted(std::string_view text, const std::string& file_name) {
  ParsedConfig parsed;
  Reader reader(file_name, parsed.errors);
  // A syntax error stops a TOML parser; report it, blank out that line and
  // parse again so the rest of the file still applies.
  std::string doc(text);
  for (int attempt = 0; attempt < 64; ++attempt) {
    try {
      toml::table root = toml::parse(doc, file_name);
      read_document(reader, root, parsed.config);
      return parsed;
    } catch (const toml::parse_error& e) {
      int line = static_cast<int>(e.source().begin.line);
      reader.error(line, std::string(e.description()));
      std::vector<std::string_view> lines = split(doc, '\n');
      if (line < 1 || line > static_cast<int>(lines.size())) break;
      std::string rebuilt;
      for (size_t i = 0; i < lines.size(); ++i) {
        if (static_cast<int>(i) + 1 != line) rebuilt += lines[i];
        if (i + 1 < lines.size()) rebuilt += '\n';
      }
      if (rebuilt == doc) break;
      doc = std::move(rebuilt);
    }
  }
  parsed.config.bindings = default_bindings();
  return parsed;
}
}  // namespace

ParsedConfig load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    ParsedConfig parsed;
    parsed.config.bindings = default_bindings();
    parsed.errors.push_back({path, 0, "cannot read the file"});
    return parsed;
  }
  std::stringstream contents;
  contents << in.rdbuf();
  return parse_config(contents.str(), path);
}

std::string default_config_path() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/baton/config";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.config/baton/config";
}

}  // namespace baton
