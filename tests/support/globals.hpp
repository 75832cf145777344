// The globals a test client's registry lists, bound by interface on demand.
#pragma once

#include <wayland-client.h>

#include <cstdint>
#include <map>
#include <string>

namespace baton::test {

class Harness;

/// The globals a client's registry lists, by interface name.
class Globals {
 public:
  Globals(Harness& h, wl_display* display);
  ~Globals();
  Globals(const Globals&) = delete;
  Globals& operator=(const Globals&) = delete;
  /// Binds `interface` at min(`version`, advertised) or returns null.
  void* bind(const wl_interface* interface, uint32_t version);

 private:
  struct Entry {
    uint32_t name, version;
  };
  wl_registry* registry_;
  std::map<std::string, Entry> entries_;
};

}  // namespace baton::test
