// libFuzzer's entry point for the protocol fuzzer (tests/fuzz/session.hpp).
// Built with clang and -fsanitize=fuzzer by tools/fuzz; in every other build
// tests/fuzz/replay.cpp supplies main() and runs saved inputs through it.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/leak_hunt.hpp"
#include "tests/fuzz/session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One Server for the whole run, as libFuzzer runs inputs in one process;
  // made on the first input so that its start is not inside libFuzzer's set-up.
  static baton::fuzz::Session session;
  static baton::fuzz::LeakHunt hunt;
  session.run(data, size);
  hunt.after(data, size);
  return 0;
}
