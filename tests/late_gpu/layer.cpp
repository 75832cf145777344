// VK_LAYER_BATON_late_gpu: a test GPU made of lavapipe and the kernel's
// vgem. Lavapipe finishes every batch on the CPU and makes a SYNC_FD export
// wait for the whole device, so through it alone baton only ever hands on
// fences that have already signalled. This layer gives it what a real GPU
// has: work that finishes later than it was submitted (an optional delay
// per batch, BATON_LATE_GPU_DELAY_MS, under vgem's 10 s fence timeout),
// exported fences that are real and still pending (FenceSignaller), and
// waits on imported fences done by the "GPU" (GpuQueue), not inside
// vkQueueSubmit. What it cannot mimic: a GPU running batches in parallel
// with the CPU's own rendering (lavapipe's threads share the machine), and
// fences of other drivers (every fence it makes is vgem's).
//
// It reports itself as a virtual GPU: baton decides by the device type
// whether render-done can be handed on pending (a CPU device's export
// waits). It is loaded only where a test asks for it (VK_ADD_LAYER_PATH and
// VK_INSTANCE_LAYERS); baton never links it.
//
// The loader calls a layer through free functions keyed by the dispatch
// table of the object passed, so the layer keeps its instances and devices
// in process-wide maps: the one place a Vulkan layer cannot avoid them.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tests/late_gpu/late_device.hpp"
#include "tests/late_gpu/tile_flags_modifier.hpp"

#define LATE_GPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace baton::late_gpu {
namespace {

void* key_of(const void* dispatchable) { return *static_cast<void* const*>(dispatchable); }

struct Instance {
  VkInstance instance = VK_NULL_HANDLE;
  PFN_vkGetInstanceProcAddr get_proc = nullptr;
  PFN_vkDestroyInstance destroy = nullptr;
  PFN_vkGetPhysicalDeviceProperties properties = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 properties2 = nullptr;
  PFN_vkGetPhysicalDeviceFormatProperties2 format_properties2 = nullptr;
  PFN_vkGetPhysicalDeviceImageFormatProperties2 image_format_properties2 = nullptr;
};

struct Registry {
  std::mutex mutex;
  std::map<void*, Instance> instances;
  std::map<void*, std::unique_ptr<LateDevice>> devices;
};

Registry& registry() {
  static Registry r;  // see the file comment
  return r;
}

Instance instance_of(const void* dispatchable) {
  std::lock_guard lock(registry().mutex);
  return registry().instances.at(key_of(dispatchable));
}

LateDevice& device_of(const void* dispatchable) {
  std::lock_guard lock(registry().mutex);
  return *registry().devices.at(key_of(dispatchable));
}

bool tile_flags_from_environment() {
  const char* value = std::getenv(kTileFlagsEnv);
  return value != nullptr && std::string_view(value) == "1";
}

std::chrono::milliseconds delay_from_environment() {
  const char* value = std::getenv("BATON_LATE_GPU_DELAY_MS");
  return std::chrono::milliseconds(value != nullptr ? std::atoi(value) : 0);
}

template <size_t N>
void set_text(char (&field)[N], const std::string& text) {
  const size_t n = std::min(text.size(), N - 1);
  std::memcpy(field, text.data(), n);
  field[n] = '\0';
}

// What baton (and vulkaninfo) see: a virtual GPU whose driver says what it is.
void report_late_gpu(VkPhysicalDeviceProperties& props) {
  props.deviceType = VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
  set_text(props.deviceName, "late GPU over " + std::string(props.deviceName));
}

void report_driver(void* chain) {
  for (auto* s = static_cast<VkBaseOutStructure*>(chain); s != nullptr; s = s->pNext) {
    if (s->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES) continue;
    auto* driver = reinterpret_cast<VkPhysicalDeviceDriverProperties*>(s);
    set_text(driver->driverInfo,
             "late GPU layer (vgem fences) over " + std::string(driver->driverName));
  }
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice physical,
                                                       VkPhysicalDeviceProperties* props) {
  instance_of(physical).properties(physical, props);
  report_late_gpu(*props);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice physical,
                                                        VkPhysicalDeviceProperties2* props) {
  instance_of(physical).properties2(physical, props);
  report_late_gpu(props->properties);
  report_driver(props->pNext);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceFormatProperties2(VkPhysicalDevice physical,
                                                              VkFormat format,
                                                              VkFormatProperties2* props) {
  const Instance i = instance_of(physical);
  if (!tile_flags_from_environment()) return i.format_properties2(physical, format, props);
  tile_flags_format_properties(i.format_properties2, physical, format, props);
}

VKAPI_ATTR VkResult VKAPI_CALL GetPhysicalDeviceImageFormatProperties2(
    VkPhysicalDevice physical, const VkPhysicalDeviceImageFormatInfo2* info,
    VkImageFormatProperties2* props) {
  const Instance i = instance_of(physical);
  if (!tile_flags_from_environment()) return i.image_format_properties2(physical, info, props);
  return tile_flags_image_format_properties(i.image_format_properties2, physical, info, props);
}

template <typename Info, typename Create>
Info* link_info(const Create* create, VkStructureType type) {
  auto* s = static_cast<Info*>(const_cast<void*>(create->pNext));
  while (s != nullptr && !(s->sType == type && s->function == VK_LAYER_LINK_INFO))
    s = static_cast<Info*>(const_cast<void*>(s->pNext));
  return s;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* info,
                                              const VkAllocationCallbacks* alloc,
                                              VkInstance* instance) {
  auto* link =
      link_info<VkLayerInstanceCreateInfo>(info, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(next(VK_NULL_HANDLE, "vkCreateInstance"));
  const VkResult r = create(info, alloc, instance);
  if (r != VK_SUCCESS) return r;
  Instance i;
  i.instance = *instance;
  i.get_proc = next;
  i.destroy = reinterpret_cast<PFN_vkDestroyInstance>(next(*instance, "vkDestroyInstance"));
  i.properties = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(
      next(*instance, "vkGetPhysicalDeviceProperties"));
  i.properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
      next(*instance, "vkGetPhysicalDeviceProperties2"));
  i.format_properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFormatProperties2>(
      next(*instance, "vkGetPhysicalDeviceFormatProperties2"));
  i.image_format_properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceImageFormatProperties2>(
      next(*instance, "vkGetPhysicalDeviceImageFormatProperties2"));
  std::lock_guard lock(registry().mutex);
  registry().instances[key_of(*instance)] = i;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance,
                                           const VkAllocationCallbacks* alloc) {
  Instance i = instance_of(instance);
  {
    std::lock_guard lock(registry().mutex);
    registry().instances.erase(key_of(instance));
  }
  i.destroy(instance, alloc);
}

template <typename Fn>
Fn device_proc(const DriverDevice& d, const char* name) {
  return reinterpret_cast<Fn>(d.get_proc(d.device, name));
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical,
                                            const VkDeviceCreateInfo* info,
                                            const VkAllocationCallbacks* alloc, VkDevice* device) {
  auto* link =
      link_info<VkLayerDeviceCreateInfo>(info, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_instance = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_device = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(
      next_instance(instance_of(physical).instance, "vkCreateDevice"));
  const VkResult r = create(physical, info, alloc, device);
  if (r != VK_SUCCESS) return r;
  DriverDevice d;
  d.device = *device;
  d.get_proc = next_device;
  d.destroy = device_proc<PFN_vkDestroyDevice>(d, "vkDestroyDevice");
  d.queue_submit = device_proc<PFN_vkQueueSubmit>(d, "vkQueueSubmit");
  d.queue_wait_idle = device_proc<PFN_vkQueueWaitIdle>(d, "vkQueueWaitIdle");
  d.device_wait_idle = device_proc<PFN_vkDeviceWaitIdle>(d, "vkDeviceWaitIdle");
  d.create_semaphore = device_proc<PFN_vkCreateSemaphore>(d, "vkCreateSemaphore");
  d.destroy_semaphore = device_proc<PFN_vkDestroySemaphore>(d, "vkDestroySemaphore");
  d.wait_semaphores = device_proc<PFN_vkWaitSemaphores>(d, "vkWaitSemaphores");
  d.semaphore_value = device_proc<PFN_vkGetSemaphoreCounterValue>(d, "vkGetSemaphoreCounterValue");
  ImageCalls images;
  images.device = *device;
  images.create_image = device_proc<PFN_vkCreateImage>(d, "vkCreateImage");
  images.destroy_image = device_proc<PFN_vkDestroyImage>(d, "vkDestroyImage");
  images.memory_requirements =
      device_proc<PFN_vkGetImageMemoryRequirements>(d, "vkGetImageMemoryRequirements");
  images.subresource_layout =
      device_proc<PFN_vkGetImageSubresourceLayout>(d, "vkGetImageSubresourceLayout");
  images.allocate_memory = device_proc<PFN_vkAllocateMemory>(d, "vkAllocateMemory");
  images.free_memory = device_proc<PFN_vkFreeMemory>(d, "vkFreeMemory");
  images.map_memory = device_proc<PFN_vkMapMemory>(d, "vkMapMemory");
  images.bind_image_memory = device_proc<PFN_vkBindImageMemory>(d, "vkBindImageMemory");
  auto late = LateDevice::create(d, delay_from_environment(),
                                 tile_flags_from_environment() ? &images : nullptr);
  if (!late) {
    std::fprintf(stderr, "late-gpu: %s\n", late.error().describe().c_str());
    d.destroy(*device, alloc);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  std::lock_guard lock(registry().mutex);
  registry().devices[key_of(*device)] = std::move(*late);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* alloc) {
  std::unique_ptr<LateDevice> late;
  {
    std::lock_guard lock(registry().mutex);
    auto it = registry().devices.find(key_of(device));
    late = std::move(it->second);
    registry().devices.erase(it);
  }
  const PFN_vkDestroyDevice destroy = late->driver().destroy;
  late.reset();  // its queues run out first
  destroy(device, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count,
                                           const VkSubmitInfo* submits, VkFence fence) {
  return device_of(queue).submit(queue, count, submits, fence);
}

// baton submits through vkQueueSubmit only; a batch that bypassed the
// layer's queue would overtake the ones it holds.
VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue, uint32_t, const VkSubmitInfo2*, VkFence) {
  std::fprintf(stderr, "late-gpu: vkQueueSubmit2 is not implemented by the test GPU\n");
  return VK_ERROR_FEATURE_NOT_PRESENT;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  return device_of(queue).queue_wait_idle(queue);
}

VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device) {
  return device_of(device).device_wait_idle();
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo* info,
                                               const VkAllocationCallbacks* alloc,
                                               VkSemaphore* semaphore) {
  return device_of(device).create_semaphore(info, alloc, semaphore);
}

VKAPI_ATTR void VKAPI_CALL DestroySemaphore(VkDevice device, VkSemaphore semaphore,
                                            const VkAllocationCallbacks* alloc) {
  device_of(device).destroy_semaphore(semaphore, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreFd(VkDevice device, const VkSemaphoreGetFdInfoKHR* info,
                                              int* fd) {
  LateDevice& late = device_of(device);
  if (info->handleType == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT)
    return late.export_sync_file(info, fd);
  return device_proc<PFN_vkGetSemaphoreFdKHR>(late.driver(), "vkGetSemaphoreFdKHR")(device, info,
                                                                                    fd);
}

VKAPI_ATTR VkResult VKAPI_CALL ImportSemaphoreFd(VkDevice device,
                                                 const VkImportSemaphoreFdInfoKHR* info) {
  LateDevice& late = device_of(device);
  if (info->handleType == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT)
    return late.import_sync_file(info);
  return device_proc<PFN_vkImportSemaphoreFdKHR>(late.driver(), "vkImportSemaphoreFdKHR")(device,
                                                                                          info);
}

// Fences' SYNC_FD would go to lavapipe's waiting export: refused loudly.
VKAPI_ATTR VkResult VKAPI_CALL GetFenceFd(VkDevice, const VkFenceGetFdInfoKHR*, int*) {
  std::fprintf(stderr, "late-gpu: vkGetFenceFdKHR is not implemented by the test GPU\n");
  return VK_ERROR_FEATURE_NOT_PRESENT;
}

// The two-plane RGB images (tile_flags_images.hpp); with them off, or for
// any other image, each call goes straight to the driver.
template <typename Fn>
Fn driver_proc(VkDevice device, const char* name) {
  return device_proc<Fn>(device_of(device).driver(), name);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                              const VkAllocationCallbacks* alloc,
                                              VkDeviceMemory* memory) {
  if (TileFlagsImages* images = device_of(device).tile_flags())
    return images->allocate_memory(info, alloc, memory);
  return driver_proc<PFN_vkAllocateMemory>(device, "vkAllocateMemory")(device, info, alloc, memory);
}

VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory,
                                      const VkAllocationCallbacks* alloc) {
  if (TileFlagsImages* images = device_of(device).tile_flags())
    return images->free_memory(memory, alloc);
  driver_proc<PFN_vkFreeMemory>(device, "vkFreeMemory")(device, memory, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateImage(VkDevice device, const VkImageCreateInfo* info,
                                           const VkAllocationCallbacks* alloc, VkImage* image) {
  if (TileFlagsImages* images = device_of(device).tile_flags())
    return images->create_image(info, alloc, image);
  return driver_proc<PFN_vkCreateImage>(device, "vkCreateImage")(device, info, alloc, image);
}

VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image,
                                        const VkAllocationCallbacks* alloc) {
  if (TileFlagsImages* images = device_of(device).tile_flags())
    return images->destroy_image(image, alloc);
  driver_proc<PFN_vkDestroyImage>(device, "vkDestroyImage")(device, image, alloc);
}

VKAPI_ATTR void VKAPI_CALL GetImageMemoryRequirements(VkDevice device, VkImage image,
                                                      VkMemoryRequirements* req) {
  TileFlagsImages* images = device_of(device).tile_flags();
  if (images != nullptr && images->memory_requirements(image, *req)) return;
  driver_proc<PFN_vkGetImageMemoryRequirements>(device, "vkGetImageMemoryRequirements")(device,
                                                                                        image, req);
}

VKAPI_ATTR void VKAPI_CALL GetImageMemoryRequirements2(VkDevice device,
                                                       const VkImageMemoryRequirementsInfo2* info,
                                                       VkMemoryRequirements2* req) {
  TileFlagsImages* images = device_of(device).tile_flags();
  if (images != nullptr && images->memory_requirements(info->image, req->memoryRequirements)) {
    for (auto* s = static_cast<VkBaseOutStructure*>(req->pNext); s != nullptr; s = s->pNext) {
      if (s->sType != VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS) continue;
      auto* dedicated = reinterpret_cast<VkMemoryDedicatedRequirements*>(s);
      dedicated->prefersDedicatedAllocation = VK_FALSE;
      dedicated->requiresDedicatedAllocation = VK_FALSE;
    }
    return;
  }
  driver_proc<PFN_vkGetImageMemoryRequirements2>(device, "vkGetImageMemoryRequirements2")(
      device, info, req);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceImageMemoryRequirements(
    VkDevice device, const VkDeviceImageMemoryRequirements* info, VkMemoryRequirements2* req) {
  TileFlagsImages* images = device_of(device).tile_flags();
  const auto next = driver_proc<PFN_vkGetDeviceImageMemoryRequirements>(
      device, "vkGetDeviceImageMemoryRequirements");
  if (images != nullptr && images->memory_requirements(*info, next, req->memoryRequirements))
    return;
  next(device, info, req);
}

VKAPI_ATTR VkResult VKAPI_CALL BindImageMemory2(VkDevice device, uint32_t count,
                                                const VkBindImageMemoryInfo* infos) {
  TileFlagsImages* images = device_of(device).tile_flags();
  std::vector<VkBindImageMemoryInfo> others;
  for (uint32_t n = 0; n < count; ++n) {
    bool handled = false;
    if (images != nullptr)
      if (VkResult r = images->bind(infos[n], handled); r != VK_SUCCESS) return r;
    if (!handled) others.push_back(infos[n]);
  }
  if (others.empty()) return VK_SUCCESS;
  return driver_proc<PFN_vkBindImageMemory2>(device, "vkBindImageMemory2")(
      device, static_cast<uint32_t>(others.size()), others.data());
}

VKAPI_ATTR VkResult VKAPI_CALL BindImageMemory(VkDevice device, VkImage image,
                                               VkDeviceMemory memory, VkDeviceSize offset) {
  VkBindImageMemoryInfo info{VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO};
  info.image = image;
  info.memory = memory;
  info.memoryOffset = offset;
  return BindImageMemory2(device, 1, &info);
}

VKAPI_ATTR VkResult VKAPI_CALL GetImageDrmFormatModifierProperties(
    VkDevice device, VkImage image, VkImageDrmFormatModifierPropertiesEXT* props) {
  TileFlagsImages* images = device_of(device).tile_flags();
  if (images != nullptr && images->modifier(image, props->drmFormatModifier)) return VK_SUCCESS;
  return driver_proc<PFN_vkGetImageDrmFormatModifierPropertiesEXT>(
      device, "vkGetImageDrmFormatModifierPropertiesEXT")(device, image, props);
}

VKAPI_ATTR void VKAPI_CALL GetImageSubresourceLayout(VkDevice device, VkImage image,
                                                     const VkImageSubresource* subresource,
                                                     VkSubresourceLayout* layout) {
  TileFlagsImages* images = device_of(device).tile_flags();
  if (images != nullptr && images->plane_layout(image, subresource->aspectMask, *layout)) return;
  driver_proc<PFN_vkGetImageSubresourceLayout>(device, "vkGetImageSubresourceLayout")(
      device, image, subresource, layout);
}

PFN_vkVoidFunction device_function(std::string_view name) {
  struct Entry {
    std::string_view name;
    PFN_vkVoidFunction fn;
  };
  static const Entry entries[] = {
      {"vkDestroyDevice", reinterpret_cast<PFN_vkVoidFunction>(&DestroyDevice)},
      {"vkQueueSubmit", reinterpret_cast<PFN_vkVoidFunction>(&QueueSubmit)},
      {"vkQueueSubmit2", reinterpret_cast<PFN_vkVoidFunction>(&QueueSubmit2)},
      {"vkQueueSubmit2KHR", reinterpret_cast<PFN_vkVoidFunction>(&QueueSubmit2)},
      {"vkQueueWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(&QueueWaitIdle)},
      {"vkDeviceWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(&DeviceWaitIdle)},
      {"vkCreateSemaphore", reinterpret_cast<PFN_vkVoidFunction>(&CreateSemaphore)},
      {"vkDestroySemaphore", reinterpret_cast<PFN_vkVoidFunction>(&DestroySemaphore)},
      {"vkGetSemaphoreFdKHR", reinterpret_cast<PFN_vkVoidFunction>(&GetSemaphoreFd)},
      {"vkImportSemaphoreFdKHR", reinterpret_cast<PFN_vkVoidFunction>(&ImportSemaphoreFd)},
      {"vkGetFenceFdKHR", reinterpret_cast<PFN_vkVoidFunction>(&GetFenceFd)},
      {"vkAllocateMemory", reinterpret_cast<PFN_vkVoidFunction>(&AllocateMemory)},
      {"vkFreeMemory", reinterpret_cast<PFN_vkVoidFunction>(&FreeMemory)},
      {"vkCreateImage", reinterpret_cast<PFN_vkVoidFunction>(&CreateImage)},
      {"vkDestroyImage", reinterpret_cast<PFN_vkVoidFunction>(&DestroyImage)},
      {"vkGetImageMemoryRequirements",
       reinterpret_cast<PFN_vkVoidFunction>(&GetImageMemoryRequirements)},
      {"vkGetImageMemoryRequirements2",
       reinterpret_cast<PFN_vkVoidFunction>(&GetImageMemoryRequirements2)},
      {"vkGetImageMemoryRequirements2KHR",
       reinterpret_cast<PFN_vkVoidFunction>(&GetImageMemoryRequirements2)},
      {"vkGetDeviceImageMemoryRequirements",
       reinterpret_cast<PFN_vkVoidFunction>(&GetDeviceImageMemoryRequirements)},
      {"vkGetDeviceImageMemoryRequirementsKHR",
       reinterpret_cast<PFN_vkVoidFunction>(&GetDeviceImageMemoryRequirements)},
      {"vkBindImageMemory", reinterpret_cast<PFN_vkVoidFunction>(&BindImageMemory)},
      {"vkBindImageMemory2", reinterpret_cast<PFN_vkVoidFunction>(&BindImageMemory2)},
      {"vkBindImageMemory2KHR", reinterpret_cast<PFN_vkVoidFunction>(&BindImageMemory2)},
      {"vkGetImageDrmFormatModifierPropertiesEXT",
       reinterpret_cast<PFN_vkVoidFunction>(&GetImageDrmFormatModifierProperties)},
      {"vkGetImageSubresourceLayout",
       reinterpret_cast<PFN_vkVoidFunction>(&GetImageSubresourceLayout)},
  };
  for (const Entry& e : entries)
    if (e.name == name) return e.fn;
  return nullptr;
}

}  // namespace
}  // namespace baton::late_gpu

using namespace baton::late_gpu;

LATE_GPU_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
late_gpu_GetDeviceProcAddr(VkDevice device, const char* name);

LATE_GPU_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
late_gpu_GetDeviceProcAddr(VkDevice device, const char* name) {
  if (std::string_view(name) == "vkGetDeviceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&late_gpu_GetDeviceProcAddr);
  if (PFN_vkVoidFunction fn = device_function(name)) return fn;
  const DriverDevice& d = device_of(device).driver();
  return d.get_proc(device, name);
}

LATE_GPU_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
late_gpu_GetInstanceProcAddr(VkInstance instance, const char* name) {
  const std::string_view n(name);
  if (n == "vkGetInstanceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&late_gpu_GetInstanceProcAddr);
  if (n == "vkGetDeviceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&late_gpu_GetDeviceProcAddr);
  if (n == "vkCreateInstance") return reinterpret_cast<PFN_vkVoidFunction>(&CreateInstance);
  if (n == "vkDestroyInstance") return reinterpret_cast<PFN_vkVoidFunction>(&DestroyInstance);
  if (n == "vkCreateDevice") return reinterpret_cast<PFN_vkVoidFunction>(&CreateDevice);
  if (n == "vkGetPhysicalDeviceProperties")
    return reinterpret_cast<PFN_vkVoidFunction>(&GetPhysicalDeviceProperties);
  if (n == "vkGetPhysicalDeviceProperties2" || n == "vkGetPhysicalDeviceProperties2KHR")
    return reinterpret_cast<PFN_vkVoidFunction>(&GetPhysicalDeviceProperties2);
  if (n == "vkGetPhysicalDeviceFormatProperties2" || n == "vkGetPhysicalDeviceFormatProperties2KHR")
    return reinterpret_cast<PFN_vkVoidFunction>(&GetPhysicalDeviceFormatProperties2);
  if (n == "vkGetPhysicalDeviceImageFormatProperties2" ||
      n == "vkGetPhysicalDeviceImageFormatProperties2KHR")
    return reinterpret_cast<PFN_vkVoidFunction>(&GetPhysicalDeviceImageFormatProperties2);
  if (PFN_vkVoidFunction fn = device_function(n)) return fn;
  if (instance == VK_NULL_HANDLE) return nullptr;  // a global function the layer does not wrap
  return instance_of(instance).get_proc(instance, name);
}
