// A linux-dmabuf v4+ feedback object as a client reads it: the format
// table, then tranches of (format, modifier) pairs, complete at each `done`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "linux-dmabuf-v1-client-protocol.h"

namespace baton::testing {

using Pair = std::pair<uint32_t, uint64_t>;  // format, modifier
using Pairs = std::set<Pair>;

struct Tranche {
  dev_t target = 0;
  uint32_t flags = 0;
  Pairs pairs;
};

/// One feedback object's latest complete state (done), and the one building.
struct Feedback {
  std::vector<Pair> table;
  std::vector<Tranche> tranches, building;
  Tranche tranche;
  int dones = 0;

  [[nodiscard]] bool has_scanout() const {
    return !tranches.empty() &&
           (tranches[0].flags & ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT);
  }
};

/// Fills the Feedback passed as the listener's data.
extern const zwp_linux_dmabuf_feedback_v1_listener kFeedbackListener;

/// "XR24:0x0000000000000000", and a set of them.
[[nodiscard]] std::string describe(const Pair& p);
[[nodiscard]] std::string describe(const Pairs& pairs);

}  // namespace baton::testing
