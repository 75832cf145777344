// A ring of host-visible memory that texture uploads are copied through.
//
// Space is handed out at the head; each stretch is given back once the GPU
// passed the timeline point of the submission that read it. The ring only
// grows (replacing its buffer) when a frame needs more than it ever had, so a
// steady frame loop allocates nothing. Uploads over a quarter of its first
// size get a buffer of their own, so first uploads of big windows leave the
// ring small and its pages warm.
#pragma once

#include <deque>
#include <vector>

#include "renderer/vulkan/device/host_buffer.hpp"

namespace baton::vulkan {

class StagingRing {
 public:
  explicit StagingRing(Device& device) : device_(device) {}

  struct Span {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    unsigned char* data = nullptr;
  };
  /// Where the ring's buffer lives from its next growth on. Device-local
  /// (host-visible, write-combined) memory suits GPUs on a bus: the GPU reads
  /// it locally, and the CPU, which never reads staging back, writes it at
  /// least as fast as cached host memory (measured on the H100 machine:
  /// 16 moving windows' uploads 46.5 -> 27.4 us of GPU, 26 -> 18 us of CPU).
  void set_placement(HostBuffer::Placement placement) { placement_ = placement; }
  /// `size` bytes, aligned to 16; read by the next submission.
  [[nodiscard]] Result<Span> allocate(VkDeviceSize size);
  /// Everything handed out since the last call is read by the submission
  /// that signals `point`.
  void commit(uint64_t point);
  /// The size of the ring's buffer (where allocate() hands out small spans).
  [[nodiscard]] VkDeviceSize capacity() const { return current_.size; }
  /// Bytes handed out (in the ring or in buffers of their own) and not yet
  /// committed.
  [[nodiscard]] VkDeviceSize pending() const { return pending_ + pending_own_; }
  /// Gives back the stretches (and retired buffers) the GPU is done with.
  void reclaim(uint64_t completed);

 private:
  struct Stretch {
    VkDeviceSize start;
    VkDeviceSize end;
    uint64_t point;
  };
  Status grow(VkDeviceSize at_least);
  /// Bytes of the ring's buffer in stretches not yet reclaimed.
  [[nodiscard]] VkDeviceSize in_use() const;

  Device& device_;
  HostBuffer::Placement placement_ = HostBuffer::Placement::host_cached;
  HostBuffer current_;
  std::vector<std::pair<uint64_t, HostBuffer>> retired_;
  std::deque<Stretch> in_flight_;
  VkDeviceSize head_ = 0;  // next free byte
  VkDeviceSize tail_ = 0;  // oldest byte still in use
  VkDeviceSize pending_ = 0;
  VkDeviceSize pending_start_ = 0;  // where the first span not yet committed starts
  VkDeviceSize pending_own_ = 0;
  VkDeviceSize peak_in_use_ =
      0;  // the most ever in use at once    // bytes in buffers of their own, not yet committed
  bool pending_any_ = false;
};

}  // namespace baton::vulkan
