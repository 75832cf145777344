#include "compositor/output/screenshot_writer.hpp"

#include <csignal>

#include "compositor/output/output.hpp"
#include "compositor/server.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

ScreenshotWriter::ScreenshotWriter(Server& server, std::string path, int delay_ms, bool exit_after)
    : server_(server), path_(std::move(path)), delay_ms_(delay_ms), exit_after_(exit_after) {
  timer_ = EventSource::timer(server.event_loop(), [this]() { capture_all(); });
  on_signal_ = EventSource::signal(server.event_loop(), SIGUSR1, [this]() { capture_all(); });
  view_mapped_ = server.events().view_mapped.connect([this](View&) { window_mapped(); });
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
  std::vector<Output*> outputs = server_.outputs();
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
        LOG_INFO("screenshot of %s (%dx%d) written to %s", name.c_str(), image.width, image.height,
                 path.c_str());
      }
      if (--pending_ == 0 && exit_after_) server_.terminate(image.empty() ? 1 : 0);
    });
  }
}

}  // namespace baton
