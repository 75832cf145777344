// An in-process test harness: a whole Server on the headless backend, real
// libwayland-client clients connected over socketpairs, one thread.
//
// Server and clients are pumped alternately by run_until(), so a test reads
// like a client's story: do something, run until the compositor answered.
#pragma once

#include <wayland-client.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compositor/config/options.hpp"
#include "compositor/server.hpp"
#include "util/image.hpp"

namespace baton::test {

/// Options for a headless test server: pixman, one small output, no socket
/// search surprises.
Options headless_options(int width = 640, int height = 480, int outputs = 1);

class Harness {
 public:
  explicit Harness(Options options = headless_options());
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  Server& server() { return *server_; }

  /// A new client connection to the server (owned by the harness).
  wl_display* connect();
  /// Dispatches server and every client until `done` holds or `timeout`
  /// passes; returns whether `done` held. The default is a liveness bound
  /// for a busy machine (an ASan build beside other work), not a speed claim.
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  /// Pumps everything for `duration` (to let frames happen).
  void run_for(std::chrono::milliseconds duration);
  /// Runs until every client's requests so far were handled (a roundtrip on each).
  void sync();
  /// Captures output `index` on its next frame.
  Image capture(size_t index = 0);
  /// A new client connection through the listening socket at `path` (one
  /// the server was handed, e.g. by security-context-v1), owned by the harness.
  wl_display* connect_to(const std::string& path);
  /// Disconnects a client (as if it crashed); its objects are destroyed.
  void disconnect(wl_display* display);
  /// baton's side of a connection connect() made (null for connect_to's):
  /// in-process clients share a pid, so only this tells them apart.
  [[nodiscard]] wl_client* server_client(wl_display* display) const;
  /// The longest a pump overran its wait since the last call (and resets
  /// it): time this process was not running, or spent dispatching, on a busy
  /// machine. A bound on how late something happens allows for it; a bound
  /// on how early, never.
  std::chrono::nanoseconds take_longest_stall();

 private:
  void pump(int timeout_ms);

  std::unique_ptr<Server> server_;
  std::vector<wl_display*> clients_;
  std::map<wl_display*, wl_client*> server_clients_;  // those made by connect()
  std::chrono::nanoseconds longest_stall_{0};
};

}  // namespace baton::test
