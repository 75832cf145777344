// What tests and the benchmark ask of a running Vulkan renderer: counters,
// a full wait, and a simulated device loss. Production code does not include
// this header; the functions live in renderer.cpp beside what they read.
#pragma once

#include <cstdint>

struct wlr_renderer;

namespace baton::vulkan {

struct PassCounts {
  uint64_t raster = 0;
  uint64_t compute = 0;
};
/// Passes begun so far on each compositing path (tests check which one ran).
[[nodiscard]] PassCounts renderer_pass_counts(wlr_renderer* renderer);
struct UploadCounts {
  uint64_t copied = 0;      // rectangles uploaded by transfer command
  uint64_t dispatched = 0;  // ... and by the upload dispatch
};
/// Texture upload rectangles so far, by the way they went.
[[nodiscard]] UploadCounts renderer_upload_counts(wlr_renderer* renderer);
/// Debug-utils warnings and errors seen so far (validation layer messages).
[[nodiscard]] int renderer_debug_messages(wlr_renderer* renderer);
/// Waits until the GPU finished all submitted work.
void renderer_finish(wlr_renderer* renderer);
/// Behaves as if the GPU reported VK_ERROR_DEVICE_LOST: the next pass fails
/// and wlroots' `lost` signal is emitted (once), as for a real loss.
void renderer_simulate_device_lost(wlr_renderer* renderer);

}  // namespace baton::vulkan
