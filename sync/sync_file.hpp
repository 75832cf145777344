// SyncFile: an owned sync_file fd, the kernel's portable "fence as an fd",
// and the dma-buf implicit-sync calls that produce and consume them.
//
// A dma-buf carries implicit fences: writers' and readers'. Exporting with
// Access::read returns what a reader must wait for (the writers); exporting
// with Access::write returns what a writer must wait for (writers and
// readers). Importing a fence as Access::read makes it a reader's fence, so
// only later write exports see it; Access::write makes it a writer's fence.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::sync {

enum class Access { read, write, read_write };

class SyncFile {
 public:
  /// Takes ownership of a sync_file fd (not checked: see info()).
  explicit SyncFile(UniqueFd fd) : fd_(std::move(fd)) {}

  /// DMA_BUF_IOCTL_EXPORT_SYNC_FILE: a snapshot of the buffer's implicit
  /// fences that an accessor of kind `access` would wait for.
  static Result<SyncFile> export_from_dmabuf(int dmabuf_fd, Access access);

  /// SYNC_IOC_MERGE: a sync_file that signals once both have signalled.
  static Result<SyncFile> merge(const SyncFile& a, const SyncFile& b);

  /// DMA_BUF_IOCTL_IMPORT_SYNC_FILE: adds this fence to the buffer's implicit
  /// fences as a reader's (Access::read) or a writer's (write, read_write).
  Status import_into_dmabuf(int dmabuf_fd, Access access) const;

  /// poll(POLLIN) for up to `timeout`: true when signalled, false on timeout.
  /// Never call it with a non-zero timeout on the compositor's event loop;
  /// put fd() into the loop instead.
  Result<bool> wait(std::chrono::milliseconds timeout) const;
  Result<bool> signalled() const { return wait(std::chrono::milliseconds(0)); }

  struct Info {
    std::string name;
    int status = 0;  // 1 signalled, 0 active, < 0 error (SYNC_IOC_FILE_INFO)
    uint32_t fence_count = 0;
  };
  /// SYNC_IOC_FILE_INFO; fails with ENOTTY on an fd that is not a sync_file.
  Result<Info> info() const;
  /// When the last of its fences signalled (CLOCK_MONOTONIC, ns); nullopt
  /// while one is still pending.
  Result<std::optional<int64_t>> signalled_at() const;

  Result<SyncFile> duplicate() const;

  [[nodiscard]] int fd() const { return fd_.get(); }
  [[nodiscard]] UniqueFd release() { return std::move(fd_); }

 private:
  UniqueFd fd_;
};

/// poll() on a dma-buf itself, for up to `timeout`: Access::read waits for its
/// writers (POLLIN), write and read_write wait for all accessors (POLLOUT).
/// True when ready, false on timeout.
Result<bool> wait_dmabuf(int dmabuf_fd, Access access, std::chrono::milliseconds timeout);

}  // namespace baton::sync
