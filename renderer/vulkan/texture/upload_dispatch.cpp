#include "renderer/vulkan/texture/upload_dispatch.hpp"

#include <algorithm>
#include <cstring>

#include "renderer/vulkan/shaders/upload_comp.h"

namespace baton::vulkan {
namespace {

struct BatchConstants {
  uint32_t table;  // word index of the batch's first job
  uint32_t count;
};

}  // namespace

Status TextureUploader::create(VkPipelineCache cache) {
  VkDevice dev = device_.get();
  VkDescriptorSetLayoutBinding bindings[2]{};
  bindings[0].binding = 0;
  bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
  bindings[0].descriptorCount = kImages;
  bindings[0].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  bindings[1].binding = 1;
  bindings[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  bindings[1].descriptorCount = 1;
  bindings[1].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  // Pushed with each batch: no descriptor sets to keep alive across frames.
  set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  set_info.bindingCount = 2;
  set_info.pBindings = bindings;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  if (Status s = device_.check(vkCreateDescriptorSetLayout(dev, &set_info, nullptr, &set_layout),
                               "vkCreateDescriptorSetLayout (upload)");
      !s)
    return s;
  set_layout_ = UniqueDescriptorSetLayout(dev, set_layout);
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(BatchConstants)};
  auto layout = make_pipeline_layout(dev, set_layout, range, "vkCreatePipelineLayout (upload)");
  if (!layout) return layout.error();
  layout_ = std::move(*layout);
  auto pipeline = make_compute_pipeline(dev, cache, upload_comp, sizeof(upload_comp), layout_.get(),
                                        "vkCreateComputePipelines (upload)");
  if (!pipeline) return pipeline.error();
  pipeline_ = std::move(*pipeline);
  return {};
}

bool TextureUploader::can_read(VkDeviceSize size) const {
  return size <= device_.properties().limits.maxStorageBufferRange;
}

void TextureUploader::record(VkCommandBuffer cb, VkBuffer staging, std::span<const UploadJob> jobs,
                             const StagingRing::Span& table) {
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_.get());
  auto* words = reinterpret_cast<uint32_t*>(table.data);
  const auto table_word = static_cast<uint32_t>(table.offset / sizeof(uint32_t));
  size_t first = 0;
  while (first < jobs.size()) {
    // A batch: as many jobs as fit kJobsPerBatch and kImages distinct images.
    images_.clear();
    uint32_t tiles = 0;
    size_t end = first;
    const uint32_t max_tiles = device_.properties().limits.maxComputeWorkGroupCount[0];
    for (; end < jobs.size() && end - first < kJobsPerBatch; ++end) {
      const UploadJob& job = jobs[end];
      const uint32_t tiles_x = (job.width + kTileWidth - 1) / kTileWidth;
      const uint32_t tiles_y = (job.height + kTileHeight - 1) / kTileHeight;
      // A job that takes() this path always fits an empty batch.
      if (tiles + tiles_x * tiles_y > max_tiles) break;
      auto seen = std::find_if(images_.begin(), images_.end(), [&](const VkDescriptorImageInfo& i) {
        return i.imageView == job.view;
      });
      if (seen == images_.end()) {
        if (images_.size() == kImages) break;
        images_.push_back({VK_NULL_HANDLE, job.view, VK_IMAGE_LAYOUT_GENERAL});
        seen = images_.end() - 1;
      }
      const uint32_t row[8] = {static_cast<uint32_t>(job.x),
                               static_cast<uint32_t>(job.y),
                               job.width,
                               job.height,
                               static_cast<uint32_t>(job.offset / sizeof(uint32_t)),
                               static_cast<uint32_t>(seen - images_.begin()),
                               tiles,
                               tiles_x};
      std::memcpy(words + end * 8, row, sizeof(row));
      tiles += tiles_x * tiles_y;
    }
    // Unwritten array elements are never indexed: fill them with the first
    // image so every pushed descriptor is valid.
    while (images_.size() < kImages) images_.push_back(images_.front());
    VkDescriptorBufferInfo buffer{staging, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet writes[2]{};
    writes[0].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[0].dstBinding = 0;
    writes[0].descriptorCount = kImages;
    writes[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    writes[0].pImageInfo = images_.data();
    writes[1].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[1].dstBinding = 1;
    writes[1].descriptorCount = 1;
    writes[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[1].pBufferInfo = &buffer;
    device_.push_descriptor(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_.get(), 0, 2, writes);
    BatchConstants constants{table_word + static_cast<uint32_t>(first) * 8,
                             static_cast<uint32_t>(end - first)};
    vkCmdPushConstants(cb, layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(constants),
                       &constants);
    vkCmdDispatch(cb, tiles, 1, 1);
    first = end;
  }
}

}  // namespace baton::vulkan
