#include "renderer/vulkan/texture/staging_ring.hpp"

#include <algorithm>

#include "util/log.hpp"

namespace baton::vulkan {
namespace {
constexpr VkDeviceSize kMinimumSize = 8u << 20;
}

Status StagingRing::grow(VkDeviceSize at_least) {
  VkDeviceSize size = std::max({kMinimumSize, current_.size * 2, at_least * 2});
  HostBuffer fresh;
  // Copies read it, and so does the upload dispatch (as a storage buffer).
  const VkBufferUsageFlags usage =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  bool made = false;
  if (placement_ == HostBuffer::Placement::device_local) {
    Status local = fresh.create(device_, size, usage, HostBuffer::Placement::device_local);
    made = local.ok();
    if (!made)
      LOG_INFO("vulkan: no device-local staging of %llu KiB (%s); staging in host memory",
               static_cast<unsigned long long>(size >> 10), local.error().describe().c_str());
  }
  if (!made) {
    if (Status s = fresh.create(device_, size, usage); !s) return s;
  }
  if (current_.buffer) retired_.emplace_back(device_.next_point(), std::move(current_));
  LOG_DEBUG("vulkan: staging ring grew to %llu KiB", static_cast<unsigned long long>(size >> 10));
  current_ = std::move(fresh);
  in_flight_.clear();  // the retired buffer's point covers them
  head_ = tail_ = pending_start_ = 0;
  return {};
}

Result<StagingRing::Span> StagingRing::allocate(VkDeviceSize size) {
  size = (size + 15) & ~VkDeviceSize(15);
  // A whole new window's first upload gets a buffer of its own, freed after
  // the submission that reads it: growing the ring for such bursts would
  // leave every later small update walking hundreds of MiB of cold pages
  // (3-6 us of faults per 64x64 update, measured on the H100 machine).
  if (size > kMinimumSize / 4) {
    HostBuffer own;
    if (Status s = own.create(device_, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT); !s)
      return s.error();
    Span span{own.buffer.get(), 0, static_cast<unsigned char*>(own.mapped)};
    retired_.emplace_back(device_.next_point(), std::move(own));
    pending_own_ += size;
    return span;
  }
  const VkDeviceSize n = current_.size;
  const bool empty = in_flight_.empty() && !pending_any_;
  if (empty) head_ = tail_ = 0;

  VkDeviceSize offset = 0;
  bool fits = false;
  if (n > 0 && (empty || head_ > tail_)) {
    // Wrap early once the free front holds twice the most ever in use
    // (strict, so head never meets tail): a steady loop then keeps reusing a
    // few warm pages instead of walking the whole ring (measured on the H100
    // machine: a 64x64 update cost 3 us walking 8 MiB, 1.4 us on warm
    // pages). Twice what is in use now is not enough: frames of uneven
    // uploads then fill the front before the stretches behind it are
    // reclaimed, and the ring grows with most of it free.
    peak_in_use_ = std::max(peak_in_use_, in_use() + size);
    const bool wrap_early = !empty && tail_ >= 2 * peak_in_use_ + size;
    if (!wrap_early && n - head_ >= size) {
      offset = head_;
      fits = true;
    } else if (wrap_early || tail_ > size) {  // wrap; strict so head never meets tail
      offset = 0;
      fits = true;
    }
  } else if (n > 0 && head_ < tail_ && tail_ - head_ > size) {
    offset = head_;
    fits = true;
  }
  if (!fits) {
    if (Status s = grow(size); !s) return s.error();
    offset = 0;
  }
  if (!pending_any_) pending_start_ = offset;
  head_ = offset + size;
  pending_ += size;
  pending_any_ = true;
  return Span{current_.buffer.get(), offset, static_cast<unsigned char*>(current_.mapped) + offset};
}

VkDeviceSize StagingRing::in_use() const {
  const auto span = [&](VkDeviceSize start, VkDeviceSize end) {
    return end >= start ? end - start : current_.size - start + end;
  };
  VkDeviceSize bytes = pending_any_ ? span(pending_start_, head_) : 0;
  for (const Stretch& s : in_flight_) bytes += span(s.start, s.end);
  return bytes;
}

void StagingRing::commit(uint64_t point) {
  pending_own_ = 0;
  if (!pending_any_) return;
  in_flight_.push_back({pending_start_, head_, point});
  pending_ = 0;
  pending_any_ = false;
}

void StagingRing::reclaim(uint64_t completed) {
  while (!in_flight_.empty() && in_flight_.front().point <= completed) in_flight_.pop_front();
  // The oldest byte still in use is where the oldest stretch left starts,
  // not where the one reclaimed ended: after a wrap the next stretch starts
  // at the front, and the end of the ring behind it is free again.
  if (!in_flight_.empty())
    tail_ = in_flight_.front().start;
  else
    tail_ = pending_any_ ? pending_start_ : head_;
  std::erase_if(retired_, [&](const auto& r) { return r.first <= completed; });
}

}  // namespace baton::vulkan
