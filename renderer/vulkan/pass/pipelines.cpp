#include "renderer/vulkan/pass/pipelines.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "renderer/vulkan/shaders/quad_vert.h"
#include "renderer/vulkan/shaders/solid_frag.h"
#include "renderer/vulkan/shaders/texture_frag.h"
#include "renderer/vulkan/shaders/ycbcr_frag.h"

namespace baton::vulkan {
namespace {

std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

Pipelines::~Pipelines() { save_cache(); }

void Pipelines::save_cache() {
  if (cache_path_.empty() || !cache_) return;
  size_t size = 0;
  if (vkGetPipelineCacheData(device_.get(), cache_.get(), &size, nullptr) != VK_SUCCESS) return;
  std::vector<char> data(size);
  if (vkGetPipelineCacheData(device_.get(), cache_.get(), &size, data.data()) != VK_SUCCESS) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(cache_path_).parent_path(), ec);
  // Write then rename, so a crash never leaves a torn cache behind.
  std::string temp = cache_path_ + ".tmp";
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  if (!out.write(data.data(), static_cast<std::streamsize>(size))) return;
  out.close();
  std::filesystem::rename(temp, cache_path_, ec);
}

Status Pipelines::create(std::string cache_path) {
  VkDevice dev = device_.get();
  cache_path_ = std::move(cache_path);

  // The driver validates the header (vendor, device, UUID) and ignores a stale cache.
  std::vector<char> initial = cache_path_.empty() ? std::vector<char>{} : read_file(cache_path_);
  VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  cache_info.initialDataSize = initial.size();
  cache_info.pInitialData = initial.empty() ? nullptr : initial.data();
  VkPipelineCache cache = VK_NULL_HANDLE;
  if (Status s = device_.check(vkCreatePipelineCache(dev, &cache_info, nullptr, &cache),
                               "vkCreatePipelineCache");
      !s)
    return s;
  cache_ = UniquePipelineCache(dev, cache);

  for (Filter filter : {Filter::linear, Filter::nearest}) {
    VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    VkFilter f = filter == Filter::linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    info.magFilter = f;
    info.minFilter = f;
    info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    info.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    info.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    info.maxLod = 0.25f;
    VkSampler sampler = VK_NULL_HANDLE;
    if (Status s = device_.check(vkCreateSampler(dev, &info, nullptr, &sampler), "vkCreateSampler");
        !s)
      return s;
    samplers_[static_cast<int>(filter)] = UniqueSampler(dev, sampler);
  }

  // Textures are pushed per draw (VK_KHR_push_descriptor): no pools to manage.
  // Binding 0 is the texture (or Y); YUV draws also push Cb and Cr.
  VkDescriptorSetLayoutBinding bindings[3]{};
  for (uint32_t i = 0; i < 3; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  set_info.bindingCount = 3;
  set_info.pBindings = bindings;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  if (Status s = device_.check(vkCreateDescriptorSetLayout(dev, &set_info, nullptr, &set_layout),
                               "vkCreateDescriptorSetLayout");
      !s)
    return s;
  set_layout_ = UniqueDescriptorSetLayout(dev, set_layout);

  VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                            sizeof(YcbcrQuadConstants)};
  auto layout = make_pipeline_layout(dev, set_layout, range, "vkCreatePipelineLayout");
  if (!layout) return layout.error();
  layout_ = std::move(*layout);

  auto vert = make_shader_module(dev, quad_vert, sizeof(quad_vert));
  if (!vert) return vert.error();
  auto tex_frag = make_shader_module(dev, texture_frag, sizeof(texture_frag));
  if (!tex_frag) return tex_frag.error();
  auto solid = make_shader_module(dev, solid_frag, sizeof(solid_frag));
  if (!solid) return solid.error();
  auto ycbcr = make_shader_module(dev, ycbcr_frag, sizeof(ycbcr_frag));
  if (!ycbcr) return ycbcr.error();
  const VkShaderModule frags[kDrawKinds] = {tex_frag->get(), solid->get(), ycbcr->get()};

  for (size_t f = 0; f < kTargetFormats.size(); ++f) {
    for (DrawKind kind : {DrawKind::texture, DrawKind::solid, DrawKind::ycbcr}) {
      for (Blend blend : {Blend::premultiplied, Blend::none}) {
        VkShaderModule frag = frags[static_cast<int>(kind)];
        auto p = build(kTargetFormats[f], kind, blend, vert->get(), frag);
        if (!p) return p.error();
        pipelines_[f][static_cast<int>(kind)][static_cast<int>(blend)] = std::move(*p);
      }
    }
  }
  save_cache();
  return {};
}

Result<UniquePipeline> Pipelines::build(VkFormat format, DrawKind kind, Blend blend,
                                        VkShaderModule vert, VkShaderModule frag) {
  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vert;
  stages[0].pName = "main";
  stages[1] = stages[0];
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = frag;

  VkPipelineVertexInputStateCreateInfo vertex_input{
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{
      VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;

  VkPipelineColorBlendAttachmentState attachment{};
  attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                              VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  if (blend == Blend::premultiplied) {
    attachment.blendEnable = VK_TRUE;
    attachment.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
    attachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    attachment.colorBlendOp = VK_BLEND_OP_ADD;
    attachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    attachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    attachment.alphaBlendOp = VK_BLEND_OP_ADD;
  }
  VkPipelineColorBlendStateCreateInfo blend_state{
      VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend_state.attachmentCount = 1;
  blend_state.pAttachments = &attachment;

  VkDynamicState dynamic[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic_state{
      VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic_state.dynamicStateCount = 2;
  dynamic_state.pDynamicStates = dynamic;

  VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachmentFormats = &format;

  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, &rendering};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &vertex_input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blend_state;
  info.pDynamicState = &dynamic_state;
  info.layout = layout_.get();
  (void)kind;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (Status s = device_.check(
          vkCreateGraphicsPipelines(device_.get(), cache_.get(), 1, &info, nullptr, &pipeline),
          "vkCreateGraphicsPipelines");
      !s)
    return s.error();
  return UniquePipeline(device_.get(), pipeline);
}

VkPipeline Pipelines::get(VkFormat format, DrawKind kind, Blend blend) const {
  for (size_t f = 0; f < kTargetFormats.size(); ++f) {
    if (kTargetFormats[f] == format)
      return pipelines_[f][static_cast<int>(kind)][static_cast<int>(blend)].get();
  }
  return VK_NULL_HANDLE;
}

}  // namespace baton::vulkan
