#include "renderer/vulkan/swapchain/swapchain_allocator.hpp"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "renderer/vulkan/device/formats.hpp"
#include "renderer/vulkan/swapchain/reuse_fence.hpp"
#include "renderer/vulkan/texture/dmabuf_import.hpp"
#include "util/log.hpp"
#include "util/malloc_ptr.hpp"

namespace baton::vulkan {
namespace {

SlotBuffer* get(wlr_buffer* b) { return reinterpret_cast<SlotBuffer*>(b); }

void buffer_destroy(wlr_buffer* base) {
  SlotBuffer* buffer = get(base);
  buffer->release.disconnect();  // wlr_buffer_finish asserts nobody listens
  wlr_buffer_finish(base);
  if (auto it = buffer->counts->live.find(buffer->key); it != buffer->counts->live.end()) {
    if (--it->second <= 0) buffer->counts->live.erase(it);
  }
  // wlroots destroys a buffer once nobody holds it; the GPU may still be
  // writing it if the last pass was just submitted: its image and memory go
  // once the device is past that pass, with no wait here.
  Device& device = *buffer->device;
  device.free_after(buffer->slot.last_point, std::shared_ptr<SlotBuffer>(buffer));
}

bool begin_data_ptr_access(wlr_buffer* base, uint32_t /*flags*/, void** data, uint32_t* format,
                           size_t* stride) {
  SlotBuffer* buffer = get(base);
  if (buffer->mapped == nullptr) return false;
  // The CPU reads what the last pass wrote: wait for that pass (not a frame-loop wait:
  // only CPU consumers of the pixels come here).
  if (Status waited = buffer->device->wait(buffer->slot.last_point, "slot pixels read by the CPU");
      !waited) {
    LOG_ERROR("vulkan swapchain: reading a slot's pixels: %s", waited.error().describe().c_str());
    return false;
  }
  *data = buffer->mapped;
  *format = buffer->slot.drm_format;
  *stride = buffer->stride;
  return true;
}

void end_data_ptr_access(wlr_buffer*) {}

bool get_shm(wlr_buffer* base, wlr_shm_attributes* attribs) {
  SlotBuffer* buffer = get(base);
  if (!buffer->shared.fd) return false;
  attribs->fd = buffer->shared.fd.get();
  attribs->format = buffer->slot.drm_format;
  attribs->width = base->width;
  attribs->height = base->height;
  attribs->stride = static_cast<int>(buffer->stride);
  attribs->offset = static_cast<off_t>(buffer->offset);
  return true;
}

// The dma-buf of a DRM slot (-1 for other slots).
int slot_dmabuf(const SlotBuffer& buffer) {
  if (buffer.dumb) return buffer.dumb->dmabuf();
  return buffer.exported.planes.empty() ? -1 : buffer.exported.planes[0].fd.get();
}

bool get_dmabuf(wlr_buffer* base, wlr_dmabuf_attributes* attribs) {
  SlotBuffer* buffer = get(base);
  if (slot_dmabuf(*buffer) < 0) return false;
  if (!buffer->dumb) {
    *attribs = buffer->exported.attributes(buffer->slot.width, buffer->slot.height,
                                           buffer->slot.drm_format);
    return true;
  }
  *attribs = {};
  attribs->width = base->width;
  attribs->height = base->height;
  attribs->format = buffer->slot.drm_format;
  attribs->modifier = DRM_FORMAT_MOD_LINEAR;
  attribs->n_planes = 1;
  attribs->fd[0] = buffer->dumb->dmabuf();
  attribs->offset[0] = 0;
  attribs->stride[0] = buffer->dumb->pitch();
  return true;
}

const wlr_buffer_impl kBufferImpl = {
    .destroy = buffer_destroy,
    .get_dmabuf = get_dmabuf,
    .get_shm = get_shm,
    .begin_data_ptr_access = begin_data_ptr_access,
    .end_data_ptr_access = end_data_ptr_access,
};

bool offers(const wlr_drm_format* format, uint64_t modifier) {
  for (size_t i = 0; i < format->len; ++i)
    if (format->modifiers[i] == modifier) return true;
  return false;
}

SwapchainAllocator* get(wlr_allocator* a) { return reinterpret_cast<SwapchainAllocator*>(a); }

// Allocates the image's memory as a memfd and imports it (external_memory_host).
Status import_shared_memory(SlotBuffer& buffer, const VkMemoryRequirements& req,
                            VkDeviceMemory& memory) {
  Device& device = *buffer.device;
  const VkDeviceSize align = device.host_pointer_alignment;
  const size_t size = static_cast<size_t>((req.size + align - 1) / align * align);
  if (Status s = buffer.shared.create(size); !s) return s;
  VkMemoryHostPointerPropertiesEXT host{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  if (Status s =
          device.check(device.get_host_pointer_properties(
                           device.get(), VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                           buffer.shared.data, &host),
                       "vkGetMemoryHostPointerPropertiesEXT");
      !s)
    return s;
  int type = device.memory_type(req.memoryTypeBits & host.memoryTypeBits,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  if (type < 0)
    return failure("importing a memfd for a swapchain image", "no memory type can import it");
  VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = buffer.shared.data;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import};
  alloc.allocationSize = size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  return device.check(vkAllocateMemory(device.get(), &alloc, nullptr, &memory),
                      "vkAllocateMemory (host pointer)");
}

Status create_view(SlotBuffer& buffer, const FormatInfo& format) {
  Device& device = *buffer.device;
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = buffer.image.get();
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = format.vk;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  if (Status s = device.check(vkCreateImageView(device.get(), &view_info, nullptr, &view),
                              "vkCreateImageView");
      !s)
    return s;
  buffer.view = UniqueImageView(device.get(), view);
  buffer.slot.image = buffer.image.get();
  buffer.slot.view = view;
  buffer.slot.format = format.vk;
  return {};
}

// A DRM slot: a dumb buffer of the display device, drawn into through Vulkan.
Status create_dumb_image(SlotBuffer& buffer, const FormatInfo& format,
                         const std::shared_ptr<UniqueFd>& kms, bool storage) {
  auto dumb = DumbBuffer::create(kms, buffer.slot.width, buffer.slot.height, 32);
  if (!dumb) return dumb.error();
  buffer.dumb = std::move(*dumb);
  wlr_dmabuf_attributes attribs{};
  attribs.width = static_cast<int>(buffer.slot.width);
  attribs.height = static_cast<int>(buffer.slot.height);
  attribs.format = format.drm;
  attribs.modifier = DRM_FORMAT_MOD_LINEAR;
  attribs.n_planes = 1;
  attribs.stride[0] = buffer.dumb->pitch();
  attribs.fd[0] = buffer.dumb->dmabuf();
  const VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                  VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  // Storage where the device allows it on this layout; else raster draws only.
  buffer.slot.storage =
      storage && dmabuf_usage_supported(*buffer.device, format.vk, DRM_FORMAT_MOD_LINEAR,
                                        usage | VK_IMAGE_USAGE_STORAGE_BIT);
  auto imported = import_dmabuf(*buffer.device, attribs, format,
                                buffer.slot.storage ? usage | VK_IMAGE_USAGE_STORAGE_BIT : usage);
  if (!imported) return imported.error();
  buffer.image = std::move(imported->image);
  buffer.memory = std::move(imported->memory);
  if (Status s = create_view(buffer, format); !s) return s;
  buffer.slot.host_visible = false;
  // virtio-gpu ignores implicit fences at scanout: without IN_FENCE_FD (the
  // output's wait point) the output commits only once the GPU is done.
  buffer.slot.fenceless_consumer = true;
  return {};
}

// Exported slots are drawn with raster draws only (no storage usage asked for).
constexpr VkImageUsageFlags kExportedUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                             VK_IMAGE_USAGE_SAMPLED_BIT |
                                             VK_IMAGE_USAGE_TRANSFER_SRC_BIT;

void adopt_exported(SlotBuffer& buffer, ExportedImage exported) {
  buffer.image = std::move(exported.image);
  buffer.memory = std::move(exported.memory);
  buffer.exported = std::move(exported.dmabuf);
  buffer.slot.storage = false;
  buffer.slot.host_visible = false;
}

// A DRM slot Vulkan allocated, exported as a dma-buf the display device
// imports. The first one is tried on the display device (kms_takes); the
// caller turns the allocator to dumb buffers for good when that fails.
Status create_exported_slot(SlotBuffer& buffer, const FormatInfo& format,
                            const wlr_drm_format& offered, SwapchainAllocator& alloc) {
  auto exported = create_exported_image(*buffer.device, format, buffer.slot.width,
                                        buffer.slot.height, offered, kExportedUsage);
  if (!exported) return exported.error();
  if (alloc.findings->kms_slots == SlotFindings::KmsSlots::untried) {
    if (Status s = kms_takes(alloc.kms->get(), exported->dmabuf, buffer.slot.width,
                             buffer.slot.height, format.drm);
        !s)
      return s;
    // tests grep this line: tests/vm/baton_drm_test.sh
    LOG_INFO(
        "vulkan swapchain: slots are Vulkan images exported as dma-bufs (modifier 0x%llx, "
        "%zu memory planes) that the display device scans out",
        static_cast<unsigned long long>(exported->dmabuf.modifier), exported->dmabuf.planes.size());
    alloc.findings->kms_slots = SlotFindings::KmsSlots::exported;
  }
  adopt_exported(buffer, std::move(*exported));
  if (Status s = create_view(buffer, format); !s) return s;
  // As for dumb buffers: without IN_FENCE_FD the output commits once the GPU is done.
  buffer.slot.fenceless_consumer = true;
  return {};
}

// A DRM slot: exported where the display device takes those, else (and for
// good once it refused one) its dumb buffer.
Status create_kms_slot(SlotBuffer& buffer, const FormatInfo& format, const wlr_drm_format& offered,
                       SwapchainAllocator& alloc) {
  if (alloc.findings->kms_slots != SlotFindings::KmsSlots::dumb) {
    Status exported = create_exported_slot(buffer, format, offered, alloc);
    if (exported) return exported;
    if (alloc.findings->kms_slots == SlotFindings::KmsSlots::untried) {
      // tests grep this line: tests/vm/baton_drm_test.sh
      LOG_INFO(
          "vulkan swapchain: a slot allocated by Vulkan cannot be scanned out (%s): slots "
          "are the display device's dumb buffers",
          exported.error().describe().c_str());
      alloc.findings->kms_slots = SlotFindings::KmsSlots::dumb;
    } else {
      LOG_ERROR("vulkan swapchain: exporting a slot failed (%s); using a dumb buffer",
                exported.error().describe().c_str());
    }
    buffer.image = {};
    buffer.memory = {};
    buffer.exported = {};
  }
  return create_dumb_image(buffer, format, alloc.kms, alloc.storage);
}

// A nested output's slot for a parent that takes dma-bufs with explicit
// sync: exported as the DRM slots are; the parent waits for render-done (the
// acquire point) itself, so the commit need not wait for the GPU. Headless
// slots for capture are made the same way: only captures read them, on the
// GPU's one queue or after render-done (dmabuf_target.hpp).
Status create_parent_slot(SlotBuffer& buffer, const FormatInfo& format,
                          const wlr_drm_format& offered, SwapchainAllocator& alloc) {
  auto exported = create_exported_image(*buffer.device, format, buffer.slot.width,
                                        buffer.slot.height, offered, kExportedUsage);
  if (!exported) return exported.error();
  if (!std::exchange(alloc.findings->dmabuf_parent_logged, true)) {
    if (alloc.for_capture)
      LOG_INFO(
          "vulkan swapchain: headless slots are Vulkan images exported as dma-bufs (modifier "
          "0x%llx, %zu memory planes): captures offer dma-buf targets",
          static_cast<unsigned long long>(exported->dmabuf.modifier),
          exported->dmabuf.planes.size());
    else
      // tests grep this line: tests/vm/release_poison_test.sh
      LOG_INFO(
          "vulkan swapchain: slots are Vulkan images exported as dma-bufs (modifier 0x%llx, "
          "%zu memory planes) for the parent compositor, with render-done as their acquire "
          "point",
          static_cast<unsigned long long>(exported->dmabuf.modifier),
          exported->dmabuf.planes.size());
  }
  adopt_exported(buffer, std::move(*exported));
  if (Status s = create_view(buffer, format); !s) return s;
  buffer.slot.fenceless_consumer = false;
  return {};
}

// "linear 640x480 image of format 0x34325241", for errors.
std::string describe_image(bool linear, uint32_t width, uint32_t height, uint32_t drm_format) {
  char text[96];
  std::snprintf(text, sizeof(text), "%s %ux%u image of format 0x%08x",
                linear ? "linear" : "optimal", width, height, drm_format);
  return text;
}

Status create_image(SlotBuffer& buffer, const FormatInfo& format, bool host_visible, bool shm,
                    bool storage) {
  Device& device = *buffer.device;
  VkDevice dev = device.get();
  VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, shm ? &external : nullptr};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format.vk;
  info.extent = {buffer.slot.width, buffer.slot.height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = host_visible ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
               VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;

  VkImageFormatProperties props{};
  auto query = [&] {
    return vkGetPhysicalDeviceImageFormatProperties(device.physical(), info.format, info.imageType,
                                                    info.tiling, info.usage, 0, &props);
  };
  // Storage where the device allows it for this format and tiling; else raster draws only.
  info.usage |= storage ? VK_IMAGE_USAGE_STORAGE_BIT : 0;
  VkResult supported = query();
  if (storage && supported != VK_SUCCESS) {
    info.usage &= ~VK_IMAGE_USAGE_STORAGE_BIT;
    supported = query();
  }
  buffer.slot.storage = (info.usage & VK_IMAGE_USAGE_STORAGE_BIT) != 0;
  if (supported != VK_SUCCESS || props.maxExtent.width < info.extent.width ||
      props.maxExtent.height < info.extent.height)
    return failure(
        "the device cannot render into a " +
            describe_image(host_visible, info.extent.width, info.extent.height, format.drm),
        result_name(supported));
  VkImage image = VK_NULL_HANDLE;
  if (Status s = device.check(vkCreateImage(dev, &info, nullptr, &image), "vkCreateImage"); !s)
    return s;
  buffer.image = UniqueImage(dev, image);

  VkMemoryRequirements req{};
  vkGetImageMemoryRequirements(dev, image, &req);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (shm) {
    if (Status s = import_shared_memory(buffer, req, memory); !s) return s;
  } else {
    VkMemoryPropertyFlags want = host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                    VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                                    VK_MEMORY_PROPERTY_HOST_CACHED_BIT
                                              : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    int type = device.memory_type(req.memoryTypeBits, want);
    if (type < 0 && host_visible)
      type = device.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (type < 0 && !host_visible) type = device.memory_type(req.memoryTypeBits, 0);
    if (type < 0)
      return failure("vkAllocateMemory", std::string("no memory type fits a ") +
                                             (host_visible ? "host-visible" : "device-local") +
                                             " swapchain image");
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = static_cast<uint32_t>(type);
    if (Status s =
            device.check(vkAllocateMemory(dev, &alloc, nullptr, &memory), "vkAllocateMemory");
        !s)
      return s;
  }
  buffer.memory = UniqueMemory(dev, memory);
  if (Status s = device.check(vkBindImageMemory(dev, image, memory, 0), "vkBindImageMemory"); !s)
    return s;

  if (host_visible) {
    VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout layout{};
    vkGetImageSubresourceLayout(dev, image, &sub, &layout);
    void* ptr = buffer.shared.data;
    if (!shm) {
      if (Status s =
              device.check(vkMapMemory(dev, memory, 0, VK_WHOLE_SIZE, 0, &ptr), "vkMapMemory");
          !s)
        return s;
    }
    buffer.mapped = static_cast<unsigned char*>(ptr) + layout.offset;
    buffer.offset = layout.offset;
    buffer.stride = layout.rowPitch;
  }

  if (Status s = create_view(buffer, format); !s) return s;
  buffer.slot.host_visible = host_visible;
  buffer.slot.fenceless_consumer = shm;
  return {};
}

// A DRM slot whose reader (the display) may still be busy with it. It goes
// back to wlr_swapchain at once; the next pass into it waits for the
// reader's fence on the GPU (begin_pass), so nothing is held beside the
// swapchain and nothing blocks.
void slot_unlocked(SlotBuffer& buffer) {
  buffer.slot.step(SlotEvent::released);
  if (slot_dmabuf(buffer) < 0) return;
  // The out-fence of the commit that replaced it, when KMS gave one.
  UniqueFd& fence = buffer.slot.reuse_fence;
  if (fence && readable_now(fence.get())) fence.reset();
  // Else whatever the scanout left on the dma-buf (drivers with implicit sync).
  if (fence) return;
  auto pending = unfinished_accesses_fence(slot_dmabuf(buffer));
  if (pending)
    fence = std::move(*pending);
  else  // the next pass draws unwaited
    LOG_ERROR("vulkan swapchain: %s", pending.error().describe().c_str());
}

// A new slot's memory and image, in the layout the consumer listed.
Result<std::unique_ptr<SlotBuffer>> make_slot(SwapchainAllocator& alloc, int width, int height,
                                              const wlr_drm_format& drm_format) {
  const char* what = alloc.dmabuf_parent ? "vulkan swapchain: no slot for the parent compositor"
                                         : "vulkan swapchain: no slot";
  const FormatInfo* format = find_format(drm_format.format);
  if (format == nullptr || !format->renderable)
    return failure(what, "format " + hex_format(drm_format.format) + " cannot be rendered to");
  // The intersection rule: a slot's layout must be one the consumer listed.
  // Linear slots (host-visible, memfd, dumb) satisfy LINEAR and implicit
  // consumers; optimal ones only implicit.
  const bool linear = alloc.host_visible || alloc.kms || alloc.dmabuf_parent;
  bool ok_modifier = offers(&drm_format, DRM_FORMAT_MOD_INVALID) ||
                     (linear && offers(&drm_format, DRM_FORMAT_MOD_LINEAR));
  if (!ok_modifier)
    return failure(what, "none of the " + std::to_string(drm_format.len) +
                             " offered modifiers can be allocated");

  auto buffer = std::make_unique<SlotBuffer>();
  buffer->device = alloc.device;
  buffer->counts = alloc.counts;
  buffer->key = std::make_tuple(width, height, drm_format.format);
  buffer->slot.width = static_cast<uint32_t>(width);
  buffer->slot.height = static_cast<uint32_t>(height);
  buffer->slot.drm_format = drm_format.format;
  Status created;
  if (alloc.dmabuf_parent)
    created = create_parent_slot(*buffer, *format, drm_format, alloc);
  else if (alloc.kms)
    created = create_kms_slot(*buffer, *format, drm_format, alloc);
  else
    created = create_image(*buffer, *format, alloc.host_visible, alloc.shm, alloc.storage);
  if (!created) return failure(what, created.error().describe());
  return buffer;
}

wlr_buffer* create_buffer(wlr_allocator* base, int width, int height,
                          const wlr_drm_format* drm_format) {
  SwapchainAllocator* alloc = get(base);
  int& live = alloc->counts->live[std::make_tuple(width, height, drm_format->format)];
  if (live >= alloc->slots) {
    // Not a failure: wlr_swapchain waits for a slot to come back.
    LOG_DEBUG("vulkan swapchain: all %d slots of %dx%d are in use", alloc->slots, width, height);
    return nullptr;
  }
  auto buffer = make_slot(*alloc, width, height, *drm_format);
  if (!buffer) {
    // wlroots takes null for "no buffer": the reason is logged here.
    LOG_ERROR("%s", buffer.error().describe().c_str());
    return nullptr;
  }
  wlr_buffer_init(&(*buffer)->base, &kBufferImpl, width, height);
  SlotBuffer* raw = buffer->get();
  raw->release.connect(&raw->base.events.release, [raw](void*) { slot_unlocked(*raw); });
  ++live;
  return &buffer->release()->base;
}

void allocator_destroy(wlr_allocator* base) { delete get(base); }

const wlr_allocator_interface kAllocatorImpl = {
    .create_buffer = create_buffer,
    .destroy = allocator_destroy,
};

}  // namespace

void Slot::step(SlotEvent event) {
  std::optional<SlotState> next = next_state(state, event);
  if (!next) {
    LOG_ERROR("vulkan swapchain: a %s slot cannot take event %d", slot_state_name(state),
              static_cast<int>(event));
    return;
  }
  state = *next;
}

void slot_presented(wlr_buffer* buffer) {
  if (Slot* target = slot_of(buffer); target != nullptr) target->step(SlotEvent::presented);
}

void slot_set_reuse_fence(wlr_buffer* buffer, UniqueFd fence) {
  if (Slot* target = slot_of(buffer); target != nullptr) target->reuse_fence = std::move(fence);
}

SharedMemory::~SharedMemory() {
  if (data != nullptr) munmap(data, size);
}

Status SharedMemory::create(size_t bytes) {
  fd = UniqueFd(memfd_create("baton-swapchain", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd || ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
    return last_error("memfd of " + std::to_string(bytes) + " bytes");
  // The consumer maps it too: it must not be able to shrink it under us.
  fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL);
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (mapped == MAP_FAILED) return last_error("mmap of the slot memfd");
  data = mapped;
  size = bytes;
  return {};
}

Slot* slot_of(wlr_buffer* buffer) {
  if (buffer == nullptr || buffer->impl != &kBufferImpl) return nullptr;
  return &get(buffer)->slot;
}

Result<wlr_allocator*> create_slot_allocator(std::shared_ptr<Device> device,
                                             const SwapchainOptions& options,
                                             const SlotAllocatorDevice& can) {
  auto alloc = std::make_unique<SwapchainAllocator>();
  alloc->device = std::move(device);
  alloc->counts = std::make_shared<SlotCounts>();
  alloc->findings = std::make_shared<SlotFindings>();
  alloc->slots = std::max(1, options.slots);
  alloc->shm = options.shm && can.share_memory;
  if (options.shm && !alloc->shm)
    return failure("vulkan swapchain", "wl_shm slots need VK_EXT_external_memory_host");
  alloc->host_visible = options.host_visible || alloc->shm;
  alloc->storage = can.storage;
  if (options.kms_fd >= 0) {
    if (!alloc->device->features().dmabuf_import)
      return failure("vulkan swapchain",
                     "DRM slots need dma-buf import (VK_EXT_image_drm_format_modifier)");
    // An open file of our own, not a dup: GEM handles are per open file, and
    // the DRM backend closes the handles it gets importing our dma-bufs.
    MallocPtr<char> path(drmGetDeviceNameFromFd2(options.kms_fd));
    alloc->kms = std::make_shared<UniqueFd>(path ? open(path.get(), O_RDWR | O_CLOEXEC) : -1);
    if (!*alloc->kms)
      return last_error(std::string("vulkan swapchain: opening the DRM device ") +
                        (path ? path.get() : "?") + " again");
    alloc->host_visible = false;
  }
  if (options.dmabuf_parent || options.capture_dmabufs) {
    if (!can.export_dmabuf)
      return failure("vulkan swapchain", options.dmabuf_parent
                                             ? "slots for a dma-buf parent need dma-buf export"
                                             : "dma-buf slots for capture need dma-buf export");
    alloc->dmabuf_parent = true;
    alloc->for_capture = !options.dmabuf_parent;
    alloc->host_visible = false;
  }
  uint32_t caps = alloc->host_visible ? WLR_BUFFER_CAP_DATA_PTR : 0;
  if (alloc->shm) caps |= WLR_BUFFER_CAP_SHM;
  if (alloc->kms || alloc->dmabuf_parent) caps |= WLR_BUFFER_CAP_DMABUF;
  wlr_allocator_init(&alloc->base, &kAllocatorImpl, caps);
  return &alloc.release()->base;
}

wlr_allocator* create_sibling_allocator(wlr_allocator* shared) {
  if (shared == nullptr || shared->impl != &kAllocatorImpl) return nullptr;
  const SwapchainAllocator& from = *get(shared);
  auto alloc = std::make_unique<SwapchainAllocator>();
  alloc->device = from.device;
  alloc->counts = std::make_shared<SlotCounts>();
  alloc->slots = from.slots;
  alloc->host_visible = from.host_visible;
  alloc->shm = from.shm;
  alloc->storage = from.storage;
  alloc->kms = from.kms;
  alloc->dmabuf_parent = from.dmabuf_parent;
  alloc->for_capture = from.for_capture;
  alloc->findings = from.findings;
  wlr_allocator_init(&alloc->base, &kAllocatorImpl, shared->buffer_caps);
  return &alloc.release()->base;
}

}  // namespace baton::vulkan
