// wlr_texture_read_pixels: copy the image into a mapped buffer on the GPU,
// wait for that one copy (read-back is never part of the frame loop), then
// convert on the CPU into the caller's format.
#include <drm_fourcc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "renderer/vulkan/renderer.hpp"
#include "util/log.hpp"

namespace baton::vulkan {
namespace {

// 8888 formats: which byte holds blue (0 for B8G8R8A8 memory order, 2 for R8G8B8A8).
int blue_byte(uint32_t drm) {
  switch (drm) {
    case DRM_FORMAT_ARGB8888:
    case DRM_FORMAT_XRGB8888:
      return 0;
    case DRM_FORMAT_ABGR8888:
    case DRM_FORMAT_XBGR8888:
      return 2;
    default:
      return -1;
  }
}

bool has_alpha(uint32_t drm) {
  const FormatInfo* f = find_format(drm);
  return f != nullptr && f->has_alpha;
}

void write_solid(const float color[4], uint32_t format, unsigned char* dst, uint32_t stride, int w,
                 int h) {
  auto byte = [](float v) {
    return static_cast<unsigned char>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
  };
  unsigned char px[4] = {byte(color[2]), byte(color[1]), byte(color[0]), byte(color[3])};
  if (blue_byte(format) == 2) std::swap(px[0], px[2]);
  if (!has_alpha(format)) px[3] = 0xff;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) std::memcpy(dst + size_t(y) * stride + size_t(x) * 4, px, 4);
}

Error unsupported(uint32_t from, uint32_t to) {
  char text[64];
  std::snprintf(text, sizeof(text), "from 0x%08x into 0x%08x is not supported", from, to);
  return failure("read-back", text);
}

}  // namespace

Status Renderer::read_pixels(Texture& texture, const wlr_texture_read_pixels_options& options) {
  wlr_box box{};
  wlr_texture_read_pixels_options_get_src_box(&options, &texture.base, &box);
  auto* dst = static_cast<unsigned char*>(wlr_texture_read_pixel_options_get_data(&options));
  const int dst_blue = blue_byte(options.format);

  if (texture.solid) {
    if (dst_blue < 0) return unsupported(DRM_FORMAT_ARGB8888, options.format);
    write_solid(texture.color, options.format, dst, options.stride, box.width, box.height);
    return {};
  }
  const uint32_t src_format = texture.format->drm;
  // A YUV texture is several images: reading it back is not offered.
  if (texture.planes != nullptr) return unsupported(src_format, options.format);
  const int src_blue = blue_byte(src_format);
  // Same bytes, or 8888 formats that differ in R/B order or alpha padding.
  bool direct = options.format == src_format;
  if (!direct && (src_blue < 0 || dst_blue < 0)) return unsupported(src_format, options.format);

  const uint32_t bpp = texture.format->bytes_per_pixel;
  const VkDeviceSize bytes = VkDeviceSize(box.width) * box.height * bpp;
  if (readback_.size < bytes) {
    HostBuffer bigger;
    // The old buffer may be in use by a read-back.
    if (Status idle = device_->wait(device_->submitted(), "read-back buffer replaced");
        !idle && !device_->lost())
      LOG_ERROR("vulkan: replacing the read-back buffer: %s", idle.error().describe().c_str());
    if (Status s = bigger.create(*device_, std::max(bytes, VkDeviceSize(4u << 20)),
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT);
        !s)
      return s;
    readback_ = std::move(bigger);
  }

  auto begun = begin_commands();
  if (!begun) return begun.error();
  VkCommandBuffer cb = *begun;
  const bool in_target = texture.slot != nullptr;
  // Slots live in GENERAL; uploaded textures move to TRANSFER_SRC and back.
  VkImageLayout copy_layout =
      in_target ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkImageLayout rest_layout = in_target ? texture.slot->layout : texture.layout;
  if (rest_layout == VK_IMAGE_LAYOUT_UNDEFINED) rest_layout = copy_layout;

  VkImageMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
  barrier.srcStageMask = kTargetWriteStages | VK_PIPELINE_STAGE_2_COPY_BIT | kSampleStages;
  barrier.srcAccessMask = kTargetWriteAccess | VK_ACCESS_2_TRANSFER_WRITE_BIT;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  barrier.dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT;
  barrier.oldLayout = in_target ? texture.slot->layout : texture.layout;
  barrier.newLayout = copy_layout;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = texture.image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.imageMemoryBarrierCount = 1;
  dep.pImageMemoryBarriers = &barrier;
  vkCmdPipelineBarrier2(cb, &dep);

  VkBufferImageCopy copy{};
  copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  copy.imageOffset = {box.x, box.y, 0};
  copy.imageExtent = {static_cast<uint32_t>(box.width), static_cast<uint32_t>(box.height), 1};
  vkCmdCopyImageToBuffer(cb, texture.image, copy_layout, readback_.buffer.get(), 1, &copy);

  barrier.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  barrier.srcAccessMask = 0;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  barrier.dstAccessMask = 0;
  barrier.oldLayout = copy_layout;
  barrier.newLayout = rest_layout;
  VkMemoryBarrier2 host{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  host.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
  host.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  host.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
  host.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
  dep.memoryBarrierCount = 1;
  dep.pMemoryBarriers = &host;
  vkCmdPipelineBarrier2(cb, &dep);
  if (in_target)
    texture.slot->layout = rest_layout;
  else
    texture.layout = rest_layout;

  auto submitted = submit(cb);
  if (!submitted) return submitted.error();  // submit() saw to a lost device
  const uint64_t point = *submitted;
  if (Status done = device_->wait(point, "read-back"); !done) {
    check_lost();
    return done;
  }
  texture.last_used = point;
  if (in_target) texture.slot->last_point = point;

  const auto* src = static_cast<const unsigned char*>(readback_.mapped);
  const size_t row = size_t(box.width) * bpp;
  const bool fill_alpha = has_alpha(options.format) && !has_alpha(src_format);
  for (int y = 0; y < box.height; ++y) {
    const unsigned char* s = src + y * row;
    unsigned char* d = dst + size_t(y) * options.stride;
    if (direct || (src_blue == dst_blue && !fill_alpha)) {
      std::memcpy(d, s, row);
      continue;
    }
    for (int x = 0; x < box.width; ++x) {
      const unsigned char* p = s + static_cast<ptrdiff_t>(x) * 4;
      unsigned char* q = d + static_cast<ptrdiff_t>(x) * 4;
      q[dst_blue] = p[src_blue];
      q[1] = p[1];
      q[2 - dst_blue] = p[2 - src_blue];
      q[3] = fill_alpha ? 0xff : p[3];
    }
  }
  return {};
}

}  // namespace baton::vulkan
