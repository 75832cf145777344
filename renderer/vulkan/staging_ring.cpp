#include "renderer/vulkan/staging_ring.hpp"

#include <algorithm>

#include "compositor/log.hpp"

namespace baton::vulkan {
namespace {
constexpr VkDeviceSize kMinimumSize = 8u << 20;
}

bool StagingRing::grow(VkDeviceSize at_least) {
  VkDeviceSize size = std::max({kMinimumSize, current_.size * 2, at_least * 2});
  HostBuffer fresh;
  if (!fresh.create(device_, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT)) return false;
  if (current_.buffer) retired_.emplace_back(device_.next_point(), std::move(current_));
  // Uncached (write-combined) memory makes every upload's memcpy slow: say which we got.
  LOG_INFO("vulkan: staging ring grew to %llu KiB of %s%s memory",
           static_cast<unsigned long long>(size >> 10),
           fresh.flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT ? "cached" : "uncached",
           fresh.flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? " device-local" : " host");
  current_ = std::move(fresh);
  in_flight_.clear();  // the retired buffer's point covers them
  head_ = tail_ = 0;
  return true;
}

StagingRing::Span StagingRing::allocate(VkDeviceSize size) {
  size = (size + 15) & ~VkDeviceSize(15);
  const VkDeviceSize n = current_.size;
  const bool empty = in_flight_.empty() && !pending_any_;
  if (empty) head_ = tail_ = 0;

  VkDeviceSize offset = 0;
  bool fits = false;
  if (n > 0 && (empty || head_ > tail_)) {
    // Wrap early, once the free front can hold as much as is in use now
    // (strict, so head never meets tail): uploads then keep reusing a few
    // recently touched pages instead of walking the whole ring, whose cold
    // pages cost a fault or TLB miss each (3-6 us per 64x64 update, measured
    // on the H100 machine after the ring had grown for first uploads).
    if (!empty && tail_ > size && tail_ >= head_ - tail_) {
      offset = 0;
      fits = true;
    } else if (n - head_ >= size) {
      offset = head_;
      fits = true;
    }
  } else if (n > 0 && head_ < tail_ && tail_ - head_ > size) {
    offset = head_;
    fits = true;
  }
  if (!fits) {
    if (!grow(size)) return {};
    offset = 0;
  }
  head_ = offset + size;
  pending_ += size;
  pending_any_ = true;
  return {current_.buffer.get(), offset, static_cast<unsigned char*>(current_.mapped) + offset};
}

void StagingRing::commit(uint64_t point) {
  if (!pending_any_) return;
  in_flight_.push_back({head_, point});
  pending_ = 0;
  pending_any_ = false;
}

void StagingRing::reclaim(uint64_t completed) {
  while (!in_flight_.empty() && in_flight_.front().point <= completed) {
    tail_ = in_flight_.front().end;
    in_flight_.pop_front();
  }
  std::erase_if(retired_, [&](const auto& r) { return r.first <= completed; });
}

}  // namespace baton::vulkan
