#include "tests/clients/release_poisoner.hpp"

#include <linux/dma-buf.h>
#include <sys/ioctl.h>

#include "tests/support/poll.hpp"

namespace baton::testing {

using namespace std::chrono_literals;

void ReleasePoisoner::watch(const sync::Timeline& timeline, uint64_t point) {
  stop();
  back_ = false;
  stopping_ = false;
  watcher_ = std::thread([this, &timeline, point] {
    // Short waits: the test may end while the compositor still shows it.
    while (!stopping_) {
      auto signalled = timeline.wait(point, sync::Timeline::WaitFor::signalled, 20ms);
      if (!signalled) return;
      if (*signalled) {
        released();
        return;
      }
    }
  });
}

void ReleasePoisoner::released() {
  if (implicit_ && buffer_.dmabuf() >= 0) {
    // Blocks until every fence on the buffer signalled, readers' included.
    dma_buf_sync sync{DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE};
    ioctl(buffer_.dmabuf(), DMA_BUF_IOCTL_SYNC, &sync);
    buffer_.write(kPoison);
    sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
    ioctl(buffer_.dmabuf(), DMA_BUF_IOCTL_SYNC, &sync);
  } else {
    buffer_.write(kPoison);
  }
  ++poisoned_;
  back_ = true;
}

bool ReleasePoisoner::wait_back(std::chrono::milliseconds timeout) {
  test::poll_until([this] { return back_.load(); }, timeout, 1ms);
  if (back_ && watcher_.joinable()) watcher_.join();
  return back_;
}

void ReleasePoisoner::stop() {
  stopping_ = true;
  if (watcher_.joinable()) watcher_.join();
}

}  // namespace baton::testing
