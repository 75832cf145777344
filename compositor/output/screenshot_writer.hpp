// --screenshot: once the first client window has mapped and had time to
// draw, writes a PNG of every output and optionally ends the server. SIGUSR1
// takes another one at once (tests that know when their frame is up).
#pragma once

#include <memory>
#include <string>

#include "util/event_source.hpp"
#include "util/signal.hpp"

namespace baton {

class Server;

class ScreenshotWriter {
 public:
  ScreenshotWriter(Server& server, std::string path, int delay_ms, bool exit_after);
  ScreenshotWriter(const ScreenshotWriter&) = delete;
  ScreenshotWriter& operator=(const ScreenshotWriter&) = delete;

  /// Output N's file: PATH for output 0, PATH with -N before .png after.
  [[nodiscard]] static std::string path_for_output(const std::string& path, size_t index);

 private:
  /// Any window mapped; the first one starts the countdown.
  void window_mapped();
  void capture_all();

  Server& server_;
  std::string path_;
  int delay_ms_;
  bool exit_after_;
  bool started_ = false;
  size_t pending_ = 0;
  std::unique_ptr<EventSource> timer_;
  std::unique_ptr<EventSource> on_signal_;
  Connection view_mapped_;
};

}  // namespace baton
