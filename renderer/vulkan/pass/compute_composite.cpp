#include "renderer/vulkan/pass/compute_composite.hpp"

#include <pixman.h>

#include <algorithm>
#include <cstring>

#include "renderer/vulkan/shaders/composite_comp.h"

namespace baton::vulkan {
namespace {

constexpr uint32_t kWorkgroup = 16;  // composite.comp's local size
constexpr size_t kMaxRegions = 16;   // beyond this, one dispatch over the extents
constexpr uint32_t kBindings = 6;    // target, textures, ops, rects, lists, conversions

struct RegionConstants {
  int32_t origin[2];
  int32_t size[2];
  uint32_t first;
  uint32_t count;
  uint32_t direct;  // the region's draws are all the ops, in order: no list to read
};

static_assert(sizeof(ClipRect) == sizeof(pixman_box32_t));

bool same_image(const VkDescriptorImageInfo& a, const VkDescriptorImageInfo& b) {
  return a.imageView == b.imageView && a.sampler == b.sampler && a.imageLayout == b.imageLayout;
}

bool intersects(const ClipRect& a, const ClipRect& b) {
  return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}

VkDeviceSize align_up(VkDeviceSize value, VkDeviceSize alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// An empty vector's data() may be null, which memcpy must not get even for
// zero bytes.
template <typename T>
void copy_into(unsigned char* destination, const std::vector<T>& source) {
  if (!source.empty()) std::memcpy(destination, source.data(), source.size() * sizeof(T));
}

}  // namespace

void CompositeList::clear() {
  ops.clear();
  rects.clear();
  images.clear();
  conversions.clear();
}

bool CompositeList::has_room_for(std::span<const VkDescriptorImageInfo> wanted) const {
  size_t fresh = 0;
  for (const VkDescriptorImageInfo& w : wanted)
    if (std::none_of(images.begin(), images.end(),
                     [&](const VkDescriptorImageInfo& seen) { return same_image(seen, w); }))
      ++fresh;
  return images.size() + fresh <= kMaxTextures;
}

int32_t CompositeList::add_conversion(const YcbcrConversion& conversion) {
  conversions.push_back(conversion);
  return static_cast<int32_t>(conversions.size() - 1);
}

int CompositeList::image_index(const VkDescriptorImageInfo& image) {
  for (size_t i = 0; i < images.size(); ++i) {
    if (same_image(images[i], image)) return static_cast<int>(i);
  }
  if (images.size() >= kMaxTextures) return -1;
  images.push_back(image);
  return static_cast<int>(images.size() - 1);
}

Status ComputeCompositor::create(VkPipelineCache cache) {
  VkDevice dev = device_.get();
  VkDescriptorSetLayoutBinding bindings[kBindings]{};
  for (uint32_t i = 0; i < kBindings; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorCount = 1;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  bindings[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
  bindings[1].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  bindings[1].descriptorCount = CompositeList::kMaxTextures;
  // A pass samples a few textures: the rest of the array stays unwritten.
  VkDescriptorBindingFlags flags[kBindings] = {
      0, VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT, 0, 0, 0, 0};
  VkDescriptorSetLayoutBindingFlagsCreateInfo flag_info{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
  flag_info.bindingCount = kBindings;
  flag_info.pBindingFlags = flags;
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           &flag_info};
  set_info.bindingCount = kBindings;
  set_info.pBindings = bindings;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  if (Status s = device_.check(vkCreateDescriptorSetLayout(dev, &set_info, nullptr, &set_layout),
                               "vkCreateDescriptorSetLayout (composite)");
      !s)
    return s;
  set_layout_ = UniqueDescriptorSetLayout(dev, set_layout);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(RegionConstants)};
  auto layout = make_pipeline_layout(dev, set_layout, range, "vkCreatePipelineLayout (composite)");
  if (!layout) return layout.error();
  layout_ = std::move(*layout);
  auto pipeline = make_compute_pipeline(dev, cache, composite_comp, sizeof(composite_comp),
                                        layout_.get(), "vkCreateComputePipelines (composite)");
  if (!pipeline) return pipeline.error();
  pipeline_ = std::move(*pipeline);
  return {};
}

Result<ComputeCompositor::Frame*> ComputeCompositor::acquire(VkDeviceSize bytes) {
  const uint64_t done = device_.completed();
  Frame* frame = nullptr;
  for (auto& f : frames_)
    if (!f->in_use && f->point <= done) {
      frame = f.get();
      break;
    }
  VkDevice dev = device_.get();
  if (frame == nullptr) {
    auto fresh = std::make_unique<Frame>();
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, CompositeList::kMaxTextures},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4},
    };
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = 3;
    pool_info.pPoolSizes = sizes;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    if (Status s = device_.check(vkCreateDescriptorPool(dev, &pool_info, nullptr, &pool),
                                 "vkCreateDescriptorPool (composite)");
        !s)
      return s.error();
    fresh->pool = UniqueDescriptorPool(dev, pool);
    VkDescriptorSetLayout set_layout = set_layout_.get();
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &set_layout;
    if (Status s = device_.check(vkAllocateDescriptorSets(dev, &alloc, &fresh->set),
                                 "vkAllocateDescriptorSets (composite)");
        !s)
      return s.error();
    frames_.push_back(std::move(fresh));
    frame = frames_.back().get();
  }
  if (frame->buffer.size < bytes) {
    // Grown to the next power of two: a busier desktop settles after a few frames.
    VkDeviceSize size = 4096;
    while (size < bytes) size *= 2;
    HostBuffer grown;
    // Every invocation reads these lists: over PCIe, small dispatches would
    // wait on each read.
    if (Status s = grown.create(device_, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                HostBuffer::Placement::device_local);
        !s)
      return s.error();
    frame->buffer = std::move(grown);
  }
  frame->in_use = true;
  return frame;
}

// Splits what the ops cover into a few rectangles, each with the ops that
// touch it, so no invocation walks draws that cannot reach its pixel.
void ComputeCompositor::plan_regions(const CompositeList& list) {
  regions_.clear();
  region_ops_.clear();
  // A full redraw starts with a background over everything: when one rectangle
  // spans all the others, it is the only region and every op is in it, and
  // building the exact union (costly for many windows) would find the same.
  ClipRect extents = list.rects.front();
  for (const ClipRect& r : list.rects) {
    extents.x1 = std::min(extents.x1, r.x1), extents.y1 = std::min(extents.y1, r.y1);
    extents.x2 = std::max(extents.x2, r.x2), extents.y2 = std::max(extents.y2, r.y2);
  }
  auto spans_all = [&](const ClipRect& r) {
    return r.x1 == extents.x1 && r.y1 == extents.y1 && r.x2 == extents.x2 && r.y2 == extents.y2;
  };
  if (std::any_of(list.rects.begin(), list.rects.end(), spans_all)) {
    regions_.push_back({extents, 0, static_cast<uint32_t>(list.ops.size()), true});
    return;
  }
  pixman_region32_t covered;
  pixman_region32_init_rects(&covered, reinterpret_cast<const pixman_box32_t*>(list.rects.data()),
                             static_cast<int>(list.rects.size()));
  int count = 0;
  const pixman_box32_t* boxes = pixman_region32_rectangles(&covered, &count);
  if (static_cast<size_t>(count) > kMaxRegions) {
    const pixman_box32_t* e = pixman_region32_extents(&covered);
    regions_.push_back({{e->x1, e->y1, e->x2, e->y2}, 0, 0, false});
  } else {
    for (int i = 0; i < count; ++i)
      regions_.push_back({{boxes[i].x1, boxes[i].y1, boxes[i].x2, boxes[i].y2}, 0, 0, false});
  }
  pixman_region32_fini(&covered);
  for (Region& region : regions_) {
    region.first = static_cast<uint32_t>(region_ops_.size());
    for (size_t op = 0; op < list.ops.size(); ++op) {
      const CompositeOp& o = list.ops[op];
      for (int32_t r = o.rects[0]; r < o.rects[0] + o.rects[1]; ++r) {
        if (intersects(list.rects[static_cast<size_t>(r)], region.box)) {
          region_ops_.push_back(static_cast<uint32_t>(op));
          break;
        }
      }
    }
    region.count = static_cast<uint32_t>(region_ops_.size()) - region.first;
  }
}

Status ComputeCompositor::record(VkCommandBuffer cb, const Slot& target, const CompositeList& list,
                                 bool after_batch) {
  if (list.empty()) return {};
  plan_regions(list);
  const VkDeviceSize align =
      std::max<VkDeviceSize>(device_.properties().limits.minStorageBufferOffsetAlignment, 16);
  const VkDeviceSize ops_bytes = list.ops.size() * sizeof(CompositeOp);
  const VkDeviceSize rects_offset = align_up(ops_bytes, align);
  // A descriptor's range may not be empty: a pass without clip rectangles
  // or region lists still binds one element of each.
  const VkDeviceSize rects_bytes = std::max<size_t>(list.rects.size(), 1) * sizeof(ClipRect);
  const VkDeviceSize lists_offset = align_up(rects_offset + rects_bytes, align);
  const VkDeviceSize lists_bytes = std::max<size_t>(region_ops_.size(), 1) * sizeof(uint32_t);
  const VkDeviceSize conversions_offset = align_up(lists_offset + lists_bytes, align);
  const VkDeviceSize conversions_bytes =
      std::max<size_t>(list.conversions.size(), 1) * sizeof(YcbcrConversion);
  auto acquired = acquire(conversions_offset + conversions_bytes);
  if (!acquired) return acquired.error();
  Frame* frame = *acquired;
  auto* base = static_cast<unsigned char*>(frame->buffer.mapped);
  copy_into(base, list.ops);
  copy_into(base + rects_offset, list.rects);
  copy_into(base + lists_offset, region_ops_);
  copy_into(base + conversions_offset, list.conversions);

  VkDescriptorImageInfo storage{VK_NULL_HANDLE, target.view, VK_IMAGE_LAYOUT_GENERAL};
  VkDescriptorBufferInfo buffers[4] = {
      {frame->buffer.buffer.get(), 0, ops_bytes},
      {frame->buffer.buffer.get(), rects_offset, rects_bytes},
      {frame->buffer.buffer.get(), lists_offset, lists_bytes},
      {frame->buffer.buffer.get(), conversions_offset, conversions_bytes},
  };
  VkWriteDescriptorSet writes[6]{};
  uint32_t count = 0;
  auto write = [&](uint32_t binding, VkDescriptorType type, uint32_t n) -> VkWriteDescriptorSet& {
    VkWriteDescriptorSet& w = writes[count++];
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstSet = frame->set;
    w.dstBinding = binding;
    w.descriptorCount = n;
    w.descriptorType = type;
    return w;
  };
  write(0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1).pImageInfo = &storage;
  if (!list.images.empty())
    write(1, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, static_cast<uint32_t>(list.images.size()))
        .pImageInfo = list.images.data();
  for (uint32_t i = 0; i < 4; ++i)
    write(2 + i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1).pBufferInfo = &buffers[i];
  vkUpdateDescriptorSets(device_.get(), count, writes, 0, nullptr);

  if (after_batch) {
    // The earlier batch of this pass may have written these pixels.
    VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    barrier.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    barrier.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    barrier.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    barrier.dstAccessMask =
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &barrier;
    vkCmdPipelineBarrier2(cb, &dep);
  }

  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_.get());
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_.get(), 0, 1, &frame->set, 0,
                          nullptr);
  for (const Region& region : regions_) {
    if (region.count == 0) continue;
    const ClipRect& b = region.box;
    RegionConstants constants{{b.x1, b.y1},
                              {b.x2 - b.x1, b.y2 - b.y1},
                              region.first,
                              region.count,
                              region.direct ? 1u : 0u};
    vkCmdPushConstants(cb, layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(constants),
                       &constants);
    vkCmdDispatch(cb, (uint32_t(constants.size[0]) + kWorkgroup - 1) / kWorkgroup,
                  (uint32_t(constants.size[1]) + kWorkgroup - 1) / kWorkgroup, 1);
  }
  return {};
}

void ComputeCompositor::submitted(uint64_t point) {
  for (auto& f : frames_) {
    if (!f->in_use) continue;
    f->in_use = false;
    f->point = point;
  }
}

}  // namespace baton::vulkan
