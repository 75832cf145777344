#include "tests/support/globals.hpp"

#include <algorithm>

#include "tests/support/harness.hpp"

namespace baton::test {

Globals::Globals(Harness& h, wl_display* display) : registry_(wl_display_get_registry(display)) {
  static const wl_registry_listener listener = {
      [](void* data, wl_registry*, uint32_t name, const char* interface, uint32_t version) {
        static_cast<std::map<std::string, Entry>*>(data)->emplace(interface, Entry{name, version});
      },
      [](void*, wl_registry*, uint32_t) {}};
  wl_registry_add_listener(registry_, &listener, &entries_);
  h.sync();
}

Globals::~Globals() { wl_registry_destroy(registry_); }

void* Globals::bind(const wl_interface* interface, uint32_t version) {
  auto it = entries_.find(interface->name);
  if (it == entries_.end()) return nullptr;
  return wl_registry_bind(registry_, it->second.name, interface,
                          std::min(version, it->second.version));
}

}  // namespace baton::test
