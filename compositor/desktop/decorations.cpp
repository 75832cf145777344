#include "compositor/desktop/decorations.hpp"

#include <cstring>
#include <type_traits>
#include <utility>

#include "compositor/config/config.hpp"
#include "compositor/desktop/title_icons.hpp"
#include "compositor/desktop/title_text.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/xdg_view.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// The close button's background: it stands out from any bar colour.
constexpr uint32_t kCloseColour = 0xc03030;

void to_rgba(uint32_t rgb, float out[4]) {
  out[0] = static_cast<float>((rgb >> 16) & 0xff) / 255.0f;
  out[1] = static_cast<float>((rgb >> 8) & 0xff) / 255.0f;
  out[2] = static_cast<float>(rgb & 0xff) / 255.0f;
  out[3] = 1.0f;
}

}  // namespace

Decoration::Decoration(View& view, const Config& config)
    : view_(view),
      focused_(config.focused_colour),
      unfocused_(config.unfocused_colour),
      urgent_(config.urgent_colour),
      text_colour_(config.title_colour),
      tree_(wlr_scene_tree_create(view.tree())) {
  // Below the client's surface: the bar never covers window contents.
  wlr_scene_node_lower_to_bottom(&tree_->node);
  float colour[4];
  to_rgba(unfocused_, colour);
  title_ = wlr_scene_rect_create(tree_, 0, 0, colour);
  text_ = wlr_scene_buffer_create(tree_, nullptr);
  to_rgba(kCloseColour, colour);
  close_ = wlr_scene_rect_create(tree_, kButton, kButton, colour);
  icon_ = wlr_scene_buffer_create(tree_, nullptr);
  close_icon_ = wlr_scene_buffer_create(tree_, nullptr);
  maximize_icon_ = wlr_scene_buffer_create(tree_, nullptr);
  for (auto [node, button] : {std::pair{close_icon_, TitleButton::close},
                              std::pair{maximize_icon_, TitleButton::maximize}}) {
    wlr_buffer* icon = render_button_icon(button, kButton, text_colour_);
    wlr_scene_buffer_set_buffer(node, icon);
    if (icon != nullptr) wlr_buffer_drop(icon);
  }
}

Decoration::~Decoration() { wlr_scene_node_destroy(&tree_->node); }

void Decoration::update(int width, Look look, bool visible, const std::string& title) {
  constexpr int kPadding = 8;
  constexpr int y = -kTitleHeight;  // the bar's top
  width_ = width;
  visible_ = visible;
  float colour[4];
  to_rgba(look == Look::focused ? focused_ : look == Look::urgent ? urgent_ : unfocused_, colour);
  wlr_scene_rect_set_color(title_, colour);
  wlr_scene_rect_set_size(title_, width, kTitleHeight);
  wlr_scene_node_set_position(&title_->node, 0, y);
  // The icon, when there is one, sits where the title began; the title moves right.
  const int icon_room = has_icon_ ? kIcon + kPadding / 2 : 0;
  int text_width = width - 2 * kPadding - 2 * kButton - icon_room;
  if (title != drawn_title_ || text_width != drawn_width_) {
    wlr_buffer* text = render_title(title, text_width, kTitleHeight, text_colour_);
    wlr_scene_buffer_set_buffer(text_, text);
    if (text != nullptr) wlr_buffer_drop(text);
    drawn_title_ = title;
    drawn_width_ = text_width;
  }
  wlr_scene_node_set_position(&icon_->node, kPadding / 2, y + 2);
  wlr_scene_node_set_position(&text_->node, kPadding + icon_room, y);
  wlr_scene_node_set_position(&close_->node, width - kButton, y);
  wlr_scene_node_set_position(&close_icon_->node, width - kButton, y);
  wlr_scene_node_set_position(&maximize_icon_->node, width - 2 * kButton, y);
  wlr_scene_node_set_enabled(&tree_->node, visible);
}

void Decoration::set_icon(wlr_buffer* icon) {
  wlr_scene_buffer_set_buffer(icon_, icon);
  has_icon_ = icon != nullptr;
  drawn_width_ = -1;  // the title's room changed: draw it again on the next update
}

TitleButton Decoration::button_at(double x, double y) const {
  if (!visible_ || y < -kTitleHeight || y >= 0 || x >= width_) return TitleButton::none;
  if (x >= width_ - kButton) return TitleButton::close;
  if (x >= width_ - 2 * kButton) return TitleButton::maximize;
  return TitleButton::none;
}

XdgDecoration::XdgDecoration(const Windows& windows, wlr_xdg_toplevel_decoration_v1* decoration,
                             std::function<void(XdgDecoration&)> destroyed)
    : windows_(windows), decoration_(decoration), destroyed_(std::move(destroyed)) {
  request_mode_.connect(&decoration->events.request_mode, [this](void*) {
    if (decoration_->toplevel->base->initialized) apply();
  });
  // A mode may only be sent once the surface is initialized: on its
  // initial commit at the earliest.
  commit_.connect(&decoration->toplevel->base->surface->events.commit, [this](void*) {
    if (decoration_->toplevel->base->initial_commit) apply();
  });
  destroy_.connect(&decoration->events.destroy, [this](void*) {
    if (View* v = view()) v->set_server_decorated(false);
    destroyed_(*this);
  });
}

View* XdgDecoration::view() const {
  for (const auto& v : windows_.views())
    if (auto* xdg = dynamic_cast<XdgView*>(v.get());
        xdg != nullptr && xdg->toplevel() == decoration_->toplevel)
      return xdg;
  return nullptr;
}

void XdgDecoration::apply() {
  // wlroots stores the client's set_mode argument unchecked: any uint32 can
  // sit in the enum field, and loading one outside the enum is undefined
  // behaviour. Read its bytes; an unknown mode is no preference.
  std::underlying_type_t<wlr_xdg_toplevel_decoration_v1_mode> requested = 0;
  std::memcpy(&requested, &decoration_->requested_mode, sizeof requested);
  const bool client_side = requested == WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE;
  wlr_xdg_toplevel_decoration_v1_set_mode(
      decoration_, client_side ? WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE
                               : WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
  if (View* v = view()) v->set_server_decorated(!client_side);
}

}  // namespace baton
