#include "handoff/release_tracker.hpp"

#include <algorithm>

#include "handoff/release_watch.hpp"
#include "renderer/vulkan/device/device.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

ReleaseTracker::ReleaseTracker(wl_event_loop* loop) : loop_(loop) {}

ReleaseTracker::~ReleaseTracker() {
  if (retry_idle_ != nullptr) wl_event_source_remove(retry_idle_);
  completions_.clear();  // their callbacks point here
  for (auto* list : {&held_, &gpu_reading_, &unsubmitted_}) {
    for (auto& release : *list) release->finish();
    list->clear();
  }
}

size_t ReleaseTracker::pending() const {
  return held_.size() + gpu_reading_.size() + unsubmitted_.size();
}

void ReleaseTracker::release_when_done(wlr_buffer* buffer, std::function<void()> signal_release) {
  held_.push_back(std::make_unique<ReleaseWatch>(
      buffer, std::move(signal_release), [this](ReleaseWatch& gone) { buffer_gone(gone); },
      [this](ReleaseWatch& released) { forget(released); }));
}

void ReleaseTracker::buffer_gone(ReleaseWatch& watch) {
  auto it =
      std::find_if(held_.begin(), held_.end(), [&](const auto& r) { return r.get() == &watch; });
  if (it == held_.end()) return;
  if (watch.try_signal()) {
    held_.erase(it);
    return;
  }
  // A submitted pass still samples the buffer: release it once that finished.
  gpu_reading_.splice(gpu_reading_.end(), held_, it);
  wait_for_gpu(&watch);
}

void ReleaseTracker::wait_for_gpu(ReleaseWatch* watch) {
  auto it = std::find_if(gpu_reading_.begin(), gpu_reading_.end(),
                         [&](const auto& r) { return r.get() == watch; });
  if (it == gpu_reading_.end()) return;
  if (watch->try_signal()) {
    gpu_reading_.erase(it);
    return;
  }
  if (watch->waits_for_scanout()) return;  // it signals itself, then forget()
  std::optional<uint64_t> point = watch->reads().point();
  if (!point && !retrying_) {
    // Passes are submitted in the dispatch that records them: look again
    // when the loop goes idle.
    unsubmitted_.splice(unsubmitted_.end(), gpu_reading_, it);
    if (retry_idle_ == nullptr)
      retry_idle_ = wl_event_loop_add_idle(
          loop_, [](void* data) { static_cast<ReleaseTracker*>(data)->retry_unsubmitted(); }, this);
    return;
  }
  const std::shared_ptr<vulkan::Device> device = watch->reads().device();
  vulkan::CompletionWatch* completion = completion_for(device);
  if (completion == nullptr) {
    // Nothing can wake the loop for it: wait here rather than never release.
    watch->finish();
    gpu_reading_.erase(it);
    return;
  }
  // A pass still open after the loop went idle (kept open across dispatches)
  // is submitted after everything submitted so far: look again once the next
  // submission finished. (Another idle callback would spin the loop.)
  if (!point) point = device->submitted() + 1;
  completion->when_done(*point, [this, watch] { wait_for_gpu(watch); });
}

void ReleaseTracker::forget(ReleaseWatch& watch) {
  for (auto* list : {&held_, &gpu_reading_, &unsubmitted_}) {
    auto it =
        std::find_if(list->begin(), list->end(), [&](const auto& r) { return r.get() == &watch; });
    if (it != list->end()) {
      list->erase(it);
      return;
    }
  }
}

void ReleaseTracker::retry_unsubmitted() {
  retry_idle_ = nullptr;
  std::list<std::unique_ptr<ReleaseWatch>> waiting;
  waiting.swap(unsubmitted_);
  retrying_ = true;
  while (!waiting.empty()) {
    ReleaseWatch* watch = waiting.front().get();
    gpu_reading_.splice(gpu_reading_.end(), waiting, waiting.begin());
    wait_for_gpu(watch);
  }
  retrying_ = false;
}

vulkan::CompletionWatch* ReleaseTracker::completion_for(
    const std::shared_ptr<vulkan::Device>& device) {
  if (!device) return nullptr;
  for (const auto& c : completions_)
    if (c->device() == device) return c.get();
  // A new device (the renderer was rebuilt): watches of old ones with nothing
  // left to wait for go. (Never called from a watch's own callback with a new
  // device, so none is freed while it runs.)
  std::erase_if(completions_, [](const auto& c) { return c->pending() == 0; });
  auto created = vulkan::CompletionWatch::create(device, loop_);
  if (!created) {
    LOG_ERROR("release points: %s", created.error().describe().c_str());
    return nullptr;
  }
  completions_.push_back(std::move(*created));
  return completions_.back().get();
}

}  // namespace baton
