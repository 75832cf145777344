// xdg-activation with focus-stealing prevention.
//
// A window may take focus through a token only when the token is one baton
// trusts and still fresh: one that a client made while it held the keyboard
// (or right after the user clicked it), or one baton handed to a process it
// launched. Tokens are single-use. A request with any other token leaves
// focus alone and marks the window urgent instead.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "util/event_source.hpp"
#include "util/listener.hpp"

struct wl_display;
struct wl_event_loop;
struct wlr_xdg_activation_v1;
struct wlr_xdg_activation_token_v1;
struct wlr_xdg_activation_v1_request_activate_event;

namespace baton {

class Windows;
struct Config;

class Activation {
 public:
  Activation(wl_display* display, wl_event_loop* loop, const Config& config, Windows& windows);
  ~Activation();
  Activation(const Activation&) = delete;
  Activation& operator=(const Activation&) = delete;

  /// A trusted token for a process baton starts (XDG_ACTIVATION_TOKEN,
  /// DESKTOP_STARTUP_ID): it lets the process focus one window, once.
  std::string launch_token();

 private:
  using Clock = std::chrono::steady_clock;
  struct Token {
    wlr_xdg_activation_token_v1* wlr;
    bool trusted;
    Clock::time_point created;
    Listener<void> destroy;
    // Stale tokens are kept a while so that using one marks the window
    // urgent; then they are forgotten.
    std::unique_ptr<EventSource> expiry;
  };

  void track(wlr_xdg_activation_token_v1* token, bool trusted);
  /// Whether the client that committed `token` had the user's attention.
  [[nodiscard]] bool made_with_focus(const wlr_xdg_activation_token_v1& token) const;
  [[nodiscard]] const Token* find(const wlr_xdg_activation_token_v1* token) const;
  void handle_request(const wlr_xdg_activation_v1_request_activate_event& event);

  wl_event_loop* loop_;
  const Config& config_;
  Windows& windows_;
  wlr_xdg_activation_v1* activation_;
  std::vector<std::unique_ptr<Token>> tokens_;
  Listener<wlr_xdg_activation_token_v1> new_token_;
  Listener<wlr_xdg_activation_v1_request_activate_event> request_activate_;
};

}  // namespace baton
