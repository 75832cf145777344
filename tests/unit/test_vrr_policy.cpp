// adaptive_sync's modes: "off" and "on" are what they say; "game" follows a
// game on the output with hysteresis, so a moment's dip does not switch the
// panel's mode back and forth.
#include <gtest/gtest.h>

#include "compositor/output/vrr_policy.hpp"

namespace {

using baton::AdaptiveSyncMode;
using baton::VrrPolicy;

constexpr int64_t kMs = 1'000'000;

TEST(VrrPolicy, OffAndOnIgnoreTheContent) {
  VrrPolicy policy;
  policy.set_mode(AdaptiveSyncMode::off);
  EXPECT_FALSE(policy.wanted(true, 1000 * kMs));
  EXPECT_FALSE(policy.wanted(true, 5000 * kMs));
  policy.set_mode(AdaptiveSyncMode::on);
  EXPECT_TRUE(policy.wanted(false, 6000 * kMs));
}

TEST(VrrPolicy, GameTurnsOnOnceAGameHeldAndOffOnceItWasGoneLonger) {
  VrrPolicy policy;
  policy.set_mode(AdaptiveSyncMode::game);
  int64_t t = 1000 * kMs;
  EXPECT_FALSE(policy.wanted(true, t));
  EXPECT_FALSE(policy.wanted(true, t + VrrPolicy::kOnAfterNs - kMs));
  EXPECT_TRUE(policy.wanted(true, t + VrrPolicy::kOnAfterNs));
  t += VrrPolicy::kOnAfterNs;
  // A dip shorter than the off delay keeps it on.
  EXPECT_TRUE(policy.wanted(false, t + 10 * kMs));
  EXPECT_TRUE(policy.wanted(false, t + VrrPolicy::kOffAfterNs));
  EXPECT_TRUE(policy.wanted(true, t + VrrPolicy::kOffAfterNs + 5 * kMs));
  // Gone for longer: off, and a flicker of a game does not turn it back on.
  const int64_t gone = t + 2 * VrrPolicy::kOffAfterNs;
  EXPECT_TRUE(policy.wanted(false, gone));
  EXPECT_FALSE(policy.wanted(false, gone + VrrPolicy::kOffAfterNs));
  EXPECT_FALSE(policy.wanted(true, gone + VrrPolicy::kOffAfterNs + kMs));
  EXPECT_FALSE(policy.wanted(false, gone + VrrPolicy::kOffAfterNs + 2 * kMs));
}

TEST(VrrPolicy, ChangingTheModeStartsOver) {
  VrrPolicy policy;
  policy.set_mode(AdaptiveSyncMode::game);
  EXPECT_FALSE(policy.wanted(true, 1000 * kMs));
  EXPECT_TRUE(policy.wanted(true, 2000 * kMs));
  policy.set_mode(AdaptiveSyncMode::on);
  policy.set_mode(AdaptiveSyncMode::game);
  EXPECT_FALSE(policy.wanted(true, 2001 * kMs));
}

}  // namespace
