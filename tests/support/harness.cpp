#include "tests/support/harness.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "compositor/output/output.hpp"
#include "tests/support/poll.hpp"
#include "util/log.hpp"
#include "util/owned.hpp"
#include "util/wlr.hpp"

namespace baton::test {

Options headless_options(int width, int height, int outputs) {
  Options options;
  options.backend = BackendChoice::headless;
  options.renderer = RendererChoice::pixman;
  options.headless_size = {width, height, 60000};
  options.outputs = outputs;
  // In-process tests that want X11 clients turn Xwayland on themselves.
  options.xwayland = XwaylandMode::off;
  // Test programs run in parallel: each server gets a socket name of its own.
  static int counter = 0;
  options.socket_name = "baton-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  return options;
}

Harness::Harness(Options options) {
  // BATON_TEST_DEBUG=1: the server's and wlroots' debug log on stderr.
  if (const char* debug = std::getenv("BATON_TEST_DEBUG"); debug != nullptr && debug[0] == '1')
    log::set_level(log::Level::debug);
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr)
    mkdir(runtime, 0700);
  server_ = std::make_unique<Server>(std::move(options));
  if (Status started = server_->start(); !started)
    throw std::runtime_error("server failed to start: " + started.error().describe());
  // Let the backend announce and commit its outputs.
  run_until([this]() {
    auto outputs = server_->outputs();
    return !outputs.empty() &&
           std::all_of(outputs.begin(), outputs.end(), [](Output* o) { return o->frames() > 0; });
  });
}

Harness::~Harness() {
  for (wl_display* client : clients_) wl_display_disconnect(client);
  clients_.clear();
  server_.reset();
}

wl_display* Harness::connect() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error("socketpair failed");
  wl_client* client = wl_client_create(server_->display(), fds[0]);
  if (client == nullptr) throw std::runtime_error("wl_client_create failed");
  wl_display* display = wl_display_connect_to_fd(fds[1]);
  if (display == nullptr) throw std::runtime_error("wl_display_connect_to_fd failed");
  clients_.push_back(display);
  server_clients_[display] = client;
  return display;
}

wl_display* Harness::connect_to(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) throw std::runtime_error("socket path too long");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  // The server accepts from its event loop: connect() only queues us.
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    throw std::runtime_error("connect to " + path + " failed");
  }
  wl_display* display = wl_display_connect_to_fd(fd);
  if (display == nullptr) throw std::runtime_error("wl_display_connect_to_fd failed");
  clients_.push_back(display);
  return display;
}

wl_client* Harness::server_client(wl_display* display) const {
  auto it = server_clients_.find(display);
  return it != server_clients_.end() ? it->second : nullptr;
}

void Harness::disconnect(wl_display* display) {
  std::erase(clients_, display);
  server_clients_.erase(display);
  wl_display_disconnect(display);
  pump(0);
}

void Harness::pump(int timeout_ms) {
  const auto started = std::chrono::steady_clock::now();
  // Send what clients queued, then wait on the server loop and all clients.
  std::vector<pollfd> fds;
  fds.push_back({wl_event_loop_get_fd(server_->event_loop()), POLLIN, 0});
  // A client the server cut off with a protocol error reads nothing more
  // (its prepare_read would fail for ever): it stays out of the poll.
  std::vector<wl_display*> prepared;
  for (wl_display* client : clients_) {
    bool failed = wl_display_get_error(client) != 0;
    while (!failed && wl_display_prepare_read(client) != 0)
      failed = wl_display_dispatch_pending(client) < 0;
    if (failed) continue;
    wl_display_flush(client);
    fds.push_back({wl_display_get_fd(client), POLLIN, 0});
    prepared.push_back(client);
  }
  server_->dispatch(0);
  poll(fds.data(), fds.size(), timeout_ms);
  server_->dispatch(0);
  for (wl_display* client : prepared) {
    pollfd check{wl_display_get_fd(client), POLLIN, 0};
    if (poll(&check, 1, 0) > 0)
      wl_display_read_events(client);
    else
      wl_display_cancel_read(client);
    wl_display_dispatch_pending(client);
  }
  const auto overrun =
      std::chrono::steady_clock::now() - started - std::chrono::milliseconds(timeout_ms);
  longest_stall_ = std::max(longest_stall_, std::chrono::nanoseconds(overrun));
}

std::chrono::nanoseconds Harness::take_longest_stall() {
  return std::exchange(longest_stall_, std::chrono::nanoseconds(0));
}

bool Harness::run_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  return poll_until(done, timeout, [this] { pump(5); });
}

void Harness::run_for(std::chrono::milliseconds duration) {
  auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline) pump(5);
}

void Harness::sync() {
  // A callback still unanswered at the end (run_until timed out) is freed
  // with its Pending, so no answer can land on a freed flag.
  struct Pending {
    Owned<wl_callback, wl_callback_destroy> callback;
    bool done = false;
  };
  static const wl_callback_listener listener = {[](void* data, wl_callback*, uint32_t) {
    auto* pending = static_cast<Pending*>(data);
    pending->done = true;
    pending->callback.reset();
  }};
  std::vector<std::unique_ptr<Pending>> pending;
  for (wl_display* client : clients_) {
    // A client in a protocol error is answered nothing any more.
    if (wl_display_get_error(client) != 0) continue;
    auto& p = pending.emplace_back(std::make_unique<Pending>());
    p->callback = Owned<wl_callback, wl_callback_destroy>(wl_display_sync(client));
    wl_callback_add_listener(p->callback, &listener, p.get());
  }
  run_until([&]() {
    return std::all_of(pending.begin(), pending.end(), [](auto& p) { return p->done; });
  });
}

Image Harness::capture(size_t index) {
  Image result;
  bool captured = false;
  server_->outputs().at(index)->capture([&](const Image& image) {
    result = image;
    captured = true;
  });
  if (!run_until([&]() { return captured; })) throw std::runtime_error("capture timed out");
  return result;
}

}  // namespace baton::test
