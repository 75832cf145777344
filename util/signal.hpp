// A typed signal between baton's own objects (not wlroots'): the Server
// announces what happened (an output came, a window mapped, the renderer was
// rebuilt) and subsystems subscribe, instead of the Server calling each one.
//
// connect() returns a Connection that disconnects when destroyed, so a
// subscriber that dies first is never called; a Connection that outlives its
// Signal is harmless. Subscribers run in the order they connected; one may
// disconnect itself (or another) while the signal is being emitted.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <utility>

namespace baton {

class Connection {
 public:
  Connection() = default;
  explicit Connection(std::function<void()> disconnect) : disconnect_(std::move(disconnect)) {}
  ~Connection() { disconnect(); }
  Connection(Connection&& other) noexcept
      : disconnect_(std::exchange(other.disconnect_, nullptr)) {}
  Connection& operator=(Connection&& other) noexcept {
    if (this != &other) {
      disconnect();
      disconnect_ = std::exchange(other.disconnect_, nullptr);
    }
    return *this;
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void disconnect() {
    if (disconnect_) std::exchange(disconnect_, nullptr)();
  }
  [[nodiscard]] bool connected() const { return static_cast<bool>(disconnect_); }

 private:
  std::function<void()> disconnect_;
};

template <typename... Args>
class Signal {
 public:
  using Handler = std::function<void(Args...)>;

  Signal() = default;
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

  [[nodiscard]] Connection connect(Handler handler) {
    const uint64_t id = state_->next_id++;
    state_->handlers.push_back({id, std::move(handler)});
    std::weak_ptr<State> weak = state_;
    return Connection([weak, id] {
      if (auto state = weak.lock()) state->remove(id);
    });
  }

  void emit(Args... args) const {
    // Walk by id: a handler may disconnect itself or others while it runs.
    const std::shared_ptr<State> keep = state_;
    const uint64_t end = keep->next_id;
    for (uint64_t next = 0;;) {
      auto it = keep->first_at_or_after(next);
      if (it == keep->handlers.end() || it->id >= end) break;
      next = it->id + 1;
      Handler handler = it->handler;  // copied: the entry may go while it runs
      handler(args...);
    }
  }

  [[nodiscard]] size_t connections() const { return state_->handlers.size(); }

 private:
  struct Entry {
    uint64_t id;
    Handler handler;
  };
  struct State {
    std::list<Entry> handlers;  // ids ascending
    uint64_t next_id = 0;
    void remove(uint64_t id) {
      handlers.remove_if([id](const Entry& e) { return e.id == id; });
    }
    typename std::list<Entry>::iterator first_at_or_after(uint64_t id) {
      auto it = handlers.begin();
      while (it != handlers.end() && it->id < id) ++it;
      return it;
    }
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace baton
