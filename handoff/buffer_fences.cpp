#include "handoff/buffer_fences.hpp"

#include <optional>
#include <string>

#include "handoff/explicit_sync.hpp"
#include "sync/sync_file.hpp"
#include "util/log.hpp"
#include "util/result.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// The fence a reader of `buffer` must wait for: its writers' implicit fences,
// merged over its planes; nothing for a buffer that is no dma-buf. An error
// when the kernel cannot export or merge them.
Result<std::optional<sync::SyncFile>> implicit_fence(wlr_buffer* buffer) {
  wlr_dmabuf_attributes attribs{};
  if (!wlr_buffer_get_dmabuf(buffer, &attribs)) return std::optional<sync::SyncFile>();
  std::optional<sync::SyncFile> merged;
  for (int i = 0; i < attribs.n_planes; ++i) {
    if (i > 0 && attribs.fd[i] == attribs.fd[i - 1]) continue;
    auto fence = sync::SyncFile::export_from_dmabuf(attribs.fd[i], sync::Access::read);
    if (!fence) return fence.error();
    if (!merged) {
      merged.emplace(std::move(*fence));
      continue;
    }
    auto both = sync::SyncFile::merge(*merged, *fence);
    if (!both) return both.error();
    merged.emplace(std::move(*both));
  }
  return merged;
}

}  // namespace

BufferFences::BufferFences(ExplicitSync* explicit_sync, Latch latch)
    : explicit_sync_(explicit_sync), latch_(latch) {
  if (latch_ == Latch::at_materialize)
    LOG_INFO(
        "readiness gate: latching commits once their acquire fence exists (wlroots' way): "
        "the render waits for it on the GPU, and every output waits for the slowest client");
}

std::optional<CommitWait> BufferFences::wait_of(wlr_surface* surface) {
  wlr_surface_state& pending = surface->pending;
  PendingCommit commit =
      explicit_sync_ != nullptr ? explicit_sync_->pending_commit(surface) : PendingCommit{};
  if (commit.sync == PendingCommit::Sync::rejected) return std::nullopt;
  if (commit.sync == PendingCommit::Sync::points) {
    const SyncobjPoints& points = *commit.points;
    if (!points.acquire_timeline) return std::nullopt;  // no buffer in this commit
    const bool early = latch_ == Latch::at_materialize;
    auto efd = points.acquire_timeline->eventfd(
        points.acquire_point,
        early ? sync::Timeline::WaitFor::available : sync::Timeline::WaitFor::signalled);
    if (!efd) {
      // Not the client's fault as far as the protocol knows; still fatal.
      wl_client_post_implementation_error(wl_resource_get_client(surface->resource),
                                          "cannot wait for the acquire point: %s",
                                          efd.error().describe().c_str());
      return std::nullopt;
    }
    CommitWait fence{std::move(*efd), "acquire point " + std::to_string(points.acquire_point), {}};
    if (early && pending.buffer != nullptr) {
      // The acquire fence becomes the dma-buf's implicit write fence, which
      // the renderer waits for on the GPU before sampling it.
      fence.before_apply = [timeline = points.acquire_timeline, point = points.acquire_point,
                            buffer = pending.buffer] {
        auto sync_file = timeline->export_sync_file(point);
        wlr_dmabuf_attributes attribs{};
        if (sync_file && wlr_buffer_get_dmabuf(buffer, &attribs))
          (void)sync_file->import_into_dmabuf(attribs.fd[0], sync::Access::write);
      };
    }
    return fence;
  }
  if ((pending.committed & WLR_SURFACE_STATE_BUFFER) == 0 || pending.buffer == nullptr)
    return std::nullopt;
  if (latch_ == Latch::at_materialize) return std::nullopt;  // the render waits for it
  auto sync_file = implicit_fence(pending.buffer);
  if (!sync_file) {
    LOG_ERROR("readiness gate: %s; showing the buffer unwaited",
              sync_file.error().describe().c_str());
    return std::nullopt;
  }
  if (!*sync_file) return std::nullopt;
  return CommitWait{(*sync_file)->release(), "implicit fence of its dma-buf", {}};
}

}  // namespace baton
