#include "handoff/release_tracker.hpp"

#include <algorithm>

#include "handoff/release_watch.hpp"

namespace baton {

ReleaseTracker::ReleaseTracker(std::unique_ptr<GpuReadsWatch> gpu) : gpu_(std::move(gpu)) {}

ReleaseTracker::~ReleaseTracker() {
  for (auto* list : {&in_use_, &gpu_reading_}) {
    for (auto& release : *list) release->finish();
    list->clear();
  }
}

size_t ReleaseTracker::pending() const { return in_use_.size() + gpu_reading_.size(); }

void ReleaseTracker::release_when_done(wlr_buffer* buffer,
                                       std::function<void(UniqueFd)> signal_release) {
  in_use_.push_back(std::make_unique<ReleaseWatch>(
      buffer, *gpu_, std::move(signal_release), [this](ReleaseWatch& gone) { buffer_gone(gone); },
      [this](ReleaseWatch& released) { forget(released); }));
}

void ReleaseTracker::buffer_gone(ReleaseWatch& watch) {
  auto it = std::find_if(in_use_.begin(), in_use_.end(),
                         [&](const auto& r) { return r.get() == &watch; });
  if (it == in_use_.end()) return;
  if (watch.try_signal()) {
    in_use_.erase(it);
    return;
  }
  // A submitted pass still samples the buffer: release it once that finished.
  gpu_reading_.splice(gpu_reading_.end(), in_use_, it);
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
  if (!watch->when_reads_done([this, watch] { wait_for_gpu(watch); })) {
    // Nothing can wake the loop for it: wait here rather than never release.
    watch->finish();
    gpu_reading_.erase(it);
  }
}

void ReleaseTracker::forget(ReleaseWatch& watch) {
  for (auto* list : {&in_use_, &gpu_reading_}) {
    auto it =
        std::find_if(list->begin(), list->end(), [&](const auto& r) { return r.get() == &watch; });
    if (it != list->end()) {
      list->erase(it);
      return;
    }
  }
}

}  // namespace baton
