#include "renderer/vulkan/swapchain/dmabuf_target.hpp"

#include <drm_fourcc.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "renderer/vulkan/device/formats.hpp"
#include "renderer/vulkan/texture/dmabuf_import.hpp"

namespace baton::vulkan {

struct DmabufTargets::Target {
  struct Addon {
    wlr_addon base;  // first: a wlr_addon* is an Addon*
    Target* target;
  };
  Addon addon{};  // on the buffer: finished when the buffer is destroyed
  DmabufTargets* owner = nullptr;
  ImportedImage imported;
  UniqueImageView view;
  Slot slot;
};

namespace {

const wlr_addon_interface kTargetAddon = {
    .name = "baton-vulkan-dmabuf-target",
    .destroy = DmabufTargets::buffer_destroyed,
};

}  // namespace

bool DmabufTargets::can_draw_into(uint32_t drm_format, uint64_t modifier) {
  const FormatInfo* format = find_format(drm_format);
  return format != nullptr && format->renderable && device_.features().dmabuf_import &&
         modifier != DRM_FORMAT_MOD_INVALID &&
         dmabuf_usage_supported(device_, format->vk, modifier, kTargetUsage);
}

Result<Slot*> DmabufTargets::target_of(wlr_buffer* buffer) {
  if (wlr_addon* addon = wlr_addon_find(&buffer->addons, this, &kTargetAddon); addon != nullptr)
    return &reinterpret_cast<Target::Addon*>(addon)->target->slot;
  wlr_dmabuf_attributes attribs{};
  if (!wlr_buffer_get_dmabuf(buffer, &attribs))
    return failure("drawing into a buffer",
                   "it is neither a slot of baton's swapchain nor a dma-buf");
  if (!can_draw_into(attribs.format, attribs.modifier))
    return failure("drawing into a client dma-buf",
                   "this device cannot draw into format " + hex_format(attribs.format) +
                       " with modifier " + hex_modifier(attribs.modifier));
  const FormatInfo& format = *find_format(attribs.format);
  auto imported = import_dmabuf(device_, attribs, format, kTargetUsage);
  if (!imported) return imported.error();
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = imported->image.get();
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = format.vk;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  if (Status s = device_.check(vkCreateImageView(device_.get(), &view_info, nullptr, &view),
                               "vkCreateImageView (client dma-buf target)");
      !s)
    return s.error();
  auto* target = new Target();
  target->owner = this;
  target->imported = std::move(*imported);
  target->view = UniqueImageView(device_.get(), view);
  Slot& slot = target->slot;
  slot.image = target->imported.image.get();
  slot.view = view;
  slot.format = format.vk;
  slot.drm_format = attribs.format;
  slot.width = static_cast<uint32_t>(attribs.width);
  slot.height = static_cast<uint32_t>(attribs.height);
  slot.client_dmabuf = true;
  // Its pixels are the client's: each pass keeps them (GENERAL, never UNDEFINED).
  slot.layout = VK_IMAGE_LAYOUT_GENERAL;
  target->addon.target = target;
  wlr_addon_init(&target->addon.base, &buffer->addons, this, &kTargetAddon);
  targets_.insert(target);
  return &slot;
}

void DmabufTargets::buffer_destroyed(wlr_addon* addon) {
  Target* target = reinterpret_cast<Target::Addon*>(addon)->target;
  DmabufTargets& owner = *target->owner;
  wlr_addon_finish(&target->addon.base);
  owner.targets_.erase(target);
  // A pass may still draw into it, submitted or still open.
  Retired retired;
  retired.point = std::max(target->slot.last_point, owner.device_.next_point());
  retired.view = std::move(target->view);
  retired.image = std::move(target->imported.image);
  retired.memory = std::move(target->imported.memory);
  owner.retire_(std::move(retired));
  delete target;
}

void DmabufTargets::clear() {
  for (Target* target : std::exchange(targets_, {})) {
    wlr_addon_finish(&target->addon.base);
    delete target;
  }
}

}  // namespace baton::vulkan
