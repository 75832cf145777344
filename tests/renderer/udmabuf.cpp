#include "tests/renderer/udmabuf.hpp"

#include <unistd.h>

namespace baton::test {

std::unique_ptr<testing::Udmabuf> make_udmabuf(size_t bytes, std::string& why) {
  if (access("/dev/udmabuf", R_OK | W_OK) != 0) {
    why = "UNTESTED: /dev/udmabuf is missing (run in tests/vm/: vk-dmabuf)";
    return nullptr;
  }
  auto made = testing::Udmabuf::create(bytes);
  if (!made) {
    why = "a udmabuf could not be made: " + made.error().describe();
    return nullptr;
  }
  return std::make_unique<testing::Udmabuf>(std::move(*made));
}

}  // namespace baton::test
