// A client that misuses nothing but trusts the compositor completely: the
// instant a buffer comes back (its release point signalled, or
// wl_buffer.release), it paints it a poison colour. A compositor that gives a
// buffer back while it still reads it, or will read it again, shows poison.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "sync/timeline.hpp"
#include "tests/clients/producer_buffer.hpp"

namespace baton::testing {

inline constexpr uint32_t kPoison = 0x00f0f000;  // must never reach the screen

class ReleasePoisoner {
 public:
  ReleasePoisoner(ProducerBuffer& buffer, std::atomic<int>& poisoned)
      : buffer_(buffer), poisoned_(poisoned) {}
  ~ReleasePoisoner() { stop(); }
  ReleasePoisoner(const ReleasePoisoner&) = delete;
  ReleasePoisoner& operator=(const ReleasePoisoner&) = delete;

  /// Explicit sync: poisons the buffer from a thread the moment `point` of
  /// `timeline` signals.
  void watch(const sync::Timeline& timeline, uint64_t point);
  /// Implicit sync: the buffer was committed; released() brings it back.
  void watch_release_event() {
    back_ = false;
    implicit_ = true;
  }
  /// wl_buffer.release arrived (implicit sync), or the release point
  /// signalled (explicit): poisons the buffer now. Implicit sync first waits
  /// for the dma-buf's fences as a writer must (DMA_BUF_IOCTL_SYNC): the
  /// compositor may give the buffer back with its GPU read still running,
  /// fenced in the kernel.
  void released();
  /// Until the buffer is back (and poisoned); false after `timeout`.
  bool wait_back(std::chrono::milliseconds timeout);
  /// Whether the buffer is back (nothing of ours watches it).
  [[nodiscard]] bool back() const { return back_; }

 private:
  void stop();

  ProducerBuffer& buffer_;
  std::atomic<int>& poisoned_;
  std::thread watcher_;
  std::atomic<bool> back_{true};
  std::atomic<bool> stopping_{false};
  bool implicit_ = false;
};

}  // namespace baton::testing
