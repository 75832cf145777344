// The config file: every option parses into what it says, and bad lines
// are reported with file, line and reason while the rest still applies.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <cstdlib>

#include "compositor/config/config.hpp"
#include "tests/support/process.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

ParsedConfig parse(const std::string& text) { return parse_config(text, "test.toml"); }

const KeyBinding* find(const Config& c, uint32_t mods, uint32_t sym) {
  for (const auto& b : c.bindings)
    if (b.modifiers == mods && b.keysym == sym) return &b;
  return nullptr;
}

TEST(Config, EmptyFileHasDefaultBindings) {
  ParsedConfig p = parse("");
  EXPECT_TRUE(p.errors.empty());
  EXPECT_NE(find(p.config, WLR_MODIFIER_LOGO, XKB_KEY_Return), nullptr);
  EXPECT_NE(find(p.config, WLR_MODIFIER_LOGO | WLR_MODIFIER_SHIFT, XKB_KEY_q), nullptr);
  EXPECT_NE(find(p.config, WLR_MODIFIER_LOGO, XKB_KEY_0), nullptr);  // workspace 10
  EXPECT_EQ(p.config.renderer, RendererChoice::automatic);
  EXPECT_EQ(p.config.swapchain_slots, 3);
}

TEST(Config, EveryActionParses) {
  ParsedConfig p = parse(R"(
[keybindings]
"Super+Return" = "exec foot --server"
"Super+Shift+q" = "close"
"Alt+Tab" = "focus_next"
"Alt+Shift+Tab" = "focus_prev"
"Super+3" = "workspace 3"
"Super+Shift+10" = "move_to_workspace 10"
"Ctrl+Super+f" = "fullscreen"
"Super+m" = "maximize"
"Super+Left" = "move left 50"
"Super+Ctrl+Right" = "resize wider"
"Super+Shift+E" = "exit"
"AltGr+r" = "reload"
)");
  // "10" is not a key name.
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].line, 8);
  EXPECT_NE(p.errors[0].reason.find("unknown key '10'"), std::string::npos);
  const Config& c = p.config;
  EXPECT_EQ(c.bindings.size(), 11u);  // the file's table replaces the defaults
  auto* exec = find(c, WLR_MODIFIER_LOGO, XKB_KEY_Return);
  ASSERT_NE(exec, nullptr);
  EXPECT_EQ(exec->action.kind, ActionKind::exec);
  EXPECT_EQ(exec->action.command, "foot --server");
  EXPECT_EQ(find(c, WLR_MODIFIER_LOGO | WLR_MODIFIER_SHIFT, XKB_KEY_q)->action.kind,
            ActionKind::close);
  EXPECT_EQ(find(c, WLR_MODIFIER_ALT, XKB_KEY_Tab)->action.kind, ActionKind::focus_next);
  EXPECT_EQ(find(c, WLR_MODIFIER_ALT | WLR_MODIFIER_SHIFT, XKB_KEY_Tab)->action.kind,
            ActionKind::focus_prev);
  EXPECT_EQ(find(c, WLR_MODIFIER_LOGO, XKB_KEY_3)->action.number, 3);
  EXPECT_EQ(find(c, WLR_MODIFIER_LOGO | WLR_MODIFIER_CTRL, XKB_KEY_f)->action.kind,
            ActionKind::fullscreen);
  EXPECT_EQ(find(c, WLR_MODIFIER_LOGO, XKB_KEY_m)->action.kind, ActionKind::maximize);
  EXPECT_EQ(find(c, WLR_MODIFIER_LOGO, XKB_KEY_Left)->action.dx, -50);
  EXPECT_EQ(find(c, WLR_MODIFIER_LOGO | WLR_MODIFIER_CTRL, XKB_KEY_Right)->action.dx, 20);
  EXPECT_EQ(find(c, WLR_MODIFIER_LOGO | WLR_MODIFIER_SHIFT, XKB_KEY_e)->action.kind,
            ActionKind::exit);
  EXPECT_EQ(find(c, WLR_MODIFIER_MOD5, XKB_KEY_r)->action.kind, ActionKind::reload);
}

TEST(Config, OutputsInputsAndTopLevel) {
  ParsedConfig p = parse(R"(
startup = ["waybar", "swaybg -c '#000000'"]
background = "#102030"
renderer = "vulkan"
swapchain_slots = 4
activation_timeout = 2.5

[decoration]
focused = "#ff0000"
unfocused = "#00ff00"
title = "#0000ff"
urgent = "#ffff00"

[[output]]
name = "HEADLESS-1"
mode = "800x600@75"
scale = 1.5
transform = "flipped-90"
position = [100, 200]
adaptive_sync = true
enabled = true

[[output]]
name = "*"
refresh = 59.94

[[input]]
type = "keyboard"
xkb_layout = "de"
xkb_variant = "nodeadkeys"
xkb_options = "ctrl:nocaps"
xkb_model = "pc105"
xkb_rules = "evdev"
repeat_rate = 40
repeat_delay = 250

[[input]]
name = "Some Touchpad"
type = "touchpad"
accel = -0.5
accel_profile = "flat"
natural_scroll = true
tap = false
)");
  EXPECT_TRUE(p.errors.empty()) << p.errors[0].to_string();
  const Config& c = p.config;
  EXPECT_EQ(c.startup, (std::vector<std::string>{"waybar", "swaybg -c '#000000'"}));
  EXPECT_EQ(c.background, 0x102030u);
  EXPECT_EQ(c.renderer, RendererChoice::vulkan);
  EXPECT_EQ(c.swapchain_slots, 4);
  EXPECT_EQ(c.focused_colour, 0xff0000u);
  EXPECT_EQ(c.unfocused_colour, 0x00ff00u);
  EXPECT_EQ(c.title_colour, 0x0000ffu);
  EXPECT_EQ(c.urgent_colour, 0xffff00u);
  EXPECT_EQ(c.activation_timeout_ms, 2500);
  auto outs = c.outputs_for("HEADLESS-1");
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0]->name, "*");  // wildcard first, the named one wins
  EXPECT_EQ(outs[0]->refresh_mhz, 59940);
  const OutputConfig& o = *outs[1];
  EXPECT_EQ(o.mode, (std::pair{800, 600}));
  EXPECT_EQ(o.refresh_mhz, 75000);
  EXPECT_DOUBLE_EQ(*o.scale, 1.5);
  EXPECT_EQ(o.transform, WL_OUTPUT_TRANSFORM_FLIPPED_90);
  EXPECT_EQ(o.position, (std::pair{100, 200}));
  EXPECT_EQ(o.adaptive_sync, AdaptiveSyncMode::on);
  EXPECT_EQ(o.enabled, true);
  auto kb = c.inputs_for("keyboard", "any");
  ASSERT_EQ(kb.size(), 1u);
  EXPECT_EQ(kb[0]->xkb_layout, "de");
  EXPECT_EQ(kb[0]->xkb_variant, "nodeadkeys");
  EXPECT_EQ(kb[0]->xkb_options, "ctrl:nocaps");
  EXPECT_EQ(kb[0]->xkb_model, "pc105");
  EXPECT_EQ(kb[0]->xkb_rules, "evdev");
  EXPECT_EQ(kb[0]->repeat_rate, 40);
  EXPECT_EQ(kb[0]->repeat_delay, 250);
  auto tp = c.inputs_for("touchpad", "Some Touchpad");
  ASSERT_EQ(tp.size(), 1u);
  EXPECT_DOUBLE_EQ(*tp[0]->accel, -0.5);
  EXPECT_EQ(tp[0]->accel_profile, InputConfig::AccelProfile::flat);
  EXPECT_EQ(tp[0]->natural_scroll, true);
  EXPECT_EQ(tp[0]->tap, false);
  EXPECT_TRUE(c.inputs_for("touchpad", "Other").empty());
}

TEST(Config, BadValuesAreReportedByLineAndTheRestApplies) {
  ParsedConfig p = parse(R"(renderer = "opengl"
swapchain_slots = 99
background = "blue"
wallpaper = "x.png"

[keybindings]
"Hyper+x" = "close"
"Super+x" = "teleport"
"Super+y" = "workspace 11"
"Super+z" = "close"

[[output]]
mode = "huge"
scale = "big"

[[input]]
type = "joystick"
repeat_rate = -1
tap = "yes"
accel_profile = "custom"
)");
  std::vector<int> lines;
  for (const auto& e : p.errors) lines.push_back(e.line);
  EXPECT_EQ(lines, (std::vector<int>{1, 2, 3, 4, 7, 8, 9, 12, 13, 14, 17, 18, 19, 20}));
  EXPECT_NE(p.errors.back().reason.find("flat or adaptive"), std::string::npos);
  for (const auto& e : p.errors) EXPECT_EQ(e.file, "test.toml");
  EXPECT_NE(p.errors[0].reason.find("auto, vulkan or pixman"), std::string::npos);
  EXPECT_NE(p.errors[4].reason.find("unknown modifier 'Hyper'"), std::string::npos);
  EXPECT_NE(p.errors[5].reason.find("unknown action 'teleport'"), std::string::npos);
  EXPECT_NE(p.errors[7].reason.find("needs a name"), std::string::npos);
  EXPECT_EQ(p.errors[0].to_string().rfind("test.toml:1: ", 0), 0u);
  // The good binding in the same table still applies.
  EXPECT_NE(find(p.config, WLR_MODIFIER_LOGO, XKB_KEY_z), nullptr);
  EXPECT_EQ(p.config.swapchain_slots, 3);
}

// adaptive_sync takes a mode (true and false from when it was a switch) and
// max_fps a frame rate; other values are reported on their line.
TEST(Config, AdaptiveSyncModesAndMaxFps) {
  ParsedConfig p = parse(R"([[output]]
name = "A"
adaptive_sync = "game"
max_fps = 60
low_framerate_compensation = false
[[output]]
name = "B"
adaptive_sync = false
[[output]]
name = "C"
adaptive_sync = "sometimes"
max_fps = 0
)");
  std::vector<int> lines;
  for (const auto& e : p.errors) lines.push_back(e.line);
  EXPECT_EQ(lines, (std::vector<int>{11, 12}));
  ASSERT_FALSE(p.errors.empty());
  EXPECT_NE(p.errors[0].reason.find("\"off\", \"on\" or \"game\""), std::string::npos);
  const auto a = p.config.outputs_for("A");
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0]->adaptive_sync, AdaptiveSyncMode::game);
  EXPECT_EQ(a[0]->max_fps, 60);
  EXPECT_EQ(a[0]->low_framerate_compensation, false);
  EXPECT_EQ(p.config.outputs_for("B")[0]->adaptive_sync, AdaptiveSyncMode::off);
  EXPECT_FALSE(p.config.outputs_for("C")[0]->adaptive_sync.has_value());
  EXPECT_FALSE(p.config.outputs_for("C")[0]->max_fps.has_value());
}

// A position millions of pixels out (or past int, which once wrapped to
// some other place) is an error on its line; the output's other keys apply.
TEST(Config, AnOutputPositionPastTheLayoutsReachIsReported) {
  ParsedConfig p = parse(R"([[output]]
name = "A"
position = [5000000000, 0]
scale = 2.0

[[output]]
name = "B"
position = [-2097153, 0]

[[output]]
name = "C"
position = [2097152, -2097152]
)");
  ASSERT_EQ(p.errors.size(), 2u);
  EXPECT_EQ(p.errors[0].line, 3);
  EXPECT_EQ(p.errors[1].line, 8);
  EXPECT_NE(p.errors[0].reason.find("within 2097152 pixels"), std::string::npos)
      << p.errors[0].reason;
  ASSERT_EQ(p.config.outputs.size(), 3u);
  EXPECT_FALSE(p.config.outputs[0].position.has_value());
  EXPECT_DOUBLE_EQ(*p.config.outputs[0].scale, 2.0);
  EXPECT_FALSE(p.config.outputs[1].position.has_value());
  EXPECT_EQ(p.config.outputs[2].position, (std::pair{2097152, -2097152}));
}

TEST(Config, SyntaxErrorIsReportedAndTheOtherLinesStillApply) {
  ParsedConfig p = parse(R"(swapchain_slots = 5
this is not toml
[keybindings]
"Super+k" = "close"
)");
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].line, 2);
  EXPECT_EQ(p.config.swapchain_slots, 5);
  EXPECT_NE(find(p.config, WLR_MODIFIER_LOGO, XKB_KEY_k), nullptr);
}

TEST(Config, UnreadableFileIsOneError) {
  ParsedConfig p = load_config("/nonexistent/baton.toml");
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0].line, 0);
  EXPECT_FALSE(p.config.bindings.empty());
}

TEST(Config, DefaultPathFollowsXdgConfigHome) {
  setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(default_config_path(), "/tmp/xdg-test/baton/config");
  unsetenv("XDG_CONFIG_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(default_config_path(), "/home/someone/.config/baton/config");
}

TEST(Config, TheInstalledExampleParsesCleanly) {
  ParsedConfig p = load_config(std::string(BATON_SOURCE_DIR) + "/config.example");
  for (const auto& e : p.errors) ADD_FAILURE() << e.to_string();
  EXPECT_GT(p.config.bindings.size(), 10u);
}

}  // namespace
}  // namespace baton::test

namespace baton {
namespace {

TEST(Config, GamesSettings) {
  auto p = parse_config(R"([games]
game_fps = 45
tearing = "off"
no_tearing_apps = ["mpv", "org.example.Video"]

[[output]]
name = "HEADLESS-1"
cadence = "fixed"
tearing = false
)",
                        "games.toml");
  ASSERT_TRUE(p.errors.empty()) << p.errors.front().to_string();
  EXPECT_EQ(p.config.games.game_fps, 45);
  EXPECT_EQ(p.config.games.tearing, TearingPolicy::off);
  EXPECT_EQ(p.config.games.no_tearing_apps, (std::vector<std::string>{"mpv", "org.example.Video"}));
  ASSERT_EQ(p.config.outputs.size(), 1u);
  EXPECT_EQ(p.config.outputs[0].cadence, CadenceMode::fixed);
  EXPECT_EQ(p.config.outputs[0].tearing, false);
}

TEST(Config, BadGamesSettingsAreReportedByLine) {
  auto p = parse_config(R"([games]
game_fps = 0
tearing = "sometimes"
frobnicate = 1

[[output]]
name = "*"
cadence = "often"
)",
                        "bad-games.toml");
  ASSERT_EQ(p.errors.size(), 4u);
  EXPECT_EQ(p.errors[0].line, 2);
  EXPECT_EQ(p.errors[1].line, 3);
  EXPECT_NE(p.errors[1].reason.find("fullscreen or off"), std::string::npos);
  EXPECT_EQ(p.errors[2].line, 4);
  EXPECT_EQ(p.errors[3].line, 8);
  EXPECT_NE(p.errors[3].reason.find("auto, damage or fixed"), std::string::npos);
}

}  // namespace
}  // namespace baton
