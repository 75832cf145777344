// Recording the frame's texture uploads: small rectangles of textures with a
// storage view go through one compute dispatch (upload_dispatch), the rest
// (big first uploads, other formats, the raster path) as transfer commands.
// Also the queue-family acquires of imported dma-bufs.
#include <algorithm>
#include <span>

#include "renderer/vulkan/renderer.hpp"
#include "util/log.hpp"

namespace baton::vulkan {
namespace {

VkImageMemoryBarrier2 image_barrier(VkImage image, VkImageLayout from, VkImageLayout to) {
  VkImageMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
  barrier.oldLayout = from;
  barrier.newLayout = to;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  return barrier;
}

bool overlaps(const VkBufferImageCopy& a, const VkBufferImageCopy& b) {
  return a.imageOffset.x < b.imageOffset.x + int32_t(b.imageExtent.width) &&
         b.imageOffset.x < a.imageOffset.x + int32_t(a.imageExtent.width) &&
         a.imageOffset.y < b.imageOffset.y + int32_t(b.imageExtent.height) &&
         b.imageOffset.y < a.imageOffset.y + int32_t(a.imageExtent.height);
}

// Uploads of a later round write what an earlier one wrote.
VkMemoryBarrier2 between_rounds() {
  VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT;
  barrier.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;
  barrier.dstStageMask = barrier.srcStageMask;
  barrier.dstAccessMask = barrier.srcAccessMask;
  return barrier;
}

// What reads a texture once its upload landed.
constexpr VkPipelineStageFlags2 kReadStages = kSampleStages | VK_PIPELINE_STAGE_2_COPY_BIT;
constexpr VkAccessFlags2 kReadAccess =
    VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT;

}  // namespace

void Renderer::queue_copy(VkImage image, VkImageView storage_view, VkImageLayout old_layout,
                          VkBuffer staging, const VkBufferImageCopy& region) {
  size_t index = 0;
  while (index < pending_images_.size() && pending_images_[index].image != image) ++index;
  if (index == pending_images_.size())
    pending_images_.push_back({image, old_layout, storage_view, storage_view != VK_NULL_HANDLE});
  // A texture updated twice before a frame (a client committing faster than
  // the output repaints): where the damage overlaps, the later one must win.
  uint32_t round = 0;
  for (const PendingCopy& c : pending_copies_)
    if (c.image == index && overlaps(c.region, region)) round = std::max(round, c.round + 1);
  pending_copies_.push_back({index, round, staging, region});
}

void Renderer::queue_acquire(VkImage image, bool held) {
  if (held) {
    VkImageMemoryBarrier2 handback =
        image_barrier(image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
    handback.srcStageMask = kReadStages;  // after every earlier read
    handback.dstStageMask = VK_PIPELINE_STAGE_2_NONE;
    handback.srcQueueFamilyIndex = device_->queue_family();
    handback.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    handback_barriers_.push_back(handback);
  }
  VkImageMemoryBarrier2 barrier =
      image_barrier(image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  // GENERAL, not UNDEFINED: the producer's pixels must survive the transition.
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_NONE;
  barrier.dstStageMask = kReadStages;
  barrier.dstAccessMask = kReadAccess;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  barrier.dstQueueFamilyIndex = device_->queue_family();
  acquire_barriers_.push_back(barrier);
}

Result<VkCommandBuffer> Renderer::record_uploads(Timer* timer) {
  if (pending_copies_.empty() && acquire_barriers_.empty()) return VkCommandBuffer{VK_NULL_HANDLE};
  auto begun = begin_commands();
  if (!begun) return begun.error();
  VkCommandBuffer cb = *begun;
  if (timer != nullptr) {
    // The frame's GPU time includes its uploads, as on the compute path where
    // they are in the pass's own command buffer.
    vkCmdResetQueryPool(cb, timer->pool.get(), 2, 1);
    vkCmdWriteTimestamp2(cb, VK_PIPELINE_STAGE_2_NONE, timer->pool.get(), 2);
    timer->uploads_stamped = true;
  }
  record_uploads_into(cb);
  return cb;
}

Status Renderer::flush_uploads() {
  if (pending_copies_.empty() && acquire_barriers_.empty()) return {};
  auto cb = begin_commands();
  if (!cb) return cb.error();
  record_uploads_into(*cb);
  auto point = submit(*cb);
  if (!point) return point.error();
  return {};
}

void Renderer::plan_upload_dispatch() {
  upload_jobs_.clear();
  if (!uploads_by_dispatch_) {
    for (PendingImage& image : pending_images_) image.by_dispatch = false;
    return;
  }
  // A job's texels must be packed in the one buffer the shader reads.
  VkBuffer staging = VK_NULL_HANDLE;
  for (const PendingCopy& c : pending_copies_) {
    PendingImage& image = pending_images_[c.image];
    if (!image.by_dispatch) continue;
    const bool fits =
        TextureUploader::takes(c.region.imageExtent.width, c.region.imageExtent.height) &&
        c.region.bufferRowLength == 0 && (staging == VK_NULL_HANDLE || c.staging == staging);
    if (fits && staging == VK_NULL_HANDLE) staging = c.staging;
    // An image's uploads stay in order: all by dispatch, or all by copy.
    if (!fits) image.by_dispatch = false;
  }
  size_t count = 0;
  for (const PendingCopy& c : pending_copies_) count += pending_images_[c.image].by_dispatch;
  if (count == 0) return;
  auto table = ring_.allocate(TextureUploader::table_bytes(count));
  if (!table)
    LOG_ERROR("vulkan: no staging for the upload table (%s); copying",
              table.error().describe().c_str());
  upload_table_ = table ? *table : StagingRing::Span{};
  if (upload_table_.buffer != staging || !uploader_.can_read(ring_.capacity())) {
    // The ring moved to a bigger buffer since these were staged: copy them.
    for (PendingImage& image : pending_images_) image.by_dispatch = false;
    return;
  }
  for (size_t round = 0; round < upload_round_ends_.size(); ++round) {
    for (const PendingCopy& c : pending_copies_) {
      const PendingImage& image = pending_images_[c.image];
      if (!image.by_dispatch || c.round != round) continue;
      upload_jobs_.push_back({image.storage_view, c.region.bufferOffset, c.region.imageOffset.x,
                              c.region.imageOffset.y, c.region.imageExtent.width,
                              c.region.imageExtent.height});
    }
    upload_round_ends_[round] = upload_jobs_.size();
  }
}

void Renderer::record_uploads_into(VkCommandBuffer cb) {
  if (!handback_barriers_.empty()) {
    // Its own batch: the release must come before the acquire of the same image.
    VkDependencyInfo handback{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    handback.imageMemoryBarrierCount = static_cast<uint32_t>(handback_barriers_.size());
    handback.pImageMemoryBarriers = handback_barriers_.data();
    vkCmdPipelineBarrier2(cb, &handback);
    handback_barriers_.clear();
  }
  if (!acquire_barriers_.empty()) {
    VkDependencyInfo acquire{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    acquire.imageMemoryBarrierCount = static_cast<uint32_t>(acquire_barriers_.size());
    acquire.pImageMemoryBarriers = acquire_barriers_.data();
    vkCmdPipelineBarrier2(cb, &acquire);
    acquire_barriers_.clear();
  }
  if (pending_copies_.empty()) return;
  uint32_t rounds = 0;
  for (const PendingCopy& c : pending_copies_) rounds = std::max(rounds, c.round + 1);
  upload_round_ends_.assign(rounds, 0);
  plan_upload_dispatch();

  // Before: earlier reads of the old contents finish (WAR), and each image
  // moves to the layout its upload writes in.
  upload_barriers_.clear();
  for (const PendingImage& image : pending_images_) {
    const VkImageLayout to =
        image.by_dispatch ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    if (image.old_layout == to) continue;  // the memory barrier below covers it
    VkImageMemoryBarrier2 barrier = image_barrier(image.image, image.old_layout, to);
    barrier.srcStageMask = kReadStages;
    barrier.dstStageMask =
        image.by_dispatch ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT : VK_PIPELINE_STAGE_2_COPY_BIT;
    barrier.dstAccessMask =
        image.by_dispatch ? VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT : VK_ACCESS_2_TRANSFER_WRITE_BIT;
    upload_barriers_.push_back(barrier);
  }
  VkMemoryBarrier2 before{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  before.srcStageMask = kReadStages;
  before.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT;
  before.dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;
  VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.memoryBarrierCount = 1;
  dep.pMemoryBarriers = &before;
  dep.imageMemoryBarrierCount = static_cast<uint32_t>(upload_barriers_.size());
  dep.pImageMemoryBarriers = upload_barriers_.data();
  vkCmdPipelineBarrier2(cb, &dep);

  size_t first_job = 0;
  for (uint32_t round = 0; round < rounds; ++round) {
    if (round > 0) {
      const VkMemoryBarrier2 barrier = between_rounds();
      VkDependencyInfo ordered{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
      ordered.memoryBarrierCount = 1;
      ordered.pMemoryBarriers = &barrier;
      vkCmdPipelineBarrier2(cb, &ordered);
    }
    for (const PendingCopy& c : pending_copies_) {
      const PendingImage& image = pending_images_[c.image];
      if (image.by_dispatch || c.round != round) continue;
      vkCmdCopyBufferToImage(cb, c.staging, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                             &c.region);
      ++upload_counts_.copied;
    }
    const size_t end_job = upload_jobs_.empty() ? 0 : upload_round_ends_[round];
    if (end_job > first_job) {
      // The round's rows of the job table, which the jobs before it fill.
      const VkDeviceSize skip = TextureUploader::table_bytes(first_job);
      const StagingRing::Span table{upload_table_.buffer, upload_table_.offset + skip,
                                    upload_table_.data + skip};
      uploader_.record(cb, upload_table_.buffer,
                       std::span(upload_jobs_).subspan(first_job, end_job - first_job), table);
      upload_counts_.dispatched += end_job - first_job;
      first_job = end_job;
    }
  }

  // After: the images move to the layout draws sample them in, and the
  // writes are visible to those draws.
  upload_barriers_.clear();
  for (const PendingImage& image : pending_images_) {
    if (image.by_dispatch) continue;
    VkImageMemoryBarrier2 barrier = image_barrier(image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                                  image.storage_view != VK_NULL_HANDLE
                                                      ? VK_IMAGE_LAYOUT_GENERAL
                                                      : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    barrier.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    barrier.dstStageMask = kReadStages;
    barrier.dstAccessMask = kReadAccess;
    upload_barriers_.push_back(barrier);
  }
  VkMemoryBarrier2 after{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  after.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  after.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
  after.dstStageMask = kReadStages;
  after.dstAccessMask = kReadAccess;
  dep.memoryBarrierCount = upload_jobs_.empty() ? 0 : 1;
  dep.pMemoryBarriers = &after;
  dep.imageMemoryBarrierCount = static_cast<uint32_t>(upload_barriers_.size());
  dep.pImageMemoryBarriers = upload_barriers_.data();
  if (dep.memoryBarrierCount + dep.imageMemoryBarrierCount > 0) vkCmdPipelineBarrier2(cb, &dep);
  pending_copies_.clear();
  pending_images_.clear();
}

}  // namespace baton::vulkan
