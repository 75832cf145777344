#include "renderer/vulkan/device/device.hpp"

#include <sys/sysmacros.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "renderer/vulkan/device/vk_util.hpp"
#include "util/log.hpp"

namespace baton::vulkan {
namespace {

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
  for (const VkExtensionProperties& e : list)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> list(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, list.data());
  return list;
}

DeviceKind kind_of(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return DeviceKind::discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceKind::integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceKind::virtual_gpu;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return DeviceKind::cpu;
    default:
      return DeviceKind::other;
  }
}

std::optional<uint32_t> graphics_queue_family(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  for (uint32_t i = 0; i < count; ++i)
    if (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) return i;
  return std::nullopt;
}

// Why `physical` cannot run baton's renderer, or "" when it can.
std::string refusal_of(VkPhysicalDevice physical, const VkPhysicalDeviceProperties& props,
                       const std::vector<VkExtensionProperties>& exts) {
  if (props.apiVersion < VK_API_VERSION_1_3) {
    return "needs Vulkan 1.3, has " + std::to_string(VK_API_VERSION_MAJOR(props.apiVersion)) + "." +
           std::to_string(VK_API_VERSION_MINOR(props.apiVersion));
  }
  if (!has_extension(exts, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME))
    return "lacks " VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  vkGetPhysicalDeviceFeatures2(physical, &features);
  if (!f12.timelineSemaphore) return "lacks timeline semaphores";
  if (!f13.dynamicRendering) return "lacks dynamic rendering";
  if (!f13.synchronization2) return "lacks synchronization2";
  if (!graphics_queue_family(physical)) return "has no graphics queue";
  VkFormatProperties format{};
  vkGetPhysicalDeviceFormatProperties(physical, VK_FORMAT_B8G8R8A8_UNORM, &format);
  VkFormatFeatureFlags needed =
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
      VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  if ((format.optimalTilingFeatures & needed) != needed)
    return "cannot sample and render B8G8R8A8_UNORM";
  return "";
}

DeviceCandidate describe(uint32_t index, VkPhysicalDevice physical) {
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(physical, &props);
  std::vector<VkExtensionProperties> exts = device_extensions(physical);
  DeviceCandidate c;
  c.index = index;
  c.name = props.deviceName;
  c.kind = kind_of(props.deviceType);
  c.refusal = refusal_of(physical, props, exts);
  if (has_extension(exts, VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME)) {
    VkPhysicalDeviceDrmPropertiesEXT drm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &drm};
    vkGetPhysicalDeviceProperties2(physical, &props2);
    if (drm.hasPrimary) c.primary_node = makedev(drm.primaryMajor, drm.primaryMinor);
    if (drm.hasRender) c.render_node = makedev(drm.renderMajor, drm.renderMinor);
  }
  return c;
}

}  // namespace

Device::~Device() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);  // teardown only
    if (timeline_ != VK_NULL_HANDLE) vkDestroySemaphore(device_, timeline_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

VKAPI_ATTR VkBool32 VKAPI_CALL Device::on_debug_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* self = static_cast<Device*>(user);
  // Loader chatter ("layer added by env var") is a general warning, not a finding.
  bool finding = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ||
                 (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT &&
                  (types & ~VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT) != 0);
  if (finding) {
    ++self->debug_messages_;
    LOG_ERROR("vulkan validation: %s", data->pMessage);
  } else {
    LOG_DEBUG("vulkan: %s", data->pMessage);
  }
  return VK_FALSE;
}

Status Device::check(VkResult result, const char* call) {
  if (result == VK_ERROR_DEVICE_LOST) lost_ = true;
  return vk_status(result, call);
}

uint64_t Device::completed() {
  if (completed_ >= submitted_ || lost_) return completed_;
  uint64_t value = 0;
  // On failure the last known point stands (a lost device completes nothing).
  Status read =
      check(vkGetSemaphoreCounterValue(device_, timeline_, &value), "vkGetSemaphoreCounterValue");
  if (read)
    completed_ = value;
  else
    LOG_ERROR("vulkan: %s", read.error().describe().c_str());
  return completed_;
}

void Device::free_after(uint64_t point, std::shared_ptr<void> resources) {
  if (point <= completed() || lost_) return;  // `resources` goes as this returns
  freed_after_.emplace_back(point, std::move(resources));
}

void Device::collect_freed() {
  if (freed_after_.empty()) return;
  const uint64_t done = completed();
  // Dropped after the loop: a resource's destructor may free more.
  std::vector<std::shared_ptr<void>> ready;
  std::erase_if(freed_after_, [&](auto& entry) {
    if (entry.first > done && !lost_) return false;
    ready.push_back(std::move(entry.second));
    return true;
  });
}

Status Device::wait(uint64_t point, std::string_view site) {
  if (completed() >= point) return {};
  if (lost_) return failure("waiting for point " + std::to_string(point), "the device was lost");
  if (std::this_thread::get_id() == loop_thread_) {
    auto counted = loop_waits_.find(site);
    if (counted == loop_waits_.end()) counted = loop_waits_.emplace(std::string(site), 0).first;
    ++counted->second;
  }
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = 1;
  info.pSemaphores = &timeline_;
  info.pValues = &point;
  // Bounded so a hung GPU turns into an error instead of a frozen compositor.
  if (Status waited = check(vkWaitSemaphores(device_, &info, 5'000'000'000ull), "vkWaitSemaphores");
      !waited)
    return waited;
  completed_ = std::max(completed_, point);
  return {};
}

int Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const {
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & required) == required)
      return static_cast<int>(i);
  }
  return -1;
}

Result<std::shared_ptr<Device>> Device::create(const DeviceOptions& options) {
  std::shared_ptr<Device> self(new Device());

  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> instance_exts(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, instance_exts.data());
  bool debug_utils =
      options.debug_messenger && has_extension(instance_exts, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &Device::on_debug_message;
  messenger_info.pUserData = self.get();

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "baton";
  app.pEngineName = "baton";
  app.apiVersion = VK_API_VERSION_1_3;
  const char* debug_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  if (debug_utils) {
    instance_info.pNext = &messenger_info;
    instance_info.enabledExtensionCount = 1;
    instance_info.ppEnabledExtensionNames = &debug_ext;
  }
  VkResult result = vkCreateInstance(&instance_info, nullptr, &self->instance_);
  if (result != VK_SUCCESS) {
    return vk_error("vkCreateInstance", result);
  }
  if (debug_utils) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(self->instance_, "vkCreateDebugUtilsMessengerEXT"));
    // Without it validation messages go uncounted; rendering is unaffected.
    if (create_messenger != nullptr) {
      Status created =
          vk_status(create_messenger(self->instance_, &messenger_info, nullptr, &self->messenger_),
                    "vkCreateDebugUtilsMessengerEXT");
      if (!created) LOG_ERROR("vulkan: %s", created.error().describe().c_str());
    }
  }

  count = 0;
  vkEnumeratePhysicalDevices(self->instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> physicals(count);
  vkEnumeratePhysicalDevices(self->instance_, &count, physicals.data());
  std::vector<DeviceCandidate> candidates;
  for (uint32_t i = 0; i < count; ++i) candidates.push_back(describe(i, physicals[i]));

  DeviceSelection selection = select_device(candidates, options.request);
  if (selection.chosen < 0) {
    return failure(std::string(selection.declined_cpu ? kDeclinedCpu : "no Vulkan device"),
                   selection.reason + "; devices seen:\n" + selection.report);
  }
  self->physical_ = physicals[selection.chosen];
  self->name_ = candidates[selection.chosen].name;
  self->kind_ = candidates[selection.chosen].kind;
  self->render_node_ = candidates[selection.chosen].render_node;
  LOG_INFO("vulkan: using '%s' (%s); devices seen:\n%s", self->name_.c_str(),
           selection.reason.c_str(), selection.report.c_str());

  vkGetPhysicalDeviceProperties(self->physical_, &self->properties_);
  vkGetPhysicalDeviceMemoryProperties(self->physical_, &self->memory_);
  self->queue_family_ = *graphics_queue_family(self->physical_);

  std::vector<VkExtensionProperties> exts = device_extensions(self->physical_);
  std::vector<const char*> enable = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  auto enable_all = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (!has_extension(exts, n)) return false;
    enable.insert(enable.end(), names.begin(), names.end());
    return true;
  };
  self->features_.dmabuf_import = enable_all({VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                              VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
                                              VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME});
  self->features_.semaphore_sync_fd = enable_all({VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME});
  self->features_.drm_node = enable_all({VK_EXT_PHYSICAL_DEVICE_DRM_EXTENSION_NAME});
  self->features_.host_memory_import = enable_all({VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME});
  if (self->features_.host_memory_import) {
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &host};
    vkGetPhysicalDeviceProperties2(self->physical_, &props);
    self->host_pointer_alignment = std::max<VkDeviceSize>(host.minImportedHostPointerAlignment, 1);
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = self->queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  // The compute compositor's needs: optional, it falls back to raster draws.
  VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &have12};
  vkGetPhysicalDeviceFeatures2(self->physical_, &have);
  self->features_.compute_composite = have.features.shaderStorageImageReadWithoutFormat &&
                                      have.features.shaderStorageImageWriteWithoutFormat &&
                                      have.features.shaderSampledImageArrayDynamicIndexing &&
                                      have12.shaderSampledImageArrayNonUniformIndexing &&
                                      have12.descriptorBindingPartiallyBound;
  self->features_.compute_upload = have.features.shaderStorageImageArrayDynamicIndexing;

  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  f13.dynamicRendering = VK_TRUE;
  f13.synchronization2 = VK_TRUE;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
  f12.timelineSemaphore = VK_TRUE;
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  if (self->features_.compute_composite) {
    enabled.features.shaderStorageImageReadWithoutFormat = VK_TRUE;
    enabled.features.shaderStorageImageWriteWithoutFormat = VK_TRUE;
    enabled.features.shaderSampledImageArrayDynamicIndexing = VK_TRUE;
    f12.shaderSampledImageArrayNonUniformIndexing = VK_TRUE;
    f12.descriptorBindingPartiallyBound = VK_TRUE;
  }
  if (self->features_.compute_upload)
    enabled.features.shaderStorageImageArrayDynamicIndexing = VK_TRUE;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &enabled};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = static_cast<uint32_t>(enable.size());
  device_info.ppEnabledExtensionNames = enable.data();
  result = vkCreateDevice(self->physical_, &device_info, nullptr, &self->device_);
  if (result != VK_SUCCESS) {
    return vk_error("vkCreateDevice on '" + self->name_ + "'", result);
  }
  vkGetDeviceQueue(self->device_, self->queue_family_, 0, &self->queue_);
  VkSemaphoreTypeCreateInfo timeline_type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  timeline_type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &timeline_type};
  result = vkCreateSemaphore(self->device_, &semaphore_info, nullptr, &self->timeline_);
  if (result != VK_SUCCESS) {
    return vk_error("vkCreateSemaphore (timeline)", result);
  }
  self->push_descriptor = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
      vkGetDeviceProcAddr(self->device_, "vkCmdPushDescriptorSetKHR"));
  if (self->features_.dmabuf_import) {
    self->get_memory_fd_properties = reinterpret_cast<PFN_vkGetMemoryFdPropertiesKHR>(
        vkGetDeviceProcAddr(self->device_, "vkGetMemoryFdPropertiesKHR"));
    self->get_image_modifier = reinterpret_cast<PFN_vkGetImageDrmFormatModifierPropertiesEXT>(
        vkGetDeviceProcAddr(self->device_, "vkGetImageDrmFormatModifierPropertiesEXT"));
    self->get_memory_fd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(
        vkGetDeviceProcAddr(self->device_, "vkGetMemoryFdKHR"));
  }
  if (self->features_.semaphore_sync_fd) {
    self->import_semaphore_fd = reinterpret_cast<PFN_vkImportSemaphoreFdKHR>(
        vkGetDeviceProcAddr(self->device_, "vkImportSemaphoreFdKHR"));
    self->get_semaphore_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(
        vkGetDeviceProcAddr(self->device_, "vkGetSemaphoreFdKHR"));
    VkPhysicalDeviceExternalSemaphoreInfo query{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
    query.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
    VkExternalSemaphoreProperties props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(self->physical_, &query, &props);
    self->features_.sync_fd_export =
        self->get_semaphore_fd != nullptr &&
        (props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
    // A CPU device completes the work inside the export (lavapipe: pinned by
    // the guest's vm-vulkan-env-test); a GPU hands out a pending fence (the
    // guest's test GPU, tests/late_gpu, is one).
    self->features_.sync_fd_export_waits =
        self->properties_.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (self->features_.sync_fd_export)
      LOG_INFO("vulkan: render-done is exported as a sync_file%s",
               self->features_.sync_fd_export_waits
                   ? "; this driver's export waits for the GPU, so the event loop waits for "
                     "the work first and signals the consumer's point from there"
                   : "");
  }
  if (self->features_.host_memory_import)
    self->get_host_pointer_properties = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
        vkGetDeviceProcAddr(self->device_, "vkGetMemoryHostPointerPropertiesEXT"));
  return self;
}

}  // namespace baton::vulkan
