// A typed wl_listener that disconnects itself.
//
// Hand-paired wl_signal_add / wl_list_remove is the classic source of
// use-after-free in compositors. A Listener is connected for exactly as long
// as it exists: it cannot be copied or moved (the signal keeps a pointer to
// it) and its destructor removes it from the signal.
#pragma once

#include <wayland-server-core.h>

#include <functional>
#include <utility>

namespace baton {

template <typename Data = void>
class Listener {
 public:
  using Handler = std::function<void(Data*)>;

  Listener() { wl_list_init(&listener_.link); }
  explicit Listener(Handler handler) : handler_(std::move(handler)) {
    wl_list_init(&listener_.link);
  }
  Listener(wl_signal* signal, Handler handler) : Listener(std::move(handler)) { connect(signal); }
  ~Listener() { disconnect(); }

  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  /// Connects to `signal`, leaving any signal connected before.
  void connect(wl_signal* signal) {
    disconnect();
    listener_.notify = &Listener::dispatch;
    wl_signal_add(signal, &listener_);
  }
  void connect(wl_signal* signal, Handler handler) {
    handler_ = std::move(handler);
    connect(signal);
  }
  void disconnect() {
    wl_list_remove(&listener_.link);
    wl_list_init(&listener_.link);
  }
  [[nodiscard]] bool connected() const { return !wl_list_empty(&listener_.link); }

 private:
  static void dispatch(wl_listener* raw, void* data) {
    Listener* self = wl_container_of(raw, self, listener_);
    // Copy: the handler may destroy this Listener (e.g. on a destroy signal).
    Handler handler = self->handler_;
    if (handler) handler(static_cast<Data*>(data));
  }

  wl_listener listener_{};
  Handler handler_;
};

}  // namespace baton
