// Texture read-back: the GPU copies the image into a mapped buffer, the CPU
// converts it into the caller's format. wlr_texture_read_pixels waits for
// that copy; wlr_texture_begin_read_pixels (wlroots patch 0043, screen
// capture into wl_shm) does not: its copy signals a timeline point, and
// wlroots writes the pixels from a waiter on the event loop once it is.
#include <drm_fourcc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "renderer/vulkan/pass/render_done.hpp"
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

// How the copied rows become the caller's: the same bytes, or 8888 formats
// that differ in R/B order or alpha padding.
struct PixelConversion {
  uint32_t src_format = 0, dst_format = 0;
  uint32_t bytes_per_pixel = 0;
  int width = 0, height = 0;
  uint32_t dst_x = 0, dst_y = 0;

  void write(const unsigned char* src, unsigned char* dst, uint32_t stride) const {
    const int src_blue = blue_byte(src_format);
    const int dst_blue = blue_byte(dst_format);
    const bool fill_alpha = has_alpha(dst_format) && !has_alpha(src_format);
    const bool same_bytes = src_format == dst_format || (src_blue == dst_blue && !fill_alpha);
    const size_t row = size_t(width) * bytes_per_pixel;
    dst += size_t(dst_y) * stride + size_t(dst_x) * bytes_per_pixel;
    for (int y = 0; y < height; ++y) {
      const unsigned char* s = src + y * row;
      unsigned char* d = dst + size_t(y) * stride;
      if (same_bytes) {
        std::memcpy(d, s, row);
        continue;
      }
      for (int x = 0; x < width; ++x) {
        const unsigned char* p = s + static_cast<ptrdiff_t>(x) * 4;
        unsigned char* q = d + static_cast<ptrdiff_t>(x) * 4;
        q[dst_blue] = p[src_blue];
        q[1] = p[1];
        q[2 - dst_blue] = p[2 - src_blue];
        q[3] = fill_alpha ? 0xff : p[3];
      }
    }
  }
};

// The conversion a read of `box` of `texture` into `format` needs, or why
// there is none (YUV textures; formats other than the image's own and 8888).
Result<PixelConversion> conversion_for(const Texture& texture, const wlr_box& box, uint32_t format,
                                       uint32_t dst_x, uint32_t dst_y) {
  const uint32_t src_format = texture.format->drm;
  // A YUV texture is several images: reading it back is not offered.
  if (texture.planes != nullptr) return unsupported(src_format, format);
  if (format != src_format && (blue_byte(src_format) < 0 || blue_byte(format) < 0))
    return unsupported(src_format, format);
  PixelConversion conversion;
  conversion.src_format = src_format;
  conversion.dst_format = format;
  conversion.bytes_per_pixel = texture.format->bytes_per_pixel;
  conversion.width = box.width;
  conversion.height = box.height;
  conversion.dst_x = dst_x;
  conversion.dst_y = dst_y;
  return conversion;
}

}  // namespace

// The read-backs begun and not yet destroyed, and staging buffers to reuse:
// shared by the renderer and each read-back (which may outlive it).
struct ReadBackPool {
  // Past this many in flight a capture reads back waiting, into the
  // renderer's one buffer: clients cannot make baton hold more of them.
  static constexpr size_t kMaxInFlight = 8;
  static constexpr size_t kMaxSpare = 2;  // a screencast reuses them frame after frame
  size_t in_flight = 0;
  std::vector<HostBuffer> spare;
};

namespace {

// A wlr_texture_read_back: the staging buffer the GPU copies into, written
// into the caller's memory by finish() once the copy's point is signalled.
struct ReadBack {
  wlr_texture_read_back base;  // first: wlroots hands us &base
  std::shared_ptr<Device> device;
  std::shared_ptr<ReadBackPool> pool;
  HostBuffer staging;
  uint64_t point = 0;  // the copy's point on the device's timeline
  PixelConversion conversion;
};

ReadBack* get(wlr_texture_read_back* base) { return reinterpret_cast<ReadBack*>(base); }

bool finish_read_back(wlr_texture_read_back* base, void* data, uint32_t stride) {
  ReadBack& read = *get(base);
  // The point that called us is signalled by this copy's completion: there
  // is nothing to wait for, only the device's record of it to bring up.
  if (read.device->lost() || read.device->completed() < read.point) {
    LOG_ERROR("vulkan: a read-back was finished before its copy was done");
    return false;
  }
  read.conversion.write(static_cast<const unsigned char*>(read.staging.mapped),
                        static_cast<unsigned char*>(data), stride);
  return true;
}

void destroy_read_back(wlr_texture_read_back* base) {
  std::unique_ptr<ReadBack> read(get(base));
  --read->pool->in_flight;
  if (read->device->completed() >= read->point) {
    if (read->pool->spare.size() < ReadBackPool::kMaxSpare)
      read->pool->spare.push_back(std::move(read->staging));
    return;
  }
  // Destroyed before its copy finished (the capture was cancelled): the
  // buffer stays until the GPU is done writing it.
  read->device->free_after(read->point, std::make_shared<HostBuffer>(std::move(read->staging)));
}

const wlr_texture_read_back_impl kReadBackImpl = {
    .finish = finish_read_back,
    .destroy = destroy_read_back,
};

}  // namespace

Result<uint64_t> Renderer::copy_to_host(Texture& texture, const wlr_box& box, VkBuffer staging,
                                        VkSemaphore also_signal) {
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
  vkCmdCopyImageToBuffer(cb, texture.image, copy_layout, staging, 1, &copy);

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

  auto submitted = submit(cb, {}, nullptr, also_signal);
  if (!submitted) return submitted.error();  // submit() saw to a lost device
  const uint64_t point = *submitted;
  texture.last_used = point;
  if (in_target) texture.slot->last_point = point;
  return point;
}

Status Renderer::read_pixels(Texture& texture, const wlr_texture_read_pixels_options& options) {
  wlr_box box{};
  wlr_texture_read_pixels_options_get_src_box(&options, &texture.base, &box);
  auto* dst = static_cast<unsigned char*>(wlr_texture_read_pixel_options_get_data(&options));

  if (texture.solid) {
    if (blue_byte(options.format) < 0) return unsupported(DRM_FORMAT_ARGB8888, options.format);
    write_solid(texture.color, options.format, dst, options.stride, box.width, box.height);
    return {};
  }
  // `dst` is at the destination offset already.
  auto conversion = conversion_for(texture, box, options.format, 0, 0);
  if (!conversion) return conversion.error();

  const VkDeviceSize bytes = VkDeviceSize(box.width) * box.height * conversion->bytes_per_pixel;
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
  auto point = copy_to_host(texture, box, readback_.buffer.get(), VK_NULL_HANDLE);
  if (!point) return point.error();
  if (Status done = device_->wait(*point, "read-back"); !done) {
    check_lost();
    return done;
  }
  conversion->write(static_cast<const unsigned char*>(readback_.mapped), dst, options.stride);
  return {};
}

Result<wlr_texture_read_back*> Renderer::begin_read_pixels(
    Texture& texture, const wlr_texture_read_pixels_options& options,
    wlr_drm_syncobj_timeline* timeline, uint64_t signal_point) {
  // Not offered (wlroots then reads back waiting): solid colours, which need
  // no GPU; reads there is no conversion for (that read reports why); and
  // past the read-backs clients may keep in flight.
  if (texture.solid || device_->lost()) return nullptr;
  if (!read_back_pool_) read_back_pool_ = std::make_shared<ReadBackPool>();
  if (read_back_pool_->in_flight >= ReadBackPool::kMaxInFlight) return nullptr;
  wlr_box box{};
  wlr_texture_read_pixels_options_get_src_box(&options, &texture.base, &box);
  auto conversion = conversion_for(texture, box, options.format, options.dst_x, options.dst_y);
  if (!conversion) return nullptr;

  auto read = std::make_unique<ReadBack>();
  read->base.impl = &kReadBackImpl;
  read->device = device_;
  read->pool = read_back_pool_;
  read->conversion = *conversion;
  const VkDeviceSize bytes = VkDeviceSize(box.width) * box.height * conversion->bytes_per_pixel;
  auto& spare = read_back_pool_->spare;
  if (auto fits = std::find_if(spare.begin(), spare.end(),
                               [&](const HostBuffer& b) { return b.size >= bytes; });
      fits != spare.end()) {
    read->staging = std::move(*fits);
    spare.erase(fits);
  } else if (Status s = read->staging.create(*device_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
             !s) {
    return s.error();
  }
  // Signalled by the copy: a pending fence where the device exports one,
  // else from the event loop once the completion watch saw the copy done.
  VkSemaphore done_signal = VK_NULL_HANDLE;
  if (auto semaphore = render_done().signal_semaphore(); semaphore)
    done_signal = *semaphore;
  else
    LOG_ERROR("vulkan: %s", semaphore.error().describe().c_str());
  auto point = copy_to_host(texture, box, read->staging.buffer.get(), done_signal);
  if (!point) return point.error();
  read->point = *point;
  UniqueFd fence;
  if (done_signal != VK_NULL_HANDLE) {
    auto exported = render_done().export_fence();
    if (exported)
      fence = std::move(*exported);
    else
      LOG_ERROR("vulkan: %s", exported.error().describe().c_str());
  }
  if (Status handed =
          RenderDone::hand_over(std::move(fence), *point, timeline, signal_point, completion());
      !handed) {
    // Nothing would signal the point (wlroots reads back waiting instead);
    // the staging buffer goes once the copy into it is done.
    device_->free_after(*point, std::make_shared<HostBuffer>(std::move(read->staging)));
    return handed.error();
  }
  ++read_back_pool_->in_flight;
  return &read.release()->base;
}

}  // namespace baton::vulkan
