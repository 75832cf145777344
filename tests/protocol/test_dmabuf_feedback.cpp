// Per-surface dma-buf feedback on the headless backend: an Output says a
// surface could be scanned out only on KMS (compositor/output/output.cpp),
// and the scanout tranche of linux-dmabuf (protocols/linux_dmabuf.cpp) comes
// only from that. A fullscreen window on a headless output is never one; on
// vkms it is (tests/vm/feedback_test.sh, in the guest).
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/output/output.hpp"
#include "tests/support/client.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/map_window.hpp"
#include "util/signal.hpp"
#include "xdg-shell-client-protocol.h"

namespace baton::test {
namespace {

TEST(DmabufFeedback, FullscreenOnHeadlessIsNoScanoutCandidate) {
  Harness h;
  int announced = 0;
  std::vector<Connection> watching;
  for (Output* output : h.server().outputs())
    watching.push_back(
        output->scanout_candidate_changed.connect([&](const ScanoutCandidate&) { ++announced; }));
  ASSERT_FALSE(watching.empty());
  Client c(h);
  Window w(c);
  View* view = map_window(h, w, 0xff204080);
  ASSERT_NE(view, nullptr);
  xdg_toplevel_set_fullscreen(w.toplevel(), nullptr);
  ASSERT_TRUE(h.run_until([&] { return w.last_configure().width == 640; }))
      << "no fullscreen configure";
  w.draw(640, 480, 0xff204080);
  ASSERT_TRUE(h.run_until([&] { return view->fullscreen(); }));
  const uint64_t frames = h.server().outputs().front()->frames();
  for (int i = 0; i < 3; ++i) {  // frames that see the fullscreen window
    w.draw(640, 480, 0xff204080 + static_cast<uint32_t>(i));
    h.run_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(h.run_until([&] { return h.server().outputs().front()->frames() > frames + 1; }));
  EXPECT_EQ(announced, 0) << "a headless output announced a scanout candidate";
}

}  // namespace
}  // namespace baton::test
