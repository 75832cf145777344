#include "handoff/release_watch.hpp"

#include "util/wlr.hpp"

namespace baton {
namespace {

// The GPU reads a client buffer through its wlr_client_buffer's texture.
std::unique_ptr<GpuReads> reads_of(GpuReadsWatch& gpu, wlr_buffer* buffer) {
  wlr_client_buffer* client = wlr_client_buffer_get(buffer);
  return gpu.reads_of(client != nullptr ? client->texture : nullptr);
}

}  // namespace

ReleaseWatch::ReleaseWatch(wlr_buffer* buffer, GpuReadsWatch& gpu,
                           std::function<void(UniqueFd)> signal_release,
                           std::function<void(ReleaseWatch&)> buffer_gone,
                           std::function<void(ReleaseWatch&)> released)
    : buffer_(buffer),
      gpu_(gpu),
      signal_release_(std::move(signal_release)),
      released_(std::move(released)) {
  if (wlr_client_buffer* client = wlr_client_buffer_get(buffer); client != nullptr)
    source_ = client->source;
  if (source_ != nullptr) {
    source_release_.connect(&source_->events.release, [this](void*) { source_let_go(); });
    source_destroy_.connect(&source_->events.destroy, [this](void*) {
      // Gone, perhaps with our reads still running (a client buffer given
      // back with them fenced in the kernel): nothing of it is left to watch.
      source_ = nullptr;
      source_release_.disconnect();
      source_destroy_.disconnect();
      source_let_go();
    });
  }
  destroy_.connect(&buffer->events.destroy, [this, buffer_gone = std::move(buffer_gone)](void*) {
    // wlroots emits this before the client buffer frees its texture: the
    // texture still says which submitted work reads it.
    reads_ = reads_of(gpu_, buffer_);
    buffer_ = nullptr;
    destroy_.disconnect();
    buffer_gone(*this);
  });
}

UniqueFd ReleaseWatch::reads_fence(bool& ready) {
  ready = reads_done();
  if (ready) return {};
  UniqueFd fence = reads_->fence();
  ready = fence.valid();
  return fence;
}

bool ReleaseWatch::try_signal() {
  if (!signal_release_) return true;
  if (buffer_ != nullptr || waits_for_scanout()) return false;
  bool ready = false;
  UniqueFd fence = reads_fence(ready);
  if (!ready) return false;
  signal(std::move(fence));
  return true;
}

bool ReleaseWatch::waits_for_scanout() {
  // Our texture's lock on it is gone with the client buffer and its reads
  // (or at once, when those reads are fenced in the kernel).
  bool ready = false;
  (void)reads_fence(ready);
  return buffer_ == nullptr && source_ != nullptr && source_->n_locks > 0 && ready;
}

void ReleaseWatch::source_let_go() {
  if (!signal_release_ || buffer_ != nullptr) return;
  bool ready = false;
  UniqueFd fence = reads_fence(ready);
  if (!ready) return;  // the usual path signals
  signal(std::move(fence));
  if (released_) released_(*this);
}

void ReleaseWatch::finish() {
  if (buffer_ != nullptr) reads_ = reads_of(gpu_, buffer_);
  if (reads_ != nullptr) reads_->wait();
  signal(UniqueFd());
}

bool ReleaseWatch::when_reads_done(std::function<void()> then) {
  return reads_ != nullptr && reads_->when_done(std::move(then));
}

void ReleaseWatch::signal(UniqueFd fence) {
  source_release_.disconnect();
  source_destroy_.disconnect();
  if (!signal_release_) return;
  std::function<void(UniqueFd)> signal_release = std::move(signal_release_);
  signal_release_ = nullptr;
  signal_release(std::move(fence));
}

}  // namespace baton
