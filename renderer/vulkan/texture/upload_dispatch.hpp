// Texture uploads by compute dispatch (shaders/upload.comp): the damaged
// rectangles of up to kImages textures leave the staging ring in one
// dispatch instead of one transfer command each.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "renderer/vulkan/texture/staging_ring.hpp"

namespace baton::vulkan {

/// One rectangle of one texture, staged as packed 32-bit texels.
struct UploadJob {
  VkImageView view;     // R32_UINT storage view of the texture, in layout GENERAL
  VkDeviceSize offset;  // of the texels in the staging buffer
  int32_t x, y;
  uint32_t width, height;
};

class TextureUploader {
 public:
  static constexpr uint32_t kImages = 16;  // upload.comp's image array
  static constexpr uint32_t kJobsPerBatch = 32;
  // Bigger rectangles are bound by bandwidth, not by command overhead: they
  // stay transfer commands (and keep a batch's tiles within dispatch limits).
  static constexpr uint32_t kMaxJobTexels = 512 * 512;
  static constexpr uint32_t kTileWidth = 64, kTileHeight = 4;  // upload.comp's local size
  /// Whether a rectangle goes by dispatch (else it is copied).
  static bool takes(uint32_t width, uint32_t height) {
    const uint64_t tiles = uint64_t((width + kTileWidth - 1) / kTileWidth) *
                           ((height + kTileHeight - 1) / kTileHeight);
    // A job then always fits an empty batch (dispatches reach 65535 groups).
    return uint64_t(width) * height <= kMaxJobTexels && tiles <= 16384;
  }

  explicit TextureUploader(Device& device) : device_(device) {}
  TextureUploader(const TextureUploader&) = delete;
  TextureUploader& operator=(const TextureUploader&) = delete;

  /// Builds the pipeline; an error when the device cannot run it.
  [[nodiscard]] Status create(VkPipelineCache cache);
  bool available() const { return static_cast<bool>(pipeline_); }
  /// Whether texels staged in `staging` (of `size` bytes) can be read by the shader.
  bool can_read(VkDeviceSize size) const;

  /// Writes the job table into `table` (table_bytes(jobs.size()) bytes of the
  /// same staging buffer the jobs' texels are in) and records the dispatches.
  void record(VkCommandBuffer cb, VkBuffer staging, std::span<const UploadJob> jobs,
              const StagingRing::Span& table);
  static VkDeviceSize table_bytes(size_t jobs) { return jobs * 8 * sizeof(uint32_t); }

 private:
  Device& device_;
  UniqueDescriptorSetLayout set_layout_;
  UniquePipelineLayout layout_;
  UniquePipeline pipeline_;
  std::vector<VkDescriptorImageInfo> images_;  // scratch, kept between frames
};

}  // namespace baton::vulkan
