// Textures: wl_shm (and other data-pointer) buffers uploaded through the
// staging ring, 1x1 buffers kept as a colour, and swapchain slots sampled in
// place. Also texture read-back.
#include <drm_fourcc.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "renderer/color_representation.hpp"
#include "renderer/vulkan/renderer.hpp"
#include "renderer/vulkan/texture/dmabuf_import.hpp"
#include "util/log.hpp"

namespace baton::vulkan {
namespace {

Texture* get(wlr_texture* t) { return reinterpret_cast<Texture*>(t); }

// Past this many damage rectangles one copy of their bounding box is cheaper.
constexpr int kMaxUploadRects = 32;
// Staged upload bytes that wait for a frame at most (a 4K window's full
// upload is 32 MiB).
constexpr VkDeviceSize kMaxPendingUploadBytes = VkDeviceSize{64} << 20;

// How the texture's pixels are read: the buffer's colour representation,
// or the format's default when its client set none. Read per texture (per
// commit): a client may change it between commits.
void apply_color_representation(Texture& texture, wlr_buffer* buffer) {
  const ColorRepresentation* set = color_representation_of(buffer);
  const ColorRepresentation representation =
      set != nullptr ? *set : default_color_representation(texture.format->drm);
  if (texture.planes != nullptr) {
    texture.conversion = ycbcr_conversion(*texture.planes, representation);
  } else {
    // Premultiplied optical is read as electrical: baton blends encoded
    // values and has no linearisation to premultiply in yet.
    texture.straight_alpha =
        texture.format->has_alpha && representation.alpha == AlphaMode::straight;
  }
}

bool update_from_buffer(wlr_texture* base, wlr_buffer* buffer, const pixman_region32_t* damage) {
  Texture* texture = get(base);
  if (texture->renderer == nullptr || !texture->updatable) return false;
  if (static_cast<uint32_t>(buffer->width) != base->width ||
      static_cast<uint32_t>(buffer->height) != base->height)
    return false;
  void* data = nullptr;
  uint32_t format = 0;
  size_t stride = 0;
  if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format,
                                        &stride))
    return false;
  bool ok = format == texture->format->drm;
  if (ok) {
    apply_color_representation(*texture, buffer);
    Status uploaded = texture->renderer->upload(*texture, data, stride, damage);
    if (!uploaded) LOG_ERROR("vulkan: updating a texture: %s", uploaded.error().describe().c_str());
    ok = uploaded.ok();
  }
  wlr_buffer_end_data_ptr_access(buffer);
  return ok;
}

void unpack_pixel(const void* data, float color[4]) {
  // 1x1 buffers arrive as ARGB8888, premultiplied (wl_shm's convention).
  uint32_t argb = 0;
  std::memcpy(&argb, data, 4);
  color[0] = float((argb >> 16) & 0xff) / 255.0f;
  color[1] = float((argb >> 8) & 0xff) / 255.0f;
  color[2] = float(argb & 0xff) / 255.0f;
  color[3] = float(argb >> 24) / 255.0f;
}

bool read_pixels(wlr_texture* base, const wlr_texture_read_pixels_options* options) {
  Texture* texture = get(base);
  if (texture->renderer == nullptr) return false;
  Status read = texture->renderer->read_pixels(*texture, *options);
  if (!read) LOG_ERROR("vulkan: reading a texture back: %s", read.error().describe().c_str());
  return read.ok();
}

wlr_texture_read_back* begin_read_pixels(wlr_texture* base,
                                         const wlr_texture_read_pixels_options* options,
                                         wlr_drm_syncobj_timeline* timeline, uint64_t point) {
  Texture* texture = get(base);
  if (texture->renderer == nullptr) return nullptr;
  auto read = texture->renderer->begin_read_pixels(*texture, *options, timeline, point);
  if (!read) {
    LOG_ERROR("vulkan: beginning a read-back: %s", read.error().describe().c_str());
    return nullptr;
  }
  return *read;
}

uint32_t preferred_read_format(wlr_texture* base) {
  Texture* texture = get(base);
  return texture->solid ? DRM_FORMAT_ARGB8888 : texture->format->drm;
}

void destroy(wlr_texture* base) {
  Texture* texture = get(base);
  if (texture->renderer != nullptr) {
    Renderer& r = *texture->renderer;
    r.forget(texture);
    r.drop_from_passes(texture);
    if (texture->import != nullptr)  // the image stays with its buffer
      texture->import->last_used =
          std::max({texture->import->last_used, texture->last_used, r.device().next_point()});
    // The image may still be read by work in flight: free it after that.
    Retired retired;
    retired.point = std::max(texture->last_used, r.device().next_point());
    retired.view = std::move(texture->owned_view);
    retired.storage_view = std::move(texture->owned_storage_view);
    retired.image = std::move(texture->owned_image);
    retired.memory = std::move(texture->owned_memory);
    r.retire(std::move(retired));
    for (size_t i = 0; i < texture->owned_plane_images.size(); ++i) {
      Retired plane;
      plane.point = std::max(texture->last_used, r.device().next_point());
      plane.view = std::move(texture->owned_chroma_views[i]);
      plane.image = std::move(texture->owned_plane_images[i]);
      plane.memory = std::move(texture->owned_plane_memory[i]);
      r.retire(std::move(plane));
    }
    // The client's buffer goes back with the texture: whoever holds it for
    // the reads still in flight decides when the client has it (handoff/).
  }
  // A slot sampled by a pass in flight is freed only after that pass.
  if (texture->slot != nullptr)
    texture->slot->last_point = std::max(texture->slot->last_point, texture->last_used);
  if (texture->target_buffer != nullptr) wlr_buffer_unlock(texture->target_buffer);
  delete texture;
}

const wlr_texture_impl kTextureImpl = {
    .update_from_buffer = update_from_buffer,
    .read_pixels = read_pixels,
    .preferred_read_format = preferred_read_format,
    .destroy = destroy,
    .begin_read_pixels = begin_read_pixels,
};

// `sample_only`: the image has usages (storage, through another view's
// format) this view's format may not support; the view is only sampled.
Result<UniqueImageView> make_view(Device& device, VkImage image, const FormatInfo& format,
                                  bool sample_only = false) {
  VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  VkImageViewUsageCreateInfo usage{VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
  usage.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
  if (sample_only) info.pNext = &usage;
  info.image = image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = format.vk;
  // Formats without alpha (XRGB…) sample as opaque whatever the padding holds.
  info.components.a = format.has_alpha ? VK_COMPONENT_SWIZZLE_IDENTITY : VK_COMPONENT_SWIZZLE_ONE;
  info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  if (Status s =
          device.check(vkCreateImageView(device.get(), &info, nullptr, &view), "vkCreateImageView");
      !s)
    return s.error();
  return UniqueImageView(device.get(), view);
}

// The 32-bit word view upload.comp stores texels through (identity swizzle,
// as storage views must have).
Result<UniqueImageView> make_storage_view(Device& device, VkImage image) {
  VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  VkImageViewUsageCreateInfo usage{VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
  usage.usage = VK_IMAGE_USAGE_STORAGE_BIT;
  info.pNext = &usage;
  info.image = image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = VK_FORMAT_R32_UINT;
  info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  if (Status s = device.check(vkCreateImageView(device.get(), &info, nullptr, &view),
                              "vkCreateImageView (upload words)");
      !s)
    return s.error();
  return UniqueImageView(device.get(), view);
}

// Creates an image of the texture's own and its memory.
Status create_owned_image(Device& device, const VkImageCreateInfo& info, UniqueImage& owned_image,
                          UniqueMemory& owned_memory) {
  VkImage image = VK_NULL_HANDLE;
  if (Status s = device.check(vkCreateImage(device.get(), &info, nullptr, &image), "vkCreateImage");
      !s)
    return s;
  owned_image = UniqueImage(device.get(), image);
  VkMemoryRequirements req{};
  vkGetImageMemoryRequirements(device.get(), image, &req);
  int type = device.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0) type = device.memory_type(req.memoryTypeBits, 0);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (Status s = device.check(vkAllocateMemory(device.get(), &alloc, nullptr, &memory),
                              "vkAllocateMemory");
      !s)
    return s;
  owned_memory = UniqueMemory(device.get(), memory);
  return device.check(vkBindImageMemory(device.get(), image, memory, 0), "vkBindImageMemory");
}

bool storage_uploads_supported(Device& device, VkFormat format) {
  VkImageFormatProperties props{};
  return vkGetPhysicalDeviceImageFormatProperties(
             device.physical(), format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
             VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_STORAGE_BIT,
             VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT,
             &props) == VK_SUCCESS;
}

// A view of `image` with `red` swizzled into its red channel (YUV planes).
Result<UniqueImageView> make_channel_view(Device& device, VkImage image, VkFormat format,
                                          VkComponentSwizzle red) {
  VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  info.image = image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = format;
  info.components = {red, VK_COMPONENT_SWIZZLE_ZERO, VK_COMPONENT_SWIZZLE_ZERO,
                     VK_COMPONENT_SWIZZLE_ONE};
  info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  if (Status s = device.check(vkCreateImageView(device.get(), &info, nullptr, &view),
                              "vkCreateImageView (plane)");
      !s)
    return s.error();
  return UniqueImageView(device.get(), view);
}

Result<std::vector<ImportedImage>> import_images(Device& device,
                                                 const wlr_dmabuf_attributes& attribs,
                                                 const FormatInfo& format,
                                                 const PlaneLayout* planes) {
  if (planes != nullptr) return import_dmabuf_planes(device, attribs, *planes);
  auto imported = import_dmabuf(device, attribs, format);
  if (!imported) return imported.error();
  std::vector<ImportedImage> images;
  images.push_back(std::move(*imported));
  return images;
}

// RGB: one view; YUV: Y, Cb and Cr, each in a view's red channel.
Result<std::array<UniqueImageView, 3>> make_import_views(Device& device,
                                                         const std::vector<ImportedImage>& images,
                                                         const FormatInfo& format,
                                                         const PlaneLayout* planes) {
  std::array<UniqueImageView, 3> views;
  if (planes == nullptr) {
    auto view = make_view(device, images[0].image.get(), format);
    if (!view) return view.error();
    views[0] = std::move(*view);
    return views;
  }
  const PlaneSample samples[3] = {planes->y, planes->cb, planes->cr};
  for (int i = 0; i < 3; ++i) {
    const PlaneSample& s = samples[i];
    auto view = make_channel_view(device, images[s.image].image.get(),
                                  planes->images[s.image].format, s.channel);
    if (!view) return view.error();
    views[i] = std::move(*view);
  }
  return views;
}

// An RGB wl_shm buffer's image: uploads by dispatch write 4-byte texels as
// raw words through an R32_UINT view, so the image may be viewed as either
// format, and is a storage image through the view that supports it.
Status create_rgb_image(Device& device, Texture& texture, bool by_dispatch) {
  const FormatInfo& format = *texture.format;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format.vk;
  info.extent = {texture.base.width, texture.base.height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
               VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  const VkFormat upload_formats[2] = {format.vk, VK_FORMAT_R32_UINT};
  VkImageFormatListCreateInfo format_list{VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
  format_list.viewFormatCount = 2;
  format_list.pViewFormats = upload_formats;
  const bool storage =
      by_dispatch && format.bytes_per_pixel == 4 && storage_uploads_supported(device, format.vk);
  if (storage) {
    info.pNext = &format_list;
    info.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
    info.usage |= VK_IMAGE_USAGE_STORAGE_BIT;
  }
  if (Status s = create_owned_image(device, info, texture.owned_image, texture.owned_memory); !s)
    return s;
  const VkImage image = texture.owned_image.get();
  auto view = make_view(device, image, format, storage);
  if (!view) return view.error();
  if (storage) {
    // Without it the texture's uploads are copies, as on the raster path.
    auto words = make_storage_view(device, image);
    if (words) {
      texture.owned_storage_view = std::move(*words);
      texture.storage_view = texture.owned_storage_view.get();
    } else {
      LOG_ERROR("vulkan: texture uploads are copies: %s", words.error().describe().c_str());
    }
  }
  texture.owned_view = std::move(*view);
  texture.image = image;
  texture.view = texture.owned_view.get();
  return {};
}

// A YUV wl_shm buffer's images, one per image of its layout (copies of the
// planes: uploads fill them as they fill RGB textures), and the views that
// put Y, Cb and Cr in red.
Status create_plane_images(Device& device, const PlaneLayout& layout, wlr_buffer* buffer,
                           Texture& texture) {
  VkImage images[3] = {};
  for (uint8_t i = 0; i < layout.image_count; ++i) {
    const PlaneImage& plane = layout.images[i];
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = plane.format;
    info.extent = {(texture.base.width + plane.width_divisor - 1) / plane.width_divisor,
                   (texture.base.height + plane.height_divisor - 1) / plane.height_divisor, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    UniqueImage& image = i == 0 ? texture.owned_image : texture.owned_plane_images[i - 1];
    UniqueMemory& memory = i == 0 ? texture.owned_memory : texture.owned_plane_memory[i - 1];
    if (Status s = create_owned_image(device, info, image, memory); !s) return s;
    images[i] = image.get();
  }
  const PlaneSample samples[3] = {layout.y, layout.cb, layout.cr};
  for (int i = 0; i < 3; ++i) {
    const PlaneSample& s = samples[i];
    auto view =
        make_channel_view(device, images[s.image], layout.images[s.image].format, s.channel);
    if (!view) return view.error();
    (i == 0 ? texture.owned_view : texture.owned_chroma_views[i - 1]) = std::move(*view);
  }
  texture.planes = &layout;
  texture.image = images[0];
  texture.view = texture.owned_view.get();
  texture.chroma_views[0] = texture.owned_chroma_views[0].get();
  texture.chroma_views[1] = texture.owned_chroma_views[1].get();
  apply_color_representation(texture, buffer);
  return {};
}

}  // namespace

Result<Texture*> Renderer::texture_from_buffer(wlr_buffer* buffer) {
  collect();
  auto texture = std::make_unique<Texture>();
  texture->renderer = this;

  if (Slot* target = slot_of(buffer)) {
    // A swapchain slot: sample its image in place (screenshots, screencopy).
    const FormatInfo* format = find_format(target->drm_format);
    if (format == nullptr)
      return failure("vulkan: no texture of a swapchain slot", "its format has no Vulkan format");
    auto view = make_view(*device_, target->image, *format);
    if (!view) return failure("vulkan: no texture of a swapchain slot", view.error().describe());
    texture->owned_view = std::move(*view);
    texture->format = format;
    texture->slot = target;
    texture->target_buffer = wlr_buffer_lock(buffer);
    texture->image = target->image;
    texture->view = texture->owned_view.get();
    wlr_texture_init(&texture->base, wlr(), &kTextureImpl, target->width, target->height);
    textures_.insert(texture.get());
    return texture.release();
  }

  wlr_dmabuf_attributes attribs{};
  if (wlr_buffer_get_dmabuf(buffer, &attribs)) return texture_from_dmabuf(buffer, attribs);

  void* data = nullptr;
  uint32_t drm_format = 0;
  size_t stride = 0;
  if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &drm_format,
                                        &stride))
    return failure("vulkan: no texture of a " + std::to_string(buffer->width) + "x" +
                       std::to_string(buffer->height) + " buffer",
                   "it offers neither pixels nor a known image");
  const PlaneLayout* planes = find_plane_layout(drm_format);
  const FormatInfo* format = planes != nullptr ? &planes->info : find_format(drm_format);
  if (format == nullptr || !wlr_drm_format_set_get(&shm_formats_, drm_format)) {
    wlr_buffer_end_data_ptr_access(buffer);
    return failure("vulkan: no texture", "cannot texture from format " + hex_format(drm_format));
  }
  texture->format = format;
  texture->updatable = true;
  wlr_texture_init(&texture->base, wlr(), &kTextureImpl, buffer->width, buffer->height);

  if (buffer->width == 1 && buffer->height == 1 && drm_format == DRM_FORMAT_ARGB8888) {
    // Single-pixel buffers: a colour, drawn as a rectangle; nothing to upload.
    texture->solid = true;
    unpack_pixel(data, texture->color);
    wlr_buffer_end_data_ptr_access(buffer);
    textures_.insert(texture.get());
    return texture.release();
  }
  Status ok = planes != nullptr ? create_plane_images(*device_, *planes, buffer, *texture)
                                : create_rgb_image(*device_, *texture, uploads_by_dispatch_);
  if (ok) ok = upload(*texture, data, stride, nullptr);
  wlr_buffer_end_data_ptr_access(buffer);
  if (!ok) {
    check_lost();
    // Copies of planes staged before the failure may be queued: the images
    // are retired as a destroyed texture's are, not freed now.
    destroy(&texture.release()->base);
    return failure("vulkan: no texture of a " + std::to_string(buffer->width) + "x" +
                       std::to_string(buffer->height) + " buffer",
                   ok.error().describe());
  }
  textures_.insert(texture.get());
  return texture.release();
}

Result<Texture*> Renderer::texture_from_dmabuf(wlr_buffer* buffer,
                                               const wlr_dmabuf_attributes& attribs) {
  const wlr_drm_format* advertised = wlr_drm_format_set_get(&dmabuf_formats_, attribs.format);
  bool listed = false;
  for (size_t i = 0; advertised != nullptr && i < advertised->len; ++i)
    listed = listed || advertised->modifiers[i] == attribs.modifier;
  const PlaneLayout* planes = find_plane_layout(attribs.format);
  const FormatInfo* format = planes != nullptr ? &planes->info : find_format(attribs.format);
  if (!listed || format == nullptr) {
    char modifier[32];
    std::snprintf(modifier, sizeof modifier, "0x%016llx",
                  static_cast<unsigned long long>(attribs.modifier));
    return failure("vulkan: no texture of a dma-buf", hex_format(attribs.format) + " / modifier " +
                                                          modifier + " was never advertised");
  }
  CachedImport* import = imports_.find(buffer);
  if (import != nullptr) {
    ++imports_.counts().reuses;
  } else {
    auto imported = import_images(*device_, attribs, *format, planes);
    if (!imported) {
      check_lost();
      return failure("vulkan: no texture of a dma-buf", imported.error().describe());
    }
    auto views = make_import_views(*device_, *imported, *format, planes);
    if (!views) return failure("vulkan: no texture of a dma-buf", views.error().describe());
    import = imports_.add(buffer, std::move(*imported), std::move(*views));
    // Luma (or RGB) is sampled through the texture's filter; chroma is
    // interpolated in the shaders from exact texels, whatever the device filters.
    const VkFormat sampled =
        planes != nullptr ? planes->images[planes->y.image].format : format->vk;
    import->filters_linearly = dmabuf_filters_linearly(*device_, sampled, attribs.modifier);
  }
  auto texture = std::make_unique<Texture>();
  texture->renderer = this;
  texture->format = format;
  texture->import = import;
  texture->filters_linearly = import->filters_linearly;
  texture->image = import->images[0].image.get();
  texture->view = import->views[0].get();
  if (planes != nullptr) {
    texture->planes = planes;
    texture->chroma_views[0] = import->views[1].get();
    texture->chroma_views[1] = import->views[2].get();
  }
  apply_color_representation(*texture, buffer);
  texture->source = BufferLock(buffer);  // the GPU reads the client's memory itself
  texture->layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;  // after the acquire below
  for (const ImportedImage& image : import->images)
    queue_acquire(image.image.get(), import->acquired);
  import->acquired = true;
  texture->last_used = device_->next_point();
  wlr_texture_init(&texture->base, wlr(), &kTextureImpl, buffer->width, buffer->height);
  textures_.insert(texture.get());
  return texture.release();
}

Status Renderer::upload(Texture& texture, const void* data, size_t stride,
                        const pixman_region32_t* region) {
  if (texture.solid) {
    unpack_pixel(data, texture.color);
    return {};
  }
  pixman_box32_t full = {0, 0, static_cast<int32_t>(texture.base.width),
                         static_cast<int32_t>(texture.base.height)};
  int count = 1;
  const pixman_box32_t* rects = &full;
  pixman_box32_t extents;
  if (region != nullptr) {
    rects = pixman_region32_rectangles(const_cast<pixman_region32_t*>(region), &count);
    if (count > kMaxUploadRects) {
      extents = *pixman_region32_extents(const_cast<pixman_region32_t*>(region));
      rects = &extents;
      count = 1;
    }
  }
  // The first upload may discard: nothing was in the image before.
  const VkImageLayout old_layout = region == nullptr ? VK_IMAGE_LAYOUT_UNDEFINED : texture.layout;
  const auto* bytes = static_cast<const unsigned char*>(data);
  const std::span<const pixman_box32_t> damage(rects, static_cast<size_t>(count));
  const VkExtent2D extent = {texture.base.width, texture.base.height};
  if (texture.planes == nullptr) {
    if (Status s = stage_rects(texture.image, texture.storage_view, old_layout, bytes, stride,
                               texture.format->bytes_per_pixel, extent, damage);
        !s)
      return s;
  } else {
    // Each plane image gets the damage scaled to its size (rounded outwards).
    const PlaneLayout& layout = *texture.planes;
    const auto planes = contiguous_planes(layout, stride, texture.base.height);
    std::vector<pixman_box32_t> scaled;
    for (uint8_t i = 0; i < layout.image_count; ++i) {
      const PlaneImage& image = layout.images[i];
      const int32_t dx = image.width_divisor, dy = image.height_divisor;
      scaled.clear();
      for (const pixman_box32_t& r : damage)
        scaled.push_back({r.x1 / dx, r.y1 / dy, (r.x2 + dx - 1) / dx, (r.y2 + dy - 1) / dy});
      const VkImage target =
          i == 0 ? texture.owned_image.get() : texture.owned_plane_images[i - 1].get();
      const VkExtent2D size = {(extent.width + dx - 1) / dx, (extent.height + dy - 1) / dy};
      const ContiguousPlane& plane = planes[image.plane];
      // wlroots patch 0040 refuses such a buffer; a row past its stride
      // would read past the pool.
      if (plane.stride < size_t(size.width) * image.texel_bytes)
        return failure("vulkan: uploading a YUV buffer",
                       "plane " + std::to_string(image.plane) + "'s stride " +
                           std::to_string(plane.stride) + " is shorter than a row");
      if (Status s = stage_rects(target, VK_NULL_HANDLE, old_layout, bytes + plane.offset,
                                 plane.stride, image.texel_bytes, size, scaled);
          !s)
        return s;
    }
  }
  // Textures written by dispatch stay in GENERAL, which storage writes need.
  texture.layout = texture.storage_view != VK_NULL_HANDLE
                       ? VK_IMAGE_LAYOUT_GENERAL
                       : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  texture.last_used = device_->next_point();
  // A client committing far faster than the output repaints, or to an
  // output that does not repaint at all, would pile its uploads up until
  // the next frame: past a bound they go to the GPU on their own, and their
  // staging comes back once it is done with them.
  if (ring_.pending() > kMaxPendingUploadBytes) {
    if (Status flushed = flush_uploads(); !flushed) return flushed;
    collect();
  }
  return {};
}

Status Renderer::stage_rects(VkImage image, VkImageView storage_view, VkImageLayout old_layout,
                             const unsigned char* pixels, size_t stride, uint32_t texel_bytes,
                             VkExtent2D extent, std::span<const pixman_box32_t> rects) {
  const auto width = static_cast<int32_t>(extent.width);
  const auto height = static_cast<int32_t>(extent.height);
  for (const pixman_box32_t& r : rects) {
    int32_t x1 = std::clamp(r.x1, 0, width), x2 = std::clamp(r.x2, 0, width);
    int32_t y1 = std::clamp(r.y1, 0, height), y2 = std::clamp(r.y2, 0, height);
    if (x2 <= x1 || y2 <= y1) continue;
    const uint32_t w = x2 - x1, h = y2 - y1, row = w * texel_bytes;
    auto staged = ring_.allocate(VkDeviceSize(row) * h);
    if (!staged) return staged.error();
    const StagingRing::Span span = *staged;
    const unsigned char* src = pixels + size_t(y1) * stride + size_t(x1) * texel_bytes;
    if (row == stride) {
      std::memcpy(span.data, src, size_t(row) * h);
    } else {
      for (uint32_t y = 0; y < h; ++y)
        std::memcpy(span.data + size_t(y) * row, src + y * stride, row);
    }
    VkBufferImageCopy copy{};
    copy.bufferOffset = span.offset;
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageOffset = {x1, y1, 0};
    copy.imageExtent = {w, h, 1};
    queue_copy(image, storage_view, old_layout, span.buffer, copy);
  }
  return {};
}

TextureReads texture_reads(wlr_texture* base) {
  // Other renderers' textures (and ours while the renderer frees them): done.
  if (base == nullptr || base->impl != &kTextureImpl) return {};
  Texture* texture = get(base);
  if (texture->renderer == nullptr) return {};
  Renderer& r = *texture->renderer;
  // Points past the last submission are work only queued for the next one:
  // uploads (they copy from staging, the buffer was read on the CPU) and
  // dma-buf acquire barriers, which sample nothing. Waiting for them could
  // wait forever on an idle compositor. Draws recorded in open passes get
  // their point at submit.
  const uint64_t point = std::min(texture->last_used, r.device().submitted());
  // Every submitted read is covered by the render-done sync_file of the
  // last pass that read it: a consumer can wait for that in the kernel.
  std::shared_ptr<const UniqueFd> fence =
      point <= texture->reads_fenced_through ? texture->read_fence : nullptr;
  return {r.shared_device(), point, r.open_passes(), std::move(fence)};
}

}  // namespace baton::vulkan
