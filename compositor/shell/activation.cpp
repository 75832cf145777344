#include "compositor/shell/activation.hpp"

#include <algorithm>

#include "compositor/config/config.hpp"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// How long a stale token is remembered after its lifetime ran out.
constexpr int kStaleGraceMs = 60'000;

}  // namespace

Activation::Activation(wl_display* display, wl_event_loop* loop, const Config& config,
                       Windows& windows)
    : loop_(loop),
      config_(config),
      windows_(windows),
      activation_(wlr_xdg_activation_v1_create(display)) {
  // Expiry is ours (see Token::expiry): wlroots would forget tokens the
  // moment they go stale, and a stale request would pass unnoticed.
  activation_->token_timeout_msec = 0;
  new_token_.connect(&activation_->events.new_token, [this](wlr_xdg_activation_token_v1* token) {
    track(token, made_with_focus(*token));
  });
  request_activate_.connect(
      &activation_->events.request_activate,
      [this](wlr_xdg_activation_v1_request_activate_event* event) { handle_request(*event); });
}

Activation::~Activation() = default;

std::string Activation::launch_token() {
  wlr_xdg_activation_token_v1* token = wlr_xdg_activation_token_v1_create(activation_);
  if (token == nullptr) {
    LOG_ERROR("xdg-activation: could not create a token for a launched process");
    return {};
  }
  track(token, true);
  return wlr_xdg_activation_token_v1_get_name(token);
}

void Activation::track(wlr_xdg_activation_token_v1* token, bool trusted) {
  auto record = std::make_unique<Token>();
  Token* raw = record.get();
  raw->wlr = token;
  raw->trusted = trusted;
  raw->created = Clock::now();
  raw->destroy.connect(&token->events.destroy, [this, raw](void*) {
    std::erase_if(tokens_, [raw](const auto& t) { return t.get() == raw; });
  });
  raw->expiry = EventSource::timer(loop_, [token] { wlr_xdg_activation_token_v1_destroy(token); });
  if (raw->expiry) raw->expiry->arm_ms(config_.activation_timeout_ms + kStaleGraceMs);
  LOG_DEBUG("xdg-activation: token %s (%s)", wlr_xdg_activation_token_v1_get_name(token),
            trusted ? "trusted" : "not trusted");
  tokens_.push_back(std::move(record));
}

bool Activation::made_with_focus(const wlr_xdg_activation_token_v1& token) const {
  // wlroots already checked that the serial was sent to the committing
  // client, and that the surface, if named, had keyboard or pointer focus.
  wlr_seat* seat = token.seat;
  if (seat == nullptr) return false;
  wlr_seat_client* keyboard = seat->keyboard_state.focused_client;
  wlr_seat_client* pointer = seat->pointer_state.focused_client;
  wl_client* owner =
      token.surface != nullptr ? wl_resource_get_client(token.surface->resource) : nullptr;
  auto is_owner = [&](wlr_seat_client* client) {
    if (client == nullptr) return false;
    if (owner != nullptr) return client->client == owner;
    return wlr_seat_client_validate_event_serial(client, token.serial);
  };
  // The keyboard's client, or the client the user just clicked.
  return is_owner(keyboard) ||
         (token.serial == seat->pointer_state.grab_serial && is_owner(pointer));
}

const Activation::Token* Activation::find(const wlr_xdg_activation_token_v1* token) const {
  auto it = std::find_if(tokens_.begin(), tokens_.end(),
                         [token](const auto& t) { return t->wlr == token; });
  return it != tokens_.end() ? it->get() : nullptr;
}

void Activation::handle_request(const wlr_xdg_activation_v1_request_activate_event& event) {
  View* view = windows_.view_for_surface(event.surface);
  if (view == nullptr || !view->mapped()) {
    LOG_DEBUG("xdg-activation: request for a surface that is not a mapped window; ignored");
    return;
  }
  const Token* token = find(event.token);
  auto age = token != nullptr ? Clock::now() - token->created : Clock::duration::max();
  bool fresh = age <= std::chrono::milliseconds(config_.activation_timeout_ms);
  if (token != nullptr && token->trusted && fresh) {
    windows_.workspaces().show(*view);
    windows_.focus(view);
    return;
  }
  LOG_INFO("xdg-activation: '%s' asked for focus with a %s token; marked urgent instead",
           view->title().c_str(), token == nullptr || !token->trusted ? "untrusted" : "stale");
  if (windows_.focused() != view) view->set_urgent(true);
}

}  // namespace baton
