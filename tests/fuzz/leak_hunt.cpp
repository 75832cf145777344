#include "tests/fuzz/leak_hunt.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#if defined(__SANITIZE_ADDRESS__)
#define BATON_FUZZ_HAS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BATON_FUZZ_HAS_LSAN 1
#endif
#endif

#ifdef BATON_FUZZ_HAS_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace baton::fuzz {

LeakHunt::LeakHunt() {
  const char* every = std::getenv("BATON_FUZZ_LEAK_HUNT");
  if (every == nullptr) return;
#ifdef BATON_FUZZ_HAS_LSAN
  every_ = std::strtoul(every, nullptr, 10);
  const char* dir = std::getenv("BATON_FUZZ_LEAK_HUNT_DIR");
  dir_ = dir != nullptr ? dir : ".";
  std::fprintf(stderr, "fuzz: leak hunt: a leak check after every %zu inputs\n", every_);
#else
  std::fprintf(stderr, "fuzz: BATON_FUZZ_LEAK_HUNT needs a build with ASan: no leak hunt\n");
#endif
}

void LeakHunt::after(const uint8_t* data, size_t size) {
  if (every_ == 0) return;
  recent_.emplace_back(data, data + size);
  if (recent_.size() < every_) return;
#ifdef BATON_FUZZ_HAS_LSAN
  if (__lsan_do_recoverable_leak_check() != 0) {
    for (size_t i = 0; i < recent_.size(); ++i) {
      std::ofstream out(dir_ + "/leak-hunt-" + std::to_string(i + 1), std::ios::binary);
      out.write(reinterpret_cast<const char*>(recent_[i].data()),
                static_cast<std::streamsize>(recent_[i].size()));
    }
    std::fprintf(stderr, "fuzz: leak hunt: a leak within the last %zu inputs, written to %s\n",
                 recent_.size(), dir_.c_str());
    std::abort();
  }
#endif
  recent_.clear();
}

}  // namespace baton::fuzz
