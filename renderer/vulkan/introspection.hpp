// What tests and the benchmark ask of a running Vulkan renderer: counters
// and a full wait. Production code does not include this header (a house
// rule checks it); the functions live in renderer.cpp beside what they read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "renderer/vulkan/counters.hpp"

struct wlr_renderer;

namespace baton::vulkan {

/// Passes begun so far on each compositing path (tests check which one ran).
[[nodiscard]] PassCounts renderer_pass_counts(wlr_renderer* renderer);
/// Texture upload rectangles so far, by the way they went.
[[nodiscard]] UploadCounts renderer_upload_counts(wlr_renderer* renderer);
/// Debug-utils warnings and errors seen so far (validation layer messages).
[[nodiscard]] int renderer_debug_messages(wlr_renderer* renderer);
/// Client dma-bufs imported as render targets (capture targets) and alive.
[[nodiscard]] size_t renderer_dmabuf_targets(wlr_renderer* renderer);
/// Blocking waits for the GPU made on the event loop's thread at `site`
/// ("read-back", ...) so far.
[[nodiscard]] uint64_t renderer_loop_waits(wlr_renderer* renderer, std::string_view site);
/// Staged texture upload bytes not yet submitted to the GPU.
[[nodiscard]] uint64_t renderer_pending_upload_bytes(wlr_renderer* renderer);
/// Waits until the GPU finished all submitted work.
void renderer_finish(wlr_renderer* renderer);
/// Resources freed while work in flight used them (Device::free_after), not
/// yet dropped after dropping those the device is past.
[[nodiscard]] size_t renderer_pending_frees(wlr_renderer* renderer);

}  // namespace baton::vulkan
