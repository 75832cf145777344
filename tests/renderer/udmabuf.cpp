#include "tests/renderer/udmabuf.hpp"

#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace baton::test {

Udmabuf::~Udmabuf() {
  if (bytes != nullptr) munmap(bytes, size);
}

std::unique_ptr<Udmabuf> make_udmabuf(size_t bytes, std::string& why) {
  UniqueFd dev(open("/dev/udmabuf", O_RDWR | O_CLOEXEC));
  if (!dev) {
    why = "UNTESTED: /dev/udmabuf is missing (run in tests/vm/: vk-dmabuf)";
    return nullptr;
  }
  auto buffer = std::make_unique<Udmabuf>();
  buffer->size = 4096 * ((bytes + 4095) / 4096);
  UniqueFd mem(memfd_create("baton-udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC));
  void* mapped = MAP_FAILED;
  if (mem && ftruncate(mem.get(), off_t(buffer->size)) == 0 &&
      fcntl(mem.get(), F_ADD_SEALS, F_SEAL_SHRINK) == 0)
    mapped = mmap(nullptr, buffer->size, PROT_READ | PROT_WRITE, MAP_SHARED, mem.get(), 0);
  if (mapped == MAP_FAILED) {
    why = std::string("memfd: ") + std::strerror(errno);
    return nullptr;
  }
  buffer->bytes = static_cast<unsigned char*>(mapped);
  udmabuf_create create{};
  create.memfd = uint32_t(mem.get());
  create.flags = UDMABUF_FLAGS_CLOEXEC;
  create.size = buffer->size;
  buffer->fd = UniqueFd(ioctl(dev.get(), UDMABUF_CREATE, &create));
  if (!buffer->fd) {
    why = std::string("a udmabuf could not be made: ") + std::strerror(errno);
    return nullptr;
  }
  return buffer;
}

}  // namespace baton::test
