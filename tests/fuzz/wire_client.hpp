// A Wayland client that speaks the wire format by hand, so that it can send
// what libwayland-client never would: stale and foreign object ids, requests
// above an object's version, strings without their terminator, fds of any
// kind. It keeps the client's side of the object map from the interfaces'
// signatures (the tables wayland-scanner generates from the protocol XML),
// including objects the server creates with new_id events.
#pragma once

#include <wayland-util.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/unique_fd.hpp"

struct wl_client;
struct wl_display;

namespace baton::fuzz {

/// One argument of a request, already chosen; encoded by its signature letter.
struct WireArg {
  char type = 'u';         // i u f s o n a h
  uint32_t value = 0;      // i u f o n
  std::string bytes;       // s (without the terminator) and a
  bool null = false;       // s a: sent as length 0
  bool terminated = true;  // s: false sends the string without its NUL
  UniqueFd fd;             // h
};

struct ClientObject {
  uint32_t id;
  const wl_interface* interface;  // null: a type this client cannot speak
  uint32_t version;
};

struct Global {
  uint32_t name;
  std::string interface;
  uint32_t version;
};

class WireClient {
 public:
  /// A client of `display` over a socketpair (the server end is handed to
  /// wl_client_create). Sends wl_display.get_registry as object 2.
  explicit WireClient(wl_display* display);
  ~WireClient();
  WireClient(const WireClient&) = delete;
  WireClient& operator=(const WireClient&) = delete;

  /// Queues a request; flushes when the queue nears what one sendmsg carries.
  void send(uint32_t object, uint32_t opcode, std::vector<WireArg>& args);
  /// Writes the queue to the socket (what the server has not read stays queued).
  void flush();
  /// Reads and parses every event waiting on the socket; closes received fds.
  void read_events();

  /// Whether the server cut this client off (a protocol error, or hung up).
  [[nodiscard]] bool dead() const { return dead_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] wl_client* server_side() const { return server_side_; }

  [[nodiscard]] const std::vector<ClientObject>& objects() const { return objects_; }
  [[nodiscard]] const std::vector<uint32_t>& stale_ids() const { return stale_; }
  [[nodiscard]] const std::vector<Global>& globals() const { return globals_; }
  [[nodiscard]] uint32_t registry() const { return 2; }
  /// The next id this client would allocate.
  [[nodiscard]] uint32_t next_id() const { return next_id_; }
  /// Records a client-allocated object (the id must be next_id()).
  void add_object(const wl_interface* interface, uint32_t version);
  [[nodiscard]] const ClientObject* find(uint32_t id) const;

 private:
  void parse(const uint8_t* data, size_t size);
  void handle_event(const ClientObject& target, uint32_t opcode, const uint8_t* args, size_t size);
  void forget(uint32_t id);

  wl_client* server_side_ = nullptr;
  UniqueFd socket_;
  bool dead_ = false;
  std::string error_;
  std::vector<uint8_t> out_;
  std::vector<int> out_fds_;
  std::vector<uint8_t> in_;
  std::vector<ClientObject> objects_;
  std::vector<uint32_t> stale_;
  std::vector<Global> globals_;
  std::vector<uint32_t> global_names_;  // globals_' names, sorted: a quick look-up
  uint32_t next_id_ = 2;
};

/// The signature letters of a message, without version digits and '?'.
std::string signature_types(const wl_message& message);
/// Whether argument `index` of the message may be null ('?').
bool nullable(const wl_message& message, size_t index);
/// The message's since-version (the digits a signature may start with).
uint32_t since_version(const wl_message& message);

}  // namespace baton::fuzz
