#include "sync/sync_file.hpp"

#include <fcntl.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace baton::sync {
namespace {

uint32_t dma_buf_flags(Access access) {
  switch (access) {
    case Access::read:
      return DMA_BUF_SYNC_READ;
    case Access::write:
      return DMA_BUF_SYNC_WRITE;
    case Access::read_write:
      return DMA_BUF_SYNC_RW;
  }
  return DMA_BUF_SYNC_RW;
}

// ioctl that retries when a signal interrupts it.
int xioctl(int fd, unsigned long request, void* arg) {
  int r;
  do r = ioctl(fd, request, arg);
  while (r < 0 && errno == EINTR);
  return r;
}

Result<bool> poll_for(int fd, short events, std::chrono::milliseconds timeout, const char* call) {
  pollfd p{fd, events, 0};
  int r;
  do r = poll(&p, 1, static_cast<int>(timeout.count()));
  while (r < 0 && errno == EINTR);
  if (r < 0) return last_error(call);
  if (r > 0 && (p.revents & (POLLERR | POLLNVAL)) != 0) return Error{call, EBADF};
  return r > 0 && (p.revents & events) != 0;
}

}  // namespace

Result<SyncFile> SyncFile::export_from_dmabuf(int dmabuf_fd, Access access) {
  dma_buf_export_sync_file arg{};
  arg.flags = dma_buf_flags(access);
  arg.fd = -1;
  if (xioctl(dmabuf_fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &arg) < 0)
    return last_error("DMA_BUF_IOCTL_EXPORT_SYNC_FILE");
  return SyncFile(UniqueFd(arg.fd));
}

Result<SyncFile> SyncFile::merge(const SyncFile& a, const SyncFile& b) {
  sync_merge_data arg{};
  std::strncpy(arg.name, "baton-merge", sizeof(arg.name) - 1);
  arg.fd2 = b.fd();
  if (xioctl(a.fd(), SYNC_IOC_MERGE, &arg) < 0) return last_error("SYNC_IOC_MERGE");
  return SyncFile(UniqueFd(arg.fence));
}

Status SyncFile::import_into_dmabuf(int dmabuf_fd, Access access) const {
  dma_buf_import_sync_file arg{};
  arg.flags = dma_buf_flags(access);
  arg.fd = fd();
  if (xioctl(dmabuf_fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &arg) < 0)
    return last_error("DMA_BUF_IOCTL_IMPORT_SYNC_FILE");
  return {};
}

Result<bool> SyncFile::wait(std::chrono::milliseconds timeout) const {
  return poll_for(fd(), POLLIN, timeout, "poll(sync_file)");
}

Result<SyncFile::Info> SyncFile::info() const {
  sync_file_info arg{};
  if (xioctl(fd(), SYNC_IOC_FILE_INFO, &arg) < 0) return last_error("SYNC_IOC_FILE_INFO");
  Info info;
  info.name.assign(arg.name, strnlen(arg.name, sizeof(arg.name)));
  info.status = arg.status;
  info.fence_count = arg.num_fences;
  return info;
}

Result<std::optional<int64_t>> SyncFile::signalled_at() const {
  sync_file_info arg{};
  if (xioctl(fd(), SYNC_IOC_FILE_INFO, &arg) < 0) return last_error("SYNC_IOC_FILE_INFO");
  if (arg.status != 1) return std::optional<int64_t>();
  std::vector<sync_fence_info> fences(arg.num_fences);
  arg.sync_fence_info = reinterpret_cast<uintptr_t>(fences.data());
  if (xioctl(fd(), SYNC_IOC_FILE_INFO, &arg) < 0) return last_error("SYNC_IOC_FILE_INFO");
  int64_t last = 0;
  for (const sync_fence_info& f : fences)
    last = std::max(last, static_cast<int64_t>(f.timestamp_ns));
  return std::optional<int64_t>(last);
}

Result<SyncFile> SyncFile::duplicate() const {
  auto copy = UniqueFd::duplicate_of(fd());
  if (!copy) return copy.error();
  return SyncFile(std::move(*copy));
}

Result<bool> wait_dmabuf(int dmabuf_fd, Access access, std::chrono::milliseconds timeout) {
  short events = access == Access::read ? POLLIN : POLLOUT;
  return poll_for(dmabuf_fd, events, timeout, "poll(dma-buf)");
}

}  // namespace baton::sync
