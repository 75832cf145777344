// TextureReads: whether the GPU finished reading a texture, answerable long
// after the texture, its renderer or its device are gone.
#include "renderer/vulkan/texture/texture_reads.hpp"

#include <algorithm>

#include "renderer/vulkan/device/device.hpp"
#include "util/log.hpp"

namespace baton::vulkan {

bool TextureReads::done() {
  std::shared_ptr<Device> device = device_.lock();
  // No device, or a lost one: nothing of its work will ever run again.
  if (!device || device->lost()) return true;
  uint64_t point = point_;
  if (passes_) {
    if (!passes_->ended) return false;
    point = std::max(point, passes_->point);
  }
  return device->completed() >= point;
}

UniqueFd TextureReads::fence() const {
  if (!fence_ || (passes_ && !passes_->ended)) return {};
  auto copy = fence_->duplicate();
  return copy ? std::move(*copy) : UniqueFd();
}

std::optional<uint64_t> TextureReads::point() const {
  if (passes_ && !passes_->ended) return std::nullopt;
  return std::max(point_, passes_ ? passes_->point : 0);
}

void TextureReads::wait() {
  std::shared_ptr<Device> device = device_.lock();
  if (!device || device->lost()) return;
  // Passes still being recorded were submitted by nobody yet: nothing to wait on.
  if (passes_ && !passes_->ended) return;
  if (Status waited = device->wait(std::max(point_, passes_ ? passes_->point : 0), "texture reads");
      !waited && !device->lost())
    LOG_ERROR("vulkan: waiting for a texture's reads: %s", waited.error().describe().c_str());
}

}  // namespace baton::vulkan
