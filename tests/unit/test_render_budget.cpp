// The render loop's arithmetic: how the prediction follows frame times, how
// the margin follows missed vblanks, and where the vblanks fall.
#include <gtest/gtest.h>

#include "compositor/output/render_budget.hpp"

namespace {

using baton::first_vblank_not_before;
using baton::next_vblank_after;
using baton::RenderBudget;

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kRefresh = 16'666'667;

TEST(RenderBudget, FirstSampleIsThePrediction) {
  RenderBudget budget(kRefresh);
  budget.sample(3 * kMs);
  EXPECT_EQ(budget.prediction_ns(), 3 * kMs);
  EXPECT_EQ(budget.lead_ns(), 3 * kMs + RenderBudget::kStartMarginNs);
}

TEST(RenderBudget, RisesQuicklyTowardASlowFrame) {
  RenderBudget budget(kRefresh);
  budget.sample(2 * kMs);
  budget.sample(12 * kMs);
  // 90 % of the way in one frame.
  EXPECT_EQ(budget.prediction_ns(), 11 * kMs);
}

TEST(RenderBudget, DecaysSlowlyAfterFastFrames) {
  RenderBudget budget(kRefresh);
  budget.sample(10 * kMs);
  budget.sample(2 * kMs);
  EXPECT_GT(budget.prediction_ns(), 9 * kMs);  // one fast frame barely moves it
  for (int i = 0; i < 200; ++i) budget.sample(2 * kMs);
  EXPECT_LT(budget.prediction_ns(), 2 * kMs + kMs / 10);  // but many do
}

TEST(RenderBudget, MarginGrowsOnAMissAndShrinksSlowly) {
  RenderBudget budget(kRefresh);
  const int64_t start = budget.margin_ns();
  budget.missed_vblank();
  const int64_t after_miss = budget.margin_ns();
  EXPECT_GE(after_miss, start + RenderBudget::kMarginStepNs);
  budget.made_vblank();
  EXPECT_LT(budget.margin_ns(), after_miss);
  EXPECT_GT(budget.margin_ns(), after_miss - 100'000);  // slowly
  for (int i = 0; i < 10'000; ++i) budget.made_vblank();
  EXPECT_EQ(budget.margin_ns(), RenderBudget::kMinMarginNs);  // never below the floor
}

TEST(RenderBudget, MarginAndLeadNeverPassTheRefresh) {
  RenderBudget budget(kRefresh);
  for (int i = 0; i < 50; ++i) budget.missed_vblank();
  EXPECT_LE(budget.margin_ns(), kRefresh / 2);
  budget.sample(40 * kMs);
  EXPECT_EQ(budget.lead_ns(), kRefresh);  // renders right after the flip, no earlier
}

TEST(RenderBudget, IgnoresNegativeSamples) {
  RenderBudget budget(kRefresh);
  budget.sample(-5);
  EXPECT_EQ(budget.samples(), 0u);
  EXPECT_EQ(budget.prediction_ns(), RenderBudget::kStartPredictionNs);
}

TEST(Vblanks, NextAfterIsStrictlyLater) {
  const int64_t last = 1000 * kMs;
  EXPECT_EQ(next_vblank_after(last, kRefresh, last), last + kRefresh);
  EXPECT_EQ(next_vblank_after(last, kRefresh, last + 1), last + kRefresh);
  EXPECT_EQ(next_vblank_after(last, kRefresh, last + kRefresh), last + 2 * kRefresh);
  EXPECT_EQ(next_vblank_after(last, kRefresh, last + 5 * kRefresh + 7), last + 6 * kRefresh);
}

TEST(Vblanks, NotBeforeIncludesAVblankExactlyOnTheTarget) {
  const int64_t last = 1000 * kMs;
  EXPECT_EQ(first_vblank_not_before(last, kRefresh, last + kRefresh), last + kRefresh);
  EXPECT_EQ(first_vblank_not_before(last, kRefresh, last + kRefresh + 1), last + 2 * kRefresh);
  EXPECT_EQ(first_vblank_not_before(last, kRefresh, last - 3 * kRefresh), last);
}

}  // namespace
