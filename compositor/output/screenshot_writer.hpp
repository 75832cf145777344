// --screenshot: once the first client window has mapped and had time to
// draw, writes a PNG of every output and optionally ends the server. SIGUSR1
// takes another one at once (tests that know when their frame is up).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "util/event_source.hpp"

struct wl_event_loop;

namespace baton {

class Outputs;

class ScreenshotWriter {
 public:
  /// `terminate` ends the server with an exit code (after the shots, when
  /// `exit_after`).
  ScreenshotWriter(wl_event_loop* loop, const Outputs& outputs, std::string path, int delay_ms,
                   bool exit_after, std::function<void(int)> terminate);
  ScreenshotWriter(const ScreenshotWriter&) = delete;
  ScreenshotWriter& operator=(const ScreenshotWriter&) = delete;

  /// Output N's file: PATH for output 0, PATH with -N before .png after.
  [[nodiscard]] static std::string path_for_output(const std::string& path, size_t index);

  /// Any window mapped; the first one starts the countdown.
  void window_mapped();

 private:
  void capture_all();

  const Outputs& outputs_;
  std::function<void(int)> terminate_;
  std::string path_;
  int delay_ms_;
  bool exit_after_;
  bool started_ = false;
  size_t pending_ = 0;
  std::unique_ptr<EventSource> timer_;
  std::unique_ptr<EventSource> on_signal_;
};

}  // namespace baton
