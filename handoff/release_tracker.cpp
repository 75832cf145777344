#include "handoff/release_tracker.hpp"

#include <algorithm>

#include "handoff/release_watch.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

ReleaseTracker::ReleaseTracker(wlr_compositor* compositor, std::unique_ptr<GpuReadsWatch> gpu)
    : gpu_(std::move(gpu)) {
  if (compositor == nullptr) return;
  new_surface_.connect(&compositor->events.new_surface, [this](wlr_surface* surface) {
    SurfaceHooks& hooks = surfaces_.emplace_back();
    hooks.commit.connect(&surface->events.commit,
                         [this, surface](void*) { surface_committed(surface); });
    hooks.destroy.connect(&surface->events.destroy, [this, &hooks](void*) {
      surfaces_.remove_if([&](const SurfaceHooks& h) { return &h == &hooks; });
    });
  });
}

ReleaseTracker::~ReleaseTracker() {
  // finish() pays and frees each watch through paid().
  while (!watches_.empty()) watches_.front()->finish();
  // Tests grep this line: tests/vm/late_gpu_test.sh, tests/vm/release_poison_test.sh.
  LOG_INFO(
      "handoff: %llu release points carried the GPU reads' fence, %llu were signalled once the "
      "reads were done; %llu client dma-bufs went back before their reads finished, held by "
      "that fence",
      static_cast<unsigned long long>(points_with_fence_),
      static_cast<unsigned long long>(points_signalled_),
      static_cast<unsigned long long>(dmabufs_back_fenced_));
}

void ReleaseTracker::surface_committed(wlr_surface* surface) {
  // wlroots unlocks the commit's buffer right after this event: a client
  // dma-buf whose texture the GPU reads is kept from here on. A wl_shm
  // buffer was copied at the commit, and one wlroots could not import was
  // never read: both go back at once.
  wlr_buffer* committed = surface->current.buffer;
  wlr_client_buffer* shown = surface->buffer;
  if (committed == nullptr || shown == nullptr || shown->source != committed) return;
  wlr_dmabuf_attributes attribs{};
  if (!wlr_buffer_get_dmabuf(committed, &attribs)) return;
  hold_until_done(&shown->base, BufferLock(committed));
}

ReleaseWatch& ReleaseTracker::watch_for(wlr_buffer* in_use) {
  auto it = std::find_if(watches_.begin(), watches_.end(),
                         [&](const auto& w) { return w->in_use() == in_use; });
  if (it != watches_.end()) return **it;
  return *watches_.emplace_back(std::make_unique<ReleaseWatch>(*this, in_use));
}

void ReleaseTracker::release_point_when_done(wlr_buffer* in_use, ReleasePoint point) {
  if (in_use == nullptr) {
    count_point(point.pay(UniqueFd()));
    return;
  }
  watch_for(in_use).owe(std::move(point));
}

void ReleaseTracker::hold_until_done(wlr_buffer* in_use, BufferLock held) {
  watch_for(in_use).hold(std::move(held));
}

void ReleaseTracker::paid(ReleaseWatch& watch) {
  watches_.remove_if([&](const auto& w) { return w.get() == &watch; });
}

bool ReleasePoint::pay(UniqueFd reads_fence) const {
  const bool with_fence = reads_fence.valid();
  Status s = with_fence ? timeline->import_sync_file(point, sync::SyncFile(std::move(reads_fence)))
                        : timeline->signal(point);
  if (!s)
    LOG_ERROR("release point %llu: %s", static_cast<unsigned long long>(point),
              s.error().describe().c_str());
  return with_fence;
}

}  // namespace baton
