// Finds the input that leaked, where the exit-time leak check can only say
// that something did. One Server lives for the whole run and libFuzzer stops
// checking each input for leaks after its first thousand tries (the Server's
// caches grow), so a leak among a million inputs is reported at exit with no
// input named.
//
// BATON_FUZZ_LEAK_HUNT=N runs LeakSanitizer's check after every N inputs
// and, when it finds a leak, writes those N inputs, oldest first, as
// leak-hunt-1 ... leak-hunt-N into BATON_FUZZ_LEAK_HUNT_DIR (default: the
// working directory) and aborts. Replay them in a fresh process to narrow it
// down. Unset, or in a build without ASan, it does nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace baton::fuzz {

class LeakHunt {
 public:
  LeakHunt();
  void after(const uint8_t* data, size_t size);

 private:
  size_t every_ = 0;
  std::string dir_;
  std::vector<std::vector<uint8_t>> recent_;
};

}  // namespace baton::fuzz
