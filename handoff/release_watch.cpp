#include "handoff/release_watch.hpp"

#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// The GPU reads a client buffer through its wlr_client_buffer's texture.
vulkan::TextureReads reads_of(wlr_buffer* buffer) {
  wlr_client_buffer* client = wlr_client_buffer_get(buffer);
  return vulkan::texture_reads(client != nullptr ? client->texture : nullptr);
}

}  // namespace

ReleaseWatch::ReleaseWatch(wlr_buffer* buffer, std::shared_ptr<sync::Timeline> timeline,
                           uint64_t point, std::function<void(ReleaseWatch&)> buffer_gone)
    : buffer_(buffer), timeline_(std::move(timeline)), point_(point) {
  destroy_.connect(&buffer->events.destroy, [this, buffer_gone = std::move(buffer_gone)](void*) {
    // wlroots emits this before the client buffer frees its texture: the
    // texture still says which submitted work reads it.
    reads_ = reads_of(buffer_);
    buffer_ = nullptr;
    destroy_.disconnect();
    buffer_gone(*this);
  });
}

bool ReleaseWatch::try_signal() {
  if (!timeline_) return true;
  if (buffer_ != nullptr || !reads_.done()) return false;
  signal();
  return true;
}

void ReleaseWatch::finish() {
  if (buffer_ != nullptr) reads_ = reads_of(buffer_);
  reads_.wait();
  signal();
}

void ReleaseWatch::signal() {
  if (!timeline_) return;
  if (Status s = timeline_->signal(point_); !s)
    LOG_ERROR("linux-drm-syncobj: release point %llu: %s", static_cast<unsigned long long>(point_),
              s.error().describe().c_str());
  timeline_.reset();
}

}  // namespace baton
