// Every pipeline the renderer draws with, built once at start-up through a
// pipeline cache that is kept on disk between runs.
#pragma once

#include <array>
#include <string>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "renderer/vulkan/texture/ycbcr_conversion.hpp"

namespace baton::vulkan {

/// The push constants every draw sets (shaders/quad.vert spells out each field).
struct QuadConstants {
  float dst[4];
  float uv_origin[2];
  float uv_dx[2];
  float uv_dy[2];
  float straight;  // texture.frag: nonzero when texels carry straight alpha
  float unused;
  float color[4];
};
static_assert(sizeof(QuadConstants) == 64);

/// A YUV draw's push constants: the quad's, then its conversion (ycbcr.frag).
struct YcbcrQuadConstants {
  QuadConstants quad;
  YcbcrConversion conversion;
};
static_assert(sizeof(YcbcrQuadConstants) == 128);  // the least every device offers

/// ycbcr: a YUV texture of one image per plane (Y, Cb, Cr at bindings 0..2).
enum class DrawKind { texture = 0, solid = 1, ycbcr = 2 };
inline constexpr size_t kDrawKinds = 3;
enum class Blend { premultiplied = 0, none = 1 };
enum class Filter { linear = 0, nearest = 1 };

class Pipelines {
 public:
  explicit Pipelines(Device& device) : device_(device) {}
  ~Pipelines();
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  /// Builds layouts, samplers and every pipeline. `cache_path` may be
  /// empty: then the cache lives in memory only.
  [[nodiscard]] Status create(std::string cache_path);

  /// The pipeline for drawing `kind` with `blend` into a target of `format`,
  /// or null when the format cannot be rendered to.
  [[nodiscard]] VkPipeline get(VkFormat format, DrawKind kind, Blend blend) const;
  VkPipelineLayout layout() const { return layout_.get(); }
  VkPipelineCache cache() const { return cache_.get(); }
  VkSampler sampler(Filter filter) const { return samplers_[static_cast<int>(filter)].get(); }

 private:
  static constexpr std::array<VkFormat, 2> kTargetFormats = {VK_FORMAT_B8G8R8A8_UNORM,
                                                             VK_FORMAT_R8G8B8A8_UNORM};
  Result<UniquePipeline> build(VkFormat format, DrawKind kind, Blend blend, VkShaderModule vert,
                               VkShaderModule frag);
  void save_cache();

  Device& device_;
  std::string cache_path_;
  UniquePipelineCache cache_;
  UniqueDescriptorSetLayout set_layout_;
  UniquePipelineLayout layout_;
  std::array<UniqueSampler, 2> samplers_;
  // [target format][kind][blend]
  std::array<std::array<std::array<UniquePipeline, 2>, kDrawKinds>, kTargetFormats.size()>
      pipelines_;
};

}  // namespace baton::vulkan
