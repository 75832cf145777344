#include "tests/clients/vk_renderer.hpp"

#include <drm_fourcc.h>

#include <cstdio>
#include <cstring>

namespace baton::testing {

namespace {

const char* result_name(VkResult r) {
  switch (r) {
#define BATON_VK_CASE(x) \
  case x:                \
    return #x;
    BATON_VK_CASE(VK_SUCCESS)
    BATON_VK_CASE(VK_NOT_READY)
    BATON_VK_CASE(VK_TIMEOUT)
    BATON_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    BATON_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    BATON_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    BATON_VK_CASE(VK_ERROR_DEVICE_LOST)
    BATON_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    BATON_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    BATON_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    BATON_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    BATON_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    BATON_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
#undef BATON_VK_CASE
    default:
      return "VkResult(?)";
  }
}

constexpr VkFormat kFormat = VK_FORMAT_B8G8R8A8_UNORM;  // XRGB8888 / ARGB8888 in memory

const char* const kDeviceExtensions[] = {
    VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,        VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
    VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
    VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME,
};

VkClearColorValue clear_value(uint32_t xrgb) {
  VkClearColorValue v{};
  v.float32[0] = static_cast<float>((xrgb >> 16) & 0xff) / 255.0f;
  v.float32[1] = static_cast<float>((xrgb >> 8) & 0xff) / 255.0f;
  v.float32[2] = static_cast<float>(xrgb & 0xff) / 255.0f;
  v.float32[3] = 1.0f;
  return v;
}

void barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
             VkAccessFlags src, VkAccessFlags dst) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       0, 0, nullptr, 0, nullptr, 1, &b);
}

}  // namespace

bool vk_ok(VkResult r, const char* call) {
  if (r == VK_SUCCESS) return true;
  std::printf("vk-dmabuf-client: %s failed: %s (%d)\n", call, result_name(r), static_cast<int>(r));
  return false;
}

std::unique_ptr<VkRenderer> VkRenderer::create() {
  std::unique_ptr<VkRenderer> r(new VkRenderer());
  if (!r->init()) return nullptr;
  return r;
}

VkRenderer::~VkRenderer() {
  // Nothing may be in flight when the images and the device go.
  if (device_.get() != VK_NULL_HANDLE) vkDeviceWaitIdle(device_.get());
}

bool VkRenderer::init() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "baton-vk-dmabuf-client";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (!vk_ok(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance")) return false;
  instance_ = VkOwned<VkInstance>(instance, [](VkInstance i) { vkDestroyInstance(i, nullptr); });

  uint32_t count = 0;
  if (!vk_ok(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices"))
    return false;
  std::vector<VkPhysicalDevice> devices(count);
  if (!vk_ok(vkEnumeratePhysicalDevices(instance, &count, devices.data()),
             "vkEnumeratePhysicalDevices"))
    return false;
  for (VkPhysicalDevice pd : devices) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
    size_t found = 0;
    for (const char* want : kDeviceExtensions)
      for (const auto& e : exts)
        if (std::strcmp(e.extensionName, want) == 0) ++found;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    if (found == std::size(kDeviceExtensions)) {
      physical_ = pd;
      name_ = props.deviceName;
      break;
    }
    std::printf("vk-dmabuf-client: %s lacks dma-buf export / drm modifiers / sync_fd\n",
                props.deviceName);
  }
  if (physical_ == VK_NULL_HANDLE) {
    std::printf("vk-dmabuf-client: no Vulkan device exports dma-bufs and sync_files\n");
    return false;
  }

  uint32_t nfam = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nfam, nullptr);
  std::vector<VkQueueFamilyProperties> fams(nfam);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nfam, fams.data());
  for (family_ = 0; family_ < nfam; ++family_)
    if (fams[family_].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_TRANSFER_BIT)) break;
  if (family_ == nfam) {
    std::printf("vk-dmabuf-client: no graphics or transfer queue\n");
    return false;
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = static_cast<uint32_t>(std::size(kDeviceExtensions));
  dci.ppEnabledExtensionNames = kDeviceExtensions;
  VkDevice device = VK_NULL_HANDLE;
  if (!vk_ok(vkCreateDevice(physical_, &dci, nullptr, &device), "vkCreateDevice")) return false;
  device_ = VkOwned<VkDevice>(device, [](VkDevice d) { vkDestroyDevice(d, nullptr); });
  vkGetDeviceQueue(device, family_, 0, &queue_);

  get_memory_fd_ =
      reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR"));
  get_semaphore_fd_ =
      reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device, "vkGetSemaphoreFdKHR"));
  get_modifier_ = reinterpret_cast<PFN_vkGetImageDrmFormatModifierPropertiesEXT>(
      vkGetDeviceProcAddr(device, "vkGetImageDrmFormatModifierPropertiesEXT"));
  if (!get_memory_fd_ || !get_semaphore_fd_ || !get_modifier_) {
    std::printf("vk-dmabuf-client: vkGetDeviceProcAddr: an extension entry point is missing\n");
    return false;
  }

  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = family_;
  VkCommandPool pool = VK_NULL_HANDLE;
  if (!vk_ok(vkCreateCommandPool(device, &pci, nullptr, &pool), "vkCreateCommandPool"))
    return false;
  pool_ = VkOwned<VkCommandPool>(
      pool, [device](VkCommandPool p) { vkDestroyCommandPool(device, p, nullptr); });
  return true;
}

std::optional<VkTarget> VkRenderer::make_target(uint32_t width, uint32_t height) {
  VkDevice device = device_.get();
  uint64_t modifier = DRM_FORMAT_MOD_LINEAR;
  VkImageDrmFormatModifierListCreateInfoEXT mods{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_LIST_CREATE_INFO_EXT};
  mods.drmFormatModifierCount = 1;
  mods.pDrmFormatModifiers = &modifier;
  VkExternalMemoryImageCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO, &mods};
  ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &ext};
  ici.imageType = VK_IMAGE_TYPE_2D;
  ici.format = kFormat;
  ici.extent = {width, height, 1};
  ici.mipLevels = 1;
  ici.arrayLayers = 1;
  ici.samples = VK_SAMPLE_COUNT_1_BIT;
  ici.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT;
  ici.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImage image = VK_NULL_HANDLE;
  if (!vk_ok(vkCreateImage(device, &ici, nullptr, &image), "vkCreateImage(LINEAR, dma-buf)"))
    return std::nullopt;
  VkTarget t;
  t.image = VkOwned<VkImage>(image, [device](VkImage i) { vkDestroyImage(device, i, nullptr); });

  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(device, image, &req);
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(physical_, &mem);
  uint32_t type = 0;
  while (type < mem.memoryTypeCount && !(req.memoryTypeBits & (1u << type))) ++type;
  if (type == mem.memoryTypeCount) {
    std::printf("vk-dmabuf-client: no memory type for the dma-buf image\n");
    return std::nullopt;
  }
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.image = image;
  VkExportMemoryAllocateInfo exp{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &dedicated};
  exp.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exp};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (!vk_ok(vkAllocateMemory(device, &mai, nullptr, &memory), "vkAllocateMemory(export dma-buf)"))
    return std::nullopt;
  t.memory = VkOwned<VkDeviceMemory>(
      memory, [device](VkDeviceMemory m) { vkFreeMemory(device, m, nullptr); });
  if (!vk_ok(vkBindImageMemory(device, image, memory, 0), "vkBindImageMemory")) return std::nullopt;

  VkImageDrmFormatModifierPropertiesEXT mod_props{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_PROPERTIES_EXT};
  if (!vk_ok(get_modifier_(device, image, &mod_props), "vkGetImageDrmFormatModifierPropertiesEXT"))
    return std::nullopt;
  t.modifier = mod_props.drmFormatModifier;
  VkImageSubresource sub{VK_IMAGE_ASPECT_MEMORY_PLANE_0_BIT_EXT, 0, 0};
  VkSubresourceLayout layout;
  vkGetImageSubresourceLayout(device, image, &sub, &layout);
  t.stride = static_cast<uint32_t>(layout.rowPitch);
  t.offset = layout.offset;

  VkMemoryGetFdInfoKHR get{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  get.memory = memory;
  get.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  int fd = -1;
  if (!vk_ok(get_memory_fd_(device, &get, &fd), "vkGetMemoryFdKHR(DMA_BUF)")) return std::nullopt;
  t.dmabuf = UniqueFd(fd);
  return t;
}

bool VkRenderer::make_scratch(uint32_t busy_size, uint32_t width, uint32_t height) {
  VkDevice device = device_.get();
  auto make = [&](uint32_t w, uint32_t h, VkOwned<VkImage>& img, VkOwned<VkDeviceMemory>& mem) {
    VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = kFormat;
    ici.extent = {w, h, 1};
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_OPTIMAL;
    ici.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VkImage image = VK_NULL_HANDLE;
    if (!vk_ok(vkCreateImage(device, &ici, nullptr, &image), "vkCreateImage(scratch)"))
      return false;
    img = VkOwned<VkImage>(image, [device](VkImage i) { vkDestroyImage(device, i, nullptr); });
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, image, &req);
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical_, &props);
    uint32_t type = 0;
    while (type < props.memoryTypeCount && !(req.memoryTypeBits & (1u << type))) ++type;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    if (!vk_ok(vkAllocateMemory(device, &mai, nullptr, &memory), "vkAllocateMemory(scratch)"))
      return false;
    mem = VkOwned<VkDeviceMemory>(memory,
                                  [device](VkDeviceMemory m) { vkFreeMemory(device, m, nullptr); });
    return vk_ok(vkBindImageMemory(device, image, memory, 0), "vkBindImageMemory(scratch)");
  };
  busy_size_ = busy_size;
  width_ = width;
  height_ = height;
  return make(busy_size, busy_size, busy_, busy_memory_) &&
         make(width, height, source_, source_memory_);
}

std::optional<VkOwned<VkSemaphore>> VkRenderer::make_export_semaphore() {
  VkDevice device = device_.get();
  VkExportSemaphoreCreateInfo exp{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
  exp.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exp};
  VkSemaphore s = VK_NULL_HANDLE;
  if (!vk_ok(vkCreateSemaphore(device, &sci, nullptr, &s), "vkCreateSemaphore(export SYNC_FD)"))
    return std::nullopt;
  return VkOwned<VkSemaphore>(s,
                              [device](VkSemaphore x) { vkDestroySemaphore(device, x, nullptr); });
}

std::optional<VkOwned<VkFence>> VkRenderer::make_fence(bool signalled) {
  VkDevice device = device_.get();
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (signalled) fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  VkFence f = VK_NULL_HANDLE;
  if (!vk_ok(vkCreateFence(device, &fci, nullptr, &f), "vkCreateFence")) return std::nullopt;
  return VkOwned<VkFence>(f, [device](VkFence x) { vkDestroyFence(device, x, nullptr); });
}

std::optional<VkOwned<VkCommandBuffer>> VkRenderer::make_command_buffer() {
  VkDevice device = device_.get();
  VkCommandPool pool = pool_.get();
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (!vk_ok(vkAllocateCommandBuffers(device, &cai, &cmd), "vkAllocateCommandBuffers"))
    return std::nullopt;
  return VkOwned<VkCommandBuffer>(
      cmd, [device, pool](VkCommandBuffer c) { vkFreeCommandBuffers(device, pool, 1, &c); });
}

bool VkRenderer::submit_frame(const VkTarget& target, uint32_t xrgb, int busy, VkSemaphore done,
                              VkFence fence, VkCommandBuffer cmd) {
  if (!vk_ok(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer")) return false;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (!vk_ok(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer")) return false;
  const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  const VkImageLayout dst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  const VkAccessFlags w = VK_ACCESS_TRANSFER_WRITE_BIT;

  // Busy work the frame depends on, so the render takes real time: clears of
  // a big image, each ordered after the last.
  barrier(cmd, busy_.get(), VK_IMAGE_LAYOUT_UNDEFINED, dst, 0, w);
  for (int k = 0; k < busy; ++k) {
    VkClearColorValue c = clear_value(static_cast<uint32_t>(k) * 0x010203u);
    vkCmdClearColorImage(cmd, busy_.get(), dst, &c, 1, &all);
    barrier(cmd, busy_.get(), dst, dst, w, w);
  }
  // The frame itself: clear the source to this frame's colour, copy it in.
  barrier(cmd, source_.get(), VK_IMAGE_LAYOUT_UNDEFINED, dst, 0, w);
  VkClearColorValue colour = clear_value(xrgb);
  vkCmdClearColorImage(cmd, source_.get(), dst, &colour, 1, &all);
  barrier(cmd, source_.get(), dst, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, w,
          VK_ACCESS_TRANSFER_READ_BIT);
  barrier(cmd, target.image.get(), VK_IMAGE_LAYOUT_UNDEFINED, dst, 0, w);
  VkImageCopy region{};
  region.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.extent = {width_, height_, 1};
  vkCmdCopyImage(cmd, source_.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target.image.get(), dst,
                 1, &region);
  // GENERAL for the compositor, which reads the dma-buf as it likes.
  barrier(cmd, target.image.get(), dst, VK_IMAGE_LAYOUT_GENERAL, w, VK_ACCESS_MEMORY_READ_BIT);
  if (!vk_ok(vkEndCommandBuffer(cmd), "vkEndCommandBuffer")) return false;

  // No wait semaphores: exporting `done` after this submit must not block
  // on anything but this frame's own work (the lavapipe quirk).
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &done;
  return vk_ok(vkQueueSubmit(queue_, 1, &submit, fence), "vkQueueSubmit");
}

UniqueFd VkRenderer::export_sync_file(VkSemaphore semaphore) {
  VkSemaphoreGetFdInfoKHR get{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  get.semaphore = semaphore;
  get.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
  int fd = -1;
  if (!vk_ok(get_semaphore_fd_(device_.get(), &get, &fd), "vkGetSemaphoreFdKHR(SYNC_FD)"))
    return UniqueFd();
  return UniqueFd(fd);
}

bool VkRenderer::wait_fence(VkFence fence, uint64_t timeout_ns, bool reset) {
  VkResult r = vkWaitForFences(device_.get(), 1, &fence, VK_TRUE, timeout_ns);
  if (!vk_ok(r, "vkWaitForFences")) return false;
  return !reset || vk_ok(vkResetFences(device_.get(), 1, &fence), "vkResetFences");
}

void VkRenderer::wait_idle() { vk_ok(vkDeviceWaitIdle(device_.get()), "vkDeviceWaitIdle"); }

}  // namespace baton::testing
