// The globals the fuzzer can speak: their interfaces as wayland-scanner
// generated them from the same protocol XML baton serves. Interfaces of the
// objects those globals create are reached through the message tables.
#pragma once

#include <wayland-util.h>

#include <string_view>

namespace baton::fuzz {

/// The interface of the global named `name`, or null when the fuzzer has no
/// table for it (the fuzzer reports those once: a coverage gap).
const wl_interface* global_interface(std::string_view name);

}  // namespace baton::fuzz
