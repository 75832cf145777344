// What libwayland-client logs, captured: it logs a protocol error's message
// (the client API gives only the error's code), so a test can check what
// the compositor said.
#pragma once

#include <wayland-client.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace baton::test {

/// Captures libwayland-client's log while it lives. The handler is
/// process-wide: one capture at a time.
class ClientLogCapture {
 public:
  ClientLogCapture() {
    captured().clear();
    wl_log_set_handler_client([](const char* format, va_list args) {
      std::array<char, 1024> line{};
      std::vsnprintf(line.data(), line.size(), format, args);
      captured() += line.data();
    });
  }
  ~ClientLogCapture() {
    wl_log_set_handler_client(
        [](const char* format, va_list args) { std::vfprintf(stderr, format, args); });
  }
  ClientLogCapture(const ClientLogCapture&) = delete;
  ClientLogCapture& operator=(const ClientLogCapture&) = delete;

  /// What was logged since the capture began.
  [[nodiscard]] static std::string& captured() {
    static std::string text;
    return text;
  }
};

}  // namespace baton::test
