#include "renderer/vulkan/swapchain/slot_state.hpp"

namespace baton::vulkan {

std::optional<SlotState> next_state(SlotState state, SlotEvent event) {
  switch (event) {
    case SlotEvent::begin_pass:
      // queued: its holder draws again before handing it on; the one queue
      // orders the passes. Never into a slot on screen or with a pass open.
      if (state == SlotState::free || state == SlotState::queued) return SlotState::rendering;
      return std::nullopt;
    case SlotEvent::submitted:
      if (state == SlotState::rendering) return SlotState::queued;
      return std::nullopt;
    case SlotEvent::submit_failed:
      if (state == SlotState::rendering) return SlotState::free;
      return std::nullopt;
    case SlotEvent::presented:
      // Committing the same slot again (a frame with no damage) keeps it there.
      if (state == SlotState::queued || state == SlotState::on_screen) return SlotState::on_screen;
      return std::nullopt;
    case SlotEvent::released:
      // Released while a pass is open would free a slot being drawn into.
      if (state == SlotState::rendering) return std::nullopt;
      return SlotState::free;
  }
  return std::nullopt;
}

const char* slot_state_name(SlotState state) {
  switch (state) {
    case SlotState::free:
      return "free";
    case SlotState::rendering:
      return "rendering";
    case SlotState::queued:
      return "queued";
    case SlotState::on_screen:
      return "on_screen";
  }
  return "?";
}

}  // namespace baton::vulkan
