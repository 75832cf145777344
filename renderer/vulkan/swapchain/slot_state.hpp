// The life of a swapchain slot: free -> rendering -> queued -> on_screen ->
// free. A pure function, so the rules are tested without a GPU.
//
// free:      nobody holds it; its reuse fence (if any) is kept for the
//            next pass, which waits for it on the GPU before drawing.
// rendering: a pass is open on it.
// queued:    submitted; its timeline point says when the GPU is done.
// on_screen: the output committed it; the display may be reading it.
#pragma once

#include <optional>

namespace baton::vulkan {

enum class SlotState { free, rendering, queued, on_screen };
enum class SlotEvent { begin_pass, submitted, submit_failed, presented, released };

/// The state after `event`, or nullopt when the life cycle forbids it
/// (drawing into a slot on screen, presenting an unsubmitted one).
[[nodiscard]] std::optional<SlotState> next_state(SlotState state, SlotEvent event);

[[nodiscard]] const char* slot_state_name(SlotState state);

}  // namespace baton::vulkan
