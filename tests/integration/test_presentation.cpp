// presentation-time feedback as a real client process measures it through
// a running baton: every frame presented, in order, at the output's period;
// headless outputs present on a timer, so they must not claim vsync or a
// hardware clock. (The KMS flags are checked in the VM suite.) On the Vulkan
// renderer, named: there an output commits once the GPU finished its frame.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/support/process.hpp"

namespace baton::test {
namespace {

TEST(Presentation, HeadlessFramesArePresentedInOrderWithoutHardwareClaims) {
  const char* probe = std::getenv("BATON_PRESENTATION_PROBE");
  ASSERT_NE(probe, nullptr) << "BATON_PRESENTATION_PROBE is not set (run through meson test)";
  std::string dir = scratch_dir("presentation-headless");
  auto status =
      run_baton({"--backend", "headless", "--renderer", "vulkan", "--headless-size", "640x480@60",
                 "--exit-with-session", "-s",
                 std::string(probe) + " --frames 60 --expect-flags none --refresh-ns 16666666"},
                dir + "/baton.log", std::chrono::milliseconds(30000));
  std::string log = read_file(dir + "/baton.log");
  EXPECT_EQ(status, 0) << log;
  EXPECT_NE(log.find("presentation-probe: PASS: 60 frames presented"), std::string::npos) << log;
}

}  // namespace
}  // namespace baton::test
