// baton's Vulkan renderer: the public face the rest of baton uses.
//
// The renderer is a wlr_renderer (wlroots' scene graph, screencopy and output
// code drive it through the usual wlr_render_pass calls); the swapchain
// allocator is a wlr_allocator whose buffers are images this renderer made.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "renderer/vulkan/device/device_select.hpp"
#include "renderer/vulkan/swapchain/slots.hpp"
#include "renderer/vulkan/texture/texture_reads.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

struct wlr_renderer;
struct wlr_render_timer;
struct wlr_texture;
struct wlr_allocator;
struct wlr_buffer;
struct wl_event_loop;

namespace baton::vulkan {

/// How passes composite: raster draws (one blended quad per surface) or
/// compute dispatches (each output pixel written once); auto picks compute on
/// discrete GPUs that support it, raster elsewhere (lavapipe included).
enum class Compositing { automatic, raster, compute };

struct RendererOptions {
  DeviceRequest device;
  Compositing compositing = Compositing::automatic;
  /// Count (and log) debug-utils warnings and errors; tests assert none.
  bool debug_messenger = false;
  /// Where the pipeline cache lives between runs; empty: memory only.
  std::string pipeline_cache_path;
  /// Where completion callbacks run (render-done signalled from the loop,
  /// outputs committed once rendered); null: nowhere (tests, benchmarks).
  wl_event_loop* loop = nullptr;
  /// Advertise wlroots' `features.timeline`: passes get a signal point
  /// (render-done) that KMS takes as IN_FENCE_FD. Only for DRM outputs: a
  /// nested parent with linux-drm-syncobj refuses wl_shm buffers with them.
  bool signal_timelines = false;
  /// The DRM node named as the renderer's device (wlr_renderer_get_drm_fd:
  /// where capture clients allocate dma-bufs, ext-image-copy-capture's
  /// dmabuf_device) when the Vulkan device has no render node of its own
  /// (lavapipe): `--drm-device`. A device with a render node names that.
  std::optional<std::string> drm_device;
};

/// An error names every device seen and why it was refused.
[[nodiscard]] Result<wlr_renderer*> create_renderer(const RendererOptions& options);
/// Whether create_renderer failed only because every usable device is a CPU
/// and `options.device.accept_cpu` was off.
[[nodiscard]] bool declined_cpu_device(const Error& error);
/// The default pipeline cache file ($XDG_CACHE_HOME or ~/.cache, baton/).
[[nodiscard]] std::string default_pipeline_cache_path();

[[nodiscard]] bool is_vulkan_renderer(const wlr_renderer* renderer);
/// Whether a Vulkan renderer runs on a discrete GPU.
[[nodiscard]] bool renderer_device_is_discrete(wlr_renderer* renderer);
/// Whether a Vulkan renderer's passes composite with compute dispatches.
[[nodiscard]] bool renderer_composites_with_compute(wlr_renderer* renderer);
/// The name of the device a Vulkan renderer runs on.
[[nodiscard]] std::string renderer_device_name(wlr_renderer* renderer);
/// What kind of device a Vulkan renderer runs on.
[[nodiscard]] DeviceKind renderer_device_kind(wlr_renderer* renderer);
/// Behaves as if the GPU reported VK_ERROR_DEVICE_LOST: the next pass fails
/// and wlroots' `lost` signal is emitted (once), as for a real loss (the
/// GPU-loss drill, BATON_TEST_GPU_LOSS_MS, and tests).
void renderer_simulate_device_lost(wlr_renderer* renderer);

/// The reads of `texture` so far (any renderer's texture; null: done).
[[nodiscard]] TextureReads texture_reads(wlr_texture* texture);

/// For a slot whose consumer takes no fence (a wl_shm parent; KMS without a
/// wait point): runs `done` on the event loop once the GPU finished drawing
/// it, and returns true. False when there is nothing to wait for.
bool when_rendered(wlr_renderer* renderer, wlr_buffer* buffer, std::function<void()> done);

/// The GPU time of a render timer's pass once that pass has finished; -1
/// while it still runs, or for a timer that is not this renderer's. Never
/// blocks (wlr_render_timer_get_duration_ns waits for the GPU).
[[nodiscard]] int64_t render_timer_duration_if_done(wlr_render_timer* timer);

/// Whether the device imports dma-bufs (DRM slots and client dma-bufs).
[[nodiscard]] bool renderer_can_import_dmabuf(wlr_renderer* renderer);
/// Whether slots can be Vulkan images exported as LINEAR dma-bufs.
[[nodiscard]] bool renderer_can_export_dmabuf(wlr_renderer* renderer);
/// Whether slots can live in memfds (VK_EXT_external_memory_host).
[[nodiscard]] bool renderer_can_share_memory(wlr_renderer* renderer);

/// The core-owned swapchain allocator: its buffers are this renderer's images.
[[nodiscard]] Result<wlr_allocator*> create_swapchain_allocator(wlr_renderer* renderer,
                                                                const SwapchainOptions& options);
/// One output's allocator, like `shared` (a swapchain allocator) but with its
/// own slot budget; null when `shared` is another kind of allocator.
[[nodiscard]] wlr_allocator* create_output_allocator(wlr_allocator* shared);

}  // namespace baton::vulkan
