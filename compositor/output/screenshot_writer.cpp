#include "compositor/output/screenshot_writer.hpp"

#include <csignal>

#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

ScreenshotWriter::ScreenshotWriter(wl_event_loop* loop, const Outputs& outputs, std::string path,
                                   int delay_ms, bool exit_after,
                                   std::function<void(int)> terminate)
    : outputs_(outputs),
      terminate_(std::move(terminate)),
      path_(std::move(path)),
      delay_ms_(delay_ms),
      exit_after_(exit_after) {
  timer_ = EventSource::timer(loop, [this]() { capture_all(); });
  on_signal_ = EventSource::signal(loop, SIGUSR1, [this]() { capture_all(); });
}

std::string ScreenshotWriter::path_for_output(const std::string& path, size_t index) {
  if (index == 0) return path;
  std::string suffix = "-" + std::to_string(index);
  if (path.size() > 4 && path.ends_with(".png"))
    return path.substr(0, path.size() - 4) + suffix + ".png";
  return path + suffix;
}

void ScreenshotWriter::window_mapped() {
  if (started_) return;
  started_ = true;
  // A zero timeout would disarm the timer.
  timer_->arm_ms(delay_ms_ > 0 ? delay_ms_ : 1);
}

void ScreenshotWriter::capture_all() {
  std::vector<Output*> outputs = outputs_.all();
  pending_ = outputs.size();
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = path_for_output(path_, i);
    std::string name = outputs[i]->wlr()->name;
    outputs[i]->capture([this, path, name](const Image& image) {
      if (image.empty()) {
        LOG_ERROR("screenshot of %s failed: no pixels could be read", name.c_str());
      } else if (Status written = write_png(path, image); !written) {
        LOG_ERROR("screenshot: %s", written.error().describe().c_str());
      } else {
        // tests grep this line: tests/vm/guest-baton.sh, tests/integration/test_nested.cpp
        LOG_INFO("screenshot of %s (%dx%d) written to %s", name.c_str(), image.width, image.height,
                 path.c_str());
      }
      if (--pending_ == 0 && exit_after_) terminate_(image.empty() ? 1 : 0);
    });
  }
}

}  // namespace baton
