#include "renderer/vulkan/texture/reads_watch.hpp"

#include <wayland-server-core.h>

#include "renderer/vulkan/device/completion_watch.hpp"
#include "renderer/vulkan/device/device.hpp"
#include "util/log.hpp"

namespace baton::vulkan {
namespace {

class WatchedReads final : public GpuReads {
 public:
  WatchedReads(TextureReadsWatch& watch, TextureReads reads)
      : watch_(watch), reads_(std::move(reads)) {}
  bool done() override { return reads_.done(); }
  void wait() override { reads_.wait(); }
  UniqueFd fence() override { return reads_.fence(); }
  bool when_done(std::function<void()> then) override {
    // Dropped once this object is gone: its owner may be gone too.
    return watch_.when_done(reads_, [alive = std::weak_ptr<int>(alive_), then = std::move(then)] {
      if (!alive.expired()) then();
    });
  }

 private:
  TextureReadsWatch& watch_;
  TextureReads reads_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace

TextureReadsWatch::TextureReadsWatch(wl_event_loop* loop,
                                     std::function<TextureReads(wlr_texture*)> reads_of_texture)
    : loop_(loop), reads_of_texture_(std::move(reads_of_texture)) {}

TextureReadsWatch::~TextureReadsWatch() {
  if (retry_idle_ != nullptr) wl_event_source_remove(retry_idle_);
}

std::unique_ptr<GpuReads> TextureReadsWatch::reads_of(wlr_texture* texture) {
  return std::make_unique<WatchedReads>(*this, reads_of_texture_(texture));
}

bool TextureReadsWatch::when_done(const TextureReads& reads, std::function<void()> then) {
  std::optional<uint64_t> point = reads.point();
  if (!point) {
    // Passes are submitted in the dispatch that records them: look again
    // when the loop goes idle.
    unsubmitted_.emplace_back(reads, std::move(then));
    if (retry_idle_ == nullptr)
      retry_idle_ = wl_event_loop_add_idle(
          loop_, [](void* data) { static_cast<TextureReadsWatch*>(data)->retry_unsubmitted(); },
          this);
    return true;
  }
  CompletionWatch* completion = completion_for(reads.device());
  if (completion == nullptr) return false;
  completion->when_done(*point, std::move(then));
  return true;
}

void TextureReadsWatch::retry_unsubmitted() {
  retry_idle_ = nullptr;
  std::vector<std::pair<TextureReads, std::function<void()>>> waiting;
  waiting.swap(unsubmitted_);
  for (auto& [reads, then] : waiting) {
    const std::shared_ptr<Device> device = reads.device();
    CompletionWatch* completion = completion_for(device);
    if (completion == nullptr) {
      // Nothing can wake the loop for them: wait here rather than never.
      reads.wait();
      then();
      continue;
    }
    // A pass still open after the loop went idle (kept open across
    // dispatches) is submitted after everything submitted so far: look again
    // once the next submission finished. (Another idle callback would spin
    // the loop.)
    completion->when_done(reads.point().value_or(device->submitted() + 1), std::move(then));
  }
}

CompletionWatch* TextureReadsWatch::completion_for(const std::shared_ptr<Device>& device) {
  if (!device) return nullptr;
  for (const auto& c : completions_)
    if (c->device() == device) return c.get();
  // A new device (the renderer was rebuilt): watches of old ones with nothing
  // left to wait for go. (Never called from a watch's own callback with a new
  // device, so none is freed while it runs.)
  std::erase_if(completions_, [](const auto& c) { return c->pending() == 0; });
  auto created = CompletionWatch::of(device, loop_);
  if (!created) {
    LOG_ERROR("release points: %s", created.error().describe().c_str());
    return nullptr;
  }
  completions_.push_back(std::move(*created));
  return completions_.back().get();
}

}  // namespace baton::vulkan
