// Small helpers shared by the Vulkan renderer: VkResults as Errors and RAII
// owners for device-level handles.
#pragma once

#include <vulkan/vulkan.h>

#include <string_view>
#include <utility>

#include "util/result.hpp"

namespace baton::vulkan {

// Where the renderer samples textures and writes its targets: raster draws or
// the compute compositor, whichever a pass used.
inline constexpr VkPipelineStageFlags2 kSampleStages =
    VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
inline constexpr VkPipelineStageFlags2 kTargetWriteStages =
    VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
inline constexpr VkAccessFlags2 kTargetWriteAccess =
    VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;

/// The name of a VkResult for log lines ("VK_ERROR_DEVICE_LOST").
[[nodiscard]] const char* result_name(VkResult result);

/// A failed Vulkan call as an Error whose reason names its VkResult
/// ("vkCreateImage: VK_ERROR_OUT_OF_DEVICE_MEMORY").
[[nodiscard]] Error vk_error(std::string_view call, VkResult result);
/// Ok when `result` is VK_SUCCESS, else vk_error(call, result). Logs nothing:
/// whoever handles the failure does.
[[nodiscard]] Status vk_status(VkResult result, std::string_view call);

/// Owns one handle created from a VkDevice; destroys it with `Destroy`.
template <typename T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  DeviceHandle(VkDevice device, T handle) : device_(device), handle_(handle) {}
  ~DeviceHandle() { reset(); }
  DeviceHandle(DeviceHandle&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, T(VK_NULL_HANDLE))) {}
  DeviceHandle& operator=(DeviceHandle&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, T(VK_NULL_HANDLE));
    }
    return *this;
  }
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;

  [[nodiscard]] T get() const { return handle_; }
  [[nodiscard]] explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }
  void reset() {
    if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  T handle_ = VK_NULL_HANDLE;
};

using UniqueImage = DeviceHandle<VkImage, vkDestroyImage>;
using UniqueImageView = DeviceHandle<VkImageView, vkDestroyImageView>;
using UniqueBuffer = DeviceHandle<VkBuffer, vkDestroyBuffer>;
using UniqueMemory = DeviceHandle<VkDeviceMemory, vkFreeMemory>;
using UniqueSampler = DeviceHandle<VkSampler, vkDestroySampler>;
using UniqueSemaphore = DeviceHandle<VkSemaphore, vkDestroySemaphore>;
using UniqueCommandPool = DeviceHandle<VkCommandPool, vkDestroyCommandPool>;
using UniquePipeline = DeviceHandle<VkPipeline, vkDestroyPipeline>;
using UniquePipelineLayout = DeviceHandle<VkPipelineLayout, vkDestroyPipelineLayout>;
using UniquePipelineCache = DeviceHandle<VkPipelineCache, vkDestroyPipelineCache>;
using UniqueDescriptorSetLayout = DeviceHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using UniqueShaderModule = DeviceHandle<VkShaderModule, vkDestroyShaderModule>;
using UniqueQueryPool = DeviceHandle<VkQueryPool, vkDestroyQueryPool>;
using UniqueFence = DeviceHandle<VkFence, vkDestroyFence>;
using UniqueDescriptorPool = DeviceHandle<VkDescriptorPool, vkDestroyDescriptorPool>;

/// A shader module of SPIR-V `code`.
[[nodiscard]] Result<UniqueShaderModule> make_shader_module(VkDevice device, const uint32_t* code,
                                                            size_t bytes);
/// A pipeline layout of one descriptor set and one push-constant range; an
/// error names `what`.
[[nodiscard]] Result<UniquePipelineLayout> make_pipeline_layout(VkDevice device,
                                                                VkDescriptorSetLayout set_layout,
                                                                const VkPushConstantRange& push,
                                                                const char* what);
/// A compute pipeline running `main` of SPIR-V `code` with `layout`; an
/// error names `what`.
[[nodiscard]] Result<UniquePipeline> make_compute_pipeline(VkDevice device, VkPipelineCache cache,
                                                           const uint32_t* code, size_t bytes,
                                                           VkPipelineLayout layout,
                                                           const char* what);

}  // namespace baton::vulkan
