#include "handoff/release_watch.hpp"

#include "handoff/release_tracker.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// The GPU reads a client buffer through its wlr_client_buffer's texture.
std::unique_ptr<GpuReads> reads_of(GpuReadsWatch& gpu, wlr_buffer* buffer) {
  wlr_client_buffer* client = wlr_client_buffer_get(buffer);
  return gpu.reads_of(client != nullptr ? client->texture : nullptr);
}

}  // namespace

ReleaseWatch::ReleaseWatch(ReleaseTracker& tracker, wlr_buffer* in_use)
    : tracker_(tracker), buffer_(in_use) {
  if (wlr_client_buffer* client = wlr_client_buffer_get(in_use); client != nullptr)
    source_ = client->source;
  if (source_ != nullptr) {
    source_release_.connect(&source_->events.release, [this](void*) { pay_when_let_go(); });
    source_destroy_.connect(&source_->events.destroy, [this](void*) {
      // Gone (the client destroyed it and nothing holds it): no scanout
      // can show it any more.
      source_ = nullptr;
      source_release_.disconnect();
      source_destroy_.disconnect();
      pay_when_let_go();
    });
  }
  destroy_.connect(&in_use->events.destroy, [this](void*) { buffer_gone(); });
}

void ReleaseWatch::buffer_gone() {
  // wlroots emits this before the client buffer frees its texture: the
  // texture still says which submitted work reads it.
  reads_ = reads_of(tracker_.gpu(), buffer_);
  buffer_ = nullptr;
  destroy_.disconnect();
  settle_reads();
}

void ReleaseWatch::settle_reads() {
  if (reads_->done()) {
    reads_settled(UniqueFd());
    return;
  }
  if (UniqueFd fence = reads_->fence(); fence.valid()) {
    // The kernel holds the client's writes until the reads are done: the
    // dma-buf carries that fence as a reader's, the release point will too.
    if (held_.get() != nullptr) tracker_.count_early_dmabuf();
    reads_settled(std::move(fence));
    return;
  }
  if (!reads_->when_done([this] { settle_reads(); })) {
    // Nothing can wake the loop for them: wait here rather than never pay.
    finish();
  }
}

void ReleaseWatch::reads_settled(UniqueFd fence) {
  fence_ = std::move(fence);
  // May destroy the client's buffer (the client let it go already): its
  // listener clears source_, before reads_over_ lets it pay.
  held_.reset();
  reads_over_ = true;
  pay_when_let_go();
}

void ReleaseWatch::pay_when_let_go() {
  if (!reads_over_) return;
  // A scanout still shows it: the client buffer's source is released once
  // the flip that replaced it is done (its listener comes back here).
  if (point_ && source_ != nullptr && source_->n_locks > 0) return;
  source_release_.disconnect();
  source_destroy_.disconnect();
  if (point_) tracker_.count_point(point_->pay(std::move(fence_)));
  tracker_.paid(*this);  // frees this watch
}

void ReleaseWatch::finish() {
  if (buffer_ != nullptr) reads_ = reads_of(tracker_.gpu(), buffer_);
  if (reads_ != nullptr) reads_->wait();
  held_.reset();
  source_release_.disconnect();
  source_destroy_.disconnect();
  destroy_.disconnect();
  if (point_) tracker_.count_point(point_->pay(UniqueFd()));
  tracker_.paid(*this);  // frees this watch
}

}  // namespace baton
