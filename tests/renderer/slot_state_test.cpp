// The swapchain slot life cycle, without a GPU.
#include "renderer/vulkan/swapchain/slot_state.hpp"

#include <gtest/gtest.h>

namespace baton::vulkan {
namespace {

SlotState walk(std::initializer_list<SlotEvent> events) {
  SlotState state = SlotState::free;
  for (SlotEvent e : events) {
    std::optional<SlotState> next = next_state(state, e);
    EXPECT_TRUE(next.has_value()) << slot_state_name(state) << " + " << static_cast<int>(e);
    if (next) state = *next;
  }
  return state;
}

TEST(SlotState, AFrameWalksFreeRenderingQueuedOnScreenFree) {
  EXPECT_EQ(walk({SlotEvent::begin_pass}), SlotState::rendering);
  EXPECT_EQ(walk({SlotEvent::begin_pass, SlotEvent::submitted}), SlotState::queued);
  EXPECT_EQ(walk({SlotEvent::begin_pass, SlotEvent::submitted, SlotEvent::presented}),
            SlotState::on_screen);
  EXPECT_EQ(walk({SlotEvent::begin_pass, SlotEvent::submitted, SlotEvent::presented,
                  SlotEvent::released}),
            SlotState::free);
}

TEST(SlotState, NoPassIntoASlotOnScreenOrAlreadyOpen) {
  EXPECT_FALSE(next_state(SlotState::on_screen, SlotEvent::begin_pass));
  EXPECT_FALSE(next_state(SlotState::rendering, SlotEvent::begin_pass));
  // Its holder may draw again before handing it on.
  EXPECT_EQ(next_state(SlotState::queued, SlotEvent::begin_pass), SlotState::rendering);
}

TEST(SlotState, OnlySubmittedSlotsArePresented) {
  EXPECT_FALSE(next_state(SlotState::free, SlotEvent::presented));
  EXPECT_FALSE(next_state(SlotState::rendering, SlotEvent::presented));
  EXPECT_EQ(next_state(SlotState::on_screen, SlotEvent::presented), SlotState::on_screen);
}

TEST(SlotState, AFailedSubmitFreesAndAnOpenPassIsNeverReleased) {
  EXPECT_EQ(walk({SlotEvent::begin_pass, SlotEvent::submit_failed}), SlotState::free);
  EXPECT_FALSE(next_state(SlotState::rendering, SlotEvent::released));
  EXPECT_FALSE(next_state(SlotState::free, SlotEvent::submitted));
  EXPECT_EQ(next_state(SlotState::queued, SlotEvent::released), SlotState::free);
}

}  // namespace
}  // namespace baton::vulkan
