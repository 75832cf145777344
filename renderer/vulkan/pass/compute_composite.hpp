// Compute compositing: a pass's draws are collected as ops and composited by
// one compute dispatch per damaged region (shaders/composite.comp), each
// output pixel written once, instead of one blended raster draw per surface.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/host_buffer.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "renderer/vulkan/swapchain/slot.hpp"
#include "renderer/vulkan/texture/ycbcr_conversion.hpp"

namespace baton::vulkan {

/// One draw; the layout of `Op` in composite.comp (std430).
struct CompositeOp {
  float box[4];  // x, y, 1/width, 1/height
  float uv_origin[2];
  float uv_dx[2];
  float uv_dy[2];
  int32_t texture;  // index into the list's images; -1: solid colour
  uint32_t flags;
  float color[4];
  int32_t rects[2];  // first clip rectangle, count
  // A YUV texture (kOpYcbcr): `texture` is Y, these the Cb and Cr images
  // (indices, Cb in the low 16 bits), and its conversion in the list's.
  uint32_t chroma;
  int32_t conversion;
  // Bounds of the clip rectangles (the rectangle itself when there is one):
  // most draws are tested here, without a second read.
  int32_t bounds[4];
};
static_assert(sizeof(CompositeOp) == 96);
inline constexpr uint32_t kOpReplaces = 1;       // drawn without blending
inline constexpr uint32_t kOpStraightAlpha = 2;  // texels are not premultiplied
inline constexpr uint32_t kOpYcbcr = 4;          // Y, Cb, Cr converted to RGB

struct ClipRect {
  int32_t x1, y1, x2, y2;
};

/// The draws of one pass (or one batch of it), in order.
struct CompositeList {
  static constexpr uint32_t kMaxTextures = 64;  // the shader's sampler array
  std::vector<CompositeOp> ops;
  std::vector<ClipRect> rects;
  std::vector<VkDescriptorImageInfo> images;
  std::vector<YcbcrConversion> conversions;  // of the YUV ops

  void clear();
  bool empty() const { return ops.empty(); }
  /// The index of `image` in `images`, added if new; -1 when the list is full.
  int image_index(const VkDescriptorImageInfo& image);
  /// Whether every one of `wanted` fits (is listed, or there is room).
  bool has_room_for(std::span<const VkDescriptorImageInfo> wanted) const;
  /// The index of a new conversion holding `conversion`.
  int32_t add_conversion(const YcbcrConversion& conversion);
};

class ComputeCompositor {
 public:
  explicit ComputeCompositor(Device& device) : device_(device) {}
  ComputeCompositor(const ComputeCompositor&) = delete;
  ComputeCompositor& operator=(const ComputeCompositor&) = delete;

  /// Builds the pipeline; an error when the device cannot run it.
  [[nodiscard]] Status create(VkPipelineCache cache);
  bool available() const { return static_cast<bool>(pipeline_); }

  /// Records the dispatches that composite `list` into `target` (in layout
  /// GENERAL, created with STORAGE usage), over an earlier batch of the same
  /// pass if `after_batch`.
  [[nodiscard]] Status record(VkCommandBuffer cb, const Slot& target, const CompositeList& list,
                              bool after_batch);
  /// The work recorded since the last call was submitted as `point` (0: not submitted).
  void submitted(uint64_t point);

 private:
  /// Per-submission state: reused once the GPU finished the submission.
  struct Frame {
    uint64_t point = 0;
    bool in_use = false;
    HostBuffer buffer;  // ops | rects | region lists
    UniqueDescriptorPool pool;
    VkDescriptorSet set = VK_NULL_HANDLE;
  };
  struct Region {
    ClipRect box;
    uint32_t first;
    uint32_t count;
    bool direct;  // every op, in order (first is 0): region_ops_ holds nothing for it
  };
  Result<Frame*> acquire(VkDeviceSize bytes);
  void plan_regions(const CompositeList& list);

  Device& device_;
  UniqueDescriptorSetLayout set_layout_;
  UniquePipelineLayout layout_;
  UniquePipeline pipeline_;
  std::vector<std::unique_ptr<Frame>> frames_;
  // Scratch kept between frames (no allocation per frame once warm).
  std::vector<Region> regions_;
  std::vector<uint32_t> region_ops_;
};

}  // namespace baton::vulkan
