#include "renderer/vulkan/device/vk_util.hpp"

#include <string>

namespace baton::vulkan {

const char* result_name(VkResult result) {
  switch (result) {
#define BATON_VK_RESULT(name) \
  case name:                  \
    return #name;
    BATON_VK_RESULT(VK_SUCCESS)
    BATON_VK_RESULT(VK_NOT_READY)
    BATON_VK_RESULT(VK_TIMEOUT)
    BATON_VK_RESULT(VK_INCOMPLETE)
    BATON_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    BATON_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    BATON_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    BATON_VK_RESULT(VK_ERROR_DEVICE_LOST)
    BATON_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    BATON_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    BATON_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    BATON_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    BATON_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    BATON_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    BATON_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    BATON_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    BATON_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    BATON_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    BATON_VK_RESULT(VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT)
#undef BATON_VK_RESULT
    default:
      return "VK_ERROR_(unknown)";
  }
}

Error vk_error(std::string_view call, VkResult result) {
  return failure(std::string(call), std::string(result_name(result)) + " (" +
                                        std::to_string(static_cast<int>(result)) + ")");
}

Status vk_status(VkResult result, std::string_view call) {
  if (result == VK_SUCCESS) return {};
  return vk_error(call, result);
}

Result<UniqueShaderModule> make_shader_module(VkDevice device, const uint32_t* code, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = code;
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r = vkCreateShaderModule(device, &info, nullptr, &module); r != VK_SUCCESS)
    return vk_error("vkCreateShaderModule", r);
  return UniqueShaderModule(device, module);
}

Result<UniquePipelineLayout> make_pipeline_layout(VkDevice device, VkDescriptorSetLayout set_layout,
                                                  const VkPushConstantRange& push,
                                                  const char* what) {
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = 1;
  info.pSetLayouts = &set_layout;
  info.pushConstantRangeCount = 1;
  info.pPushConstantRanges = &push;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  if (VkResult r = vkCreatePipelineLayout(device, &info, nullptr, &layout); r != VK_SUCCESS)
    return vk_error(what, r);
  return UniquePipelineLayout(device, layout);
}

Result<UniquePipeline> make_compute_pipeline(VkDevice device, VkPipelineCache cache,
                                             const uint32_t* code, size_t bytes,
                                             VkPipelineLayout layout, const char* what) {
  auto module = make_shader_module(device, code, bytes);
  if (!module) return module.error();
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module->get();
  info.stage.pName = "main";
  info.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = vkCreateComputePipelines(device, cache, 1, &info, nullptr, &pipeline);
      r != VK_SUCCESS)
    return vk_error(what, r);
  return UniquePipeline(device, pipeline);
}

}  // namespace baton::vulkan
