// GpuReads for the Vulkan renderer's textures: a texture's reads end at a
// point of its device's timeline, and a CompletionWatch per device wakes the
// event loop there (no polling, the loop never blocks).
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "renderer/gpu_reads.hpp"
#include "renderer/vulkan/texture/texture_reads.hpp"

struct wl_event_source;

namespace baton::vulkan {

class CompletionWatch;

class TextureReadsWatch final : public GpuReadsWatch {
 public:
  /// `reads_of_texture` answers for one texture (the renderer's texture_reads).
  TextureReadsWatch(wl_event_loop* loop,
                    std::function<TextureReads(wlr_texture*)> reads_of_texture);
  /// Callbacks still waiting are dropped, not run.
  ~TextureReadsWatch() override;
  TextureReadsWatch(const TextureReadsWatch&) = delete;
  TextureReadsWatch& operator=(const TextureReadsWatch&) = delete;

  [[nodiscard]] std::unique_ptr<GpuReads> reads_of(wlr_texture* texture) override;
  /// GpuReads::when_done for `reads`.
  [[nodiscard]] bool when_done(const TextureReads& reads, std::function<void()> then);

 private:
  void retry_unsubmitted();
  CompletionWatch* completion_for(const std::shared_ptr<Device>& device);

  wl_event_loop* loop_;
  std::function<TextureReads(wlr_texture*)> reads_of_texture_;
  wl_event_source* retry_idle_ = nullptr;
  // Reads by a pass still being recorded: its point is known once it is
  // submitted, so they are looked at again when the loop goes idle.
  std::vector<std::pair<TextureReads, std::function<void()>>> unsubmitted_;
  // One per device that reads are pending on (a GPU loss makes a new one).
  std::vector<std::shared_ptr<CompletionWatch>> completions_;  // each the device's
};

}  // namespace baton::vulkan
