#include "tests/clients/udmabuf.hpp"

#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <utility>

namespace baton::testing {

Result<Udmabuf> Udmabuf::create(size_t size) { return make(size, true); }

Result<Udmabuf> Udmabuf::create_memfd(size_t size) { return make(size, false); }

Result<Udmabuf> Udmabuf::make(size_t size, bool with_dmabuf) {
  Udmabuf buffer;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  buffer.size_ = (size + page - 1) / page * page;
  buffer.memfd_ = UniqueFd(memfd_create("baton-udmabuf", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!buffer.memfd_) return last_error("memfd_create");
  if (ftruncate(buffer.memfd_.get(), static_cast<off_t>(buffer.size_)) < 0)
    return last_error("ftruncate(memfd)");
  // udmabuf insists the memory can never shrink under the device.
  if (fcntl(buffer.memfd_.get(), F_ADD_SEALS, F_SEAL_SHRINK) < 0)
    return last_error("fcntl(F_ADD_SEALS)");
  if (with_dmabuf) {
    if (Status made = buffer.make_dmabuf(); !made) return made.error();
  }
  void* map =
      mmap(nullptr, buffer.size_, PROT_READ | PROT_WRITE, MAP_SHARED, buffer.memfd_.get(), 0);
  if (map == MAP_FAILED) return last_error("mmap(memfd)");
  buffer.map_ = map;
  return buffer;
}

Status Udmabuf::make_dmabuf() {
  UniqueFd dev(open("/dev/udmabuf", O_RDWR | O_CLOEXEC));
  if (!dev) return last_error("open(/dev/udmabuf)");
  udmabuf_create create{};
  create.memfd = static_cast<uint32_t>(memfd_.get());
  create.flags = UDMABUF_FLAGS_CLOEXEC;
  create.offset = 0;
  create.size = size_;
  int fd = ioctl(dev.get(), UDMABUF_CREATE, &create);
  if (fd < 0) return last_error("UDMABUF_CREATE");
  dmabuf_ = UniqueFd(fd);
  return {};
}

Udmabuf::Udmabuf(Udmabuf&& other) noexcept
    : memfd_(std::move(other.memfd_)),
      dmabuf_(std::move(other.dmabuf_)),
      size_(other.size_),
      map_(std::exchange(other.map_, nullptr)) {}

Udmabuf::~Udmabuf() {
  if (map_ != nullptr) munmap(map_, size_);
}

}  // namespace baton::testing
