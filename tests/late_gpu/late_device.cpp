#include "tests/late_gpu/late_device.hpp"

#include <cstdio>

#include "tests/clients/drm_node.hpp"

namespace baton::late_gpu {
namespace {

bool exportable_as_sync_file(const VkSemaphoreCreateInfo* info) {
  for (auto* s = static_cast<const VkBaseInStructure*>(info->pNext); s != nullptr; s = s->pNext) {
    if (s->sType != VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO) continue;
    const auto* exp = reinterpret_cast<const VkExportSemaphoreCreateInfo*>(s);
    if (exp->handleTypes & VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT) return true;
  }
  return false;
}

const VkTimelineSemaphoreSubmitInfo* timeline_values(const VkSubmitInfo& submit) {
  for (auto* s = static_cast<const VkBaseInStructure*>(submit.pNext); s != nullptr; s = s->pNext)
    if (s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
      return reinterpret_cast<const VkTimelineSemaphoreSubmitInfo*>(s);
  return nullptr;
}

}  // namespace

Result<std::unique_ptr<LateDevice>> LateDevice::create(const DriverDevice& driver,
                                                       std::chrono::milliseconds delay,
                                                       const ImageCalls* tile_flags) {
  auto vgem = testing::open_drm_node("vgem", testing::NodeKind::primary);
  if (!vgem) return failure("the late GPU's fences", "no vgem card: " + vgem.error().describe());
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore timeline = VK_NULL_HANDLE;
  if (VkResult r = driver.create_semaphore(driver.device, &info, nullptr, &timeline);
      r != VK_SUCCESS)
    return failure("the late GPU's timeline",
                   "vkCreateSemaphore failed (" + std::to_string(r) +
                       "); the application must enable timeline semaphores");
  std::unique_ptr<LateDevice> self(new LateDevice(driver, delay, timeline));
  self->signaller_ = std::make_unique<FenceSignaller>(
      driver.device, timeline, driver.wait_semaphores, driver.semaphore_value, std::move(*vgem));
  if (tile_flags != nullptr) self->tile_flags_ = std::make_unique<TileFlagsImages>(*tile_flags);
  std::fprintf(stderr, "late-gpu: a device with %lld ms per submission; its fences are vgem's%s\n",
               static_cast<long long>(delay.count()),
               tile_flags != nullptr ? "; it lists the two-plane tile-flags modifiers" : "");
  return self;
}

LateDevice::~LateDevice() {
  uint64_t fence_waits = 0, pending_waits = 0;
  for (auto& [queue, q] : queues_) {
    q->drain();
    fence_waits += q->fence_waits();
    pending_waits += q->pending_fence_waits();
  }
  queues_.clear();
  driver_.device_wait_idle(driver_.device);
  std::fprintf(stderr,
               "late-gpu: %llu batches; %llu sync_files exported, %llu of them pending when "
               "exported; %llu imported fences waited for on the queue thread, %llu of them "
               "pending\n",
               static_cast<unsigned long long>(batches_),
               static_cast<unsigned long long>(signaller_->exported()),
               static_cast<unsigned long long>(signaller_->exported_pending()),
               static_cast<unsigned long long>(fence_waits),
               static_cast<unsigned long long>(pending_waits));
  signaller_.reset();
  driver_.destroy_semaphore(driver_.device, timeline_, nullptr);
}

VkResult LateDevice::create_semaphore(const VkSemaphoreCreateInfo* info,
                                      const VkAllocationCallbacks* alloc, VkSemaphore* semaphore) {
  const VkResult r = driver_.create_semaphore(driver_.device, info, alloc, semaphore);
  if (r == VK_SUCCESS && exportable_as_sync_file(info)) {
    std::lock_guard lock(mutex_);
    exportable_.insert(*semaphore);
  }
  return r;
}

void LateDevice::destroy_semaphore(VkSemaphore semaphore, const VkAllocationCallbacks* alloc) {
  {
    std::lock_guard lock(mutex_);
    exportable_.erase(semaphore);
    signalled_at_.erase(semaphore);
    imported_.erase(semaphore);
  }
  driver_.destroy_semaphore(driver_.device, semaphore, alloc);
}

GpuQueue& LateDevice::queue_of(VkQueue queue) {
  auto& q = queues_[queue];
  if (!q)
    q = std::make_unique<GpuQueue>(
        queue, driver_.queue_submit, delay_,
        [this] {
          if (tile_flags_) tile_flags_->decode_all();
        },
        [this](uint64_t point) { signaller_->submitted(point); });
  return *q;
}

Batch LateDevice::translate(const VkSubmitInfo& submit) {
  Batch batch;
  const VkTimelineSemaphoreSubmitInfo* values = timeline_values(submit);
  batch.command_buffers.assign(submit.pCommandBuffers,
                               submit.pCommandBuffers + submit.commandBufferCount);
  for (uint32_t i = 0; i < submit.waitSemaphoreCount; ++i) {
    VkSemaphore s = submit.pWaitSemaphores[i];
    if (auto it = imported_.find(s); it != imported_.end()) {
      // The wait consumes the temporary payload: the semaphore is back to
      // its own (never signalled, since the driver never saw it).
      batch.fence_waits.push_back(std::move(it->second));
      imported_.erase(it);
      continue;
    }
    // Signalled by an earlier batch of the layer's in-order queue (the only
    // queue baton uses); nothing to wait for on the driver.
    if (exportable_.contains(s)) continue;
    batch.waits.push_back(s);
    batch.wait_values.push_back(values != nullptr && i < values->waitSemaphoreValueCount
                                    ? values->pWaitSemaphoreValues[i]
                                    : 0);
    batch.wait_stages.push_back(submit.pWaitDstStageMask[i]);
  }
  batch.point = ++next_point_;
  for (uint32_t i = 0; i < submit.signalSemaphoreCount; ++i) {
    VkSemaphore s = submit.pSignalSemaphores[i];
    if (exportable_.contains(s)) {
      signalled_at_[s] = batch.point;
      continue;
    }
    batch.signals.push_back(s);
    batch.signal_values.push_back(values != nullptr && i < values->signalSemaphoreValueCount
                                      ? values->pSignalSemaphoreValues[i]
                                      : 0);
  }
  batch.signals.push_back(timeline_);
  batch.signal_values.push_back(batch.point);
  return batch;
}

VkResult LateDevice::submit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits,
                            VkFence fence) {
  std::lock_guard lock(mutex_);
  GpuQueue& q = queue_of(queue);
  if (VkResult status = q.status(); status != VK_SUCCESS) return status;
  std::vector<Batch> batches;
  for (uint32_t i = 0; i < count; ++i) batches.push_back(translate(submits[i]));
  if (batches.empty()) batches.push_back(translate(VkSubmitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO}));
  batches.back().fence = fence;
  batches_ += batches.size();
  q.push(std::move(batches));
  return VK_SUCCESS;
}

VkResult LateDevice::export_sync_file(const VkSemaphoreGetFdInfoKHR* info, int* fd) {
  uint64_t point = 0;
  {
    std::lock_guard lock(mutex_);
    if (!exportable_.contains(info->semaphore)) {
      std::fprintf(stderr, "late-gpu: a SYNC_FD export of a semaphore not made exportable\n");
      return VK_ERROR_INVALID_EXTERNAL_HANDLE;
    }
    auto it = signalled_at_.find(info->semaphore);
    if (it != signalled_at_.end()) {
      point = it->second;
      signalled_at_.erase(it);  // a SYNC_FD export resets the semaphore
    }
  }
  if (point == 0) {
    *fd = -1;  // no signal pending: the spec's already-signalled sync_file
    return VK_SUCCESS;
  }
  auto fence = signaller_->fence_for(point);
  if (!fence) {
    std::fprintf(stderr, "late-gpu: %s\n", fence.error().describe().c_str());
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  *fd = fence->release();
  return VK_SUCCESS;
}

VkResult LateDevice::import_sync_file(const VkImportSemaphoreFdInfoKHR* info) {
  std::lock_guard lock(mutex_);
  imported_[info->semaphore] = UniqueFd(info->fd);  // the layer owns the fd now
  return VK_SUCCESS;
}

VkResult LateDevice::queue_wait_idle(VkQueue queue) {
  GpuQueue* q = nullptr;
  {
    std::lock_guard lock(mutex_);
    q = &queue_of(queue);
  }
  q->drain();
  VkResult r = VK_SUCCESS;
  q->with_driver_queue([&](VkQueue driver_queue) { r = driver_.queue_wait_idle(driver_queue); });
  return r;
}

VkResult LateDevice::device_wait_idle() {
  std::vector<GpuQueue*> queues;
  {
    std::lock_guard lock(mutex_);
    for (auto& [queue, q] : queues_) queues.push_back(q.get());
  }
  for (GpuQueue* q : queues) q->drain();
  return driver_.device_wait_idle(driver_.device);
}

}  // namespace baton::late_gpu
