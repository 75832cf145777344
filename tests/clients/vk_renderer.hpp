// The Vulkan side of baton-vk-dmabuf-client: a lavapipe (or any) device that
// renders into LINEAR images whose memory is exported as dma-bufs, and signals
// binary semaphores exportable as sync_files. Every handle is owned (VkOwned)
// and every failed call is logged with its name and VkResult.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/unique_fd.hpp"

namespace baton::testing {

/// Logs "vk-dmabuf-client: CALL failed: VkResult" when `r` is not VK_SUCCESS.
bool vk_ok(VkResult r, const char* call);

/// A Vulkan handle and how to destroy it: move-only, destroyed once.
template <typename T>
class VkOwned {
 public:
  VkOwned() = default;
  VkOwned(T handle, std::function<void(T)> destroy) : h_(handle), destroy_(std::move(destroy)) {}
  ~VkOwned() { reset(); }
  VkOwned(VkOwned&& o) noexcept
      : h_(std::exchange(o.h_, VK_NULL_HANDLE)), destroy_(std::move(o.destroy_)) {}
  VkOwned& operator=(VkOwned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, VK_NULL_HANDLE);
      destroy_ = o.destroy_;
    }
    return *this;
  }
  VkOwned(const VkOwned&) = delete;
  VkOwned& operator=(const VkOwned&) = delete;

  [[nodiscard]] T get() const { return h_; }
  [[nodiscard]] const T* ptr() const { return &h_; }
  void reset() {
    if (h_ != VK_NULL_HANDLE && destroy_) destroy_(h_);
    h_ = VK_NULL_HANDLE;
  }

 private:
  T h_ = VK_NULL_HANDLE;
  std::function<void(T)> destroy_;
};

/// One render target: a LINEAR B8G8R8A8 image (= DRM XRGB8888/ARGB8888 in
/// memory) on dedicated memory exported as a dma-buf.
struct VkTarget {
  VkOwned<VkImage> image;
  VkOwned<VkDeviceMemory> memory;
  UniqueFd dmabuf;
  uint32_t stride = 0;
  uint64_t offset = 0;
  uint64_t modifier = 0;
};

class VkRenderer {
 public:
  /// Instance, the first physical device with the dma-buf and sync_file
  /// extensions, one queue. Null with the reason logged on failure.
  static std::unique_ptr<VkRenderer> create();
  ~VkRenderer();
  VkRenderer(const VkRenderer&) = delete;
  VkRenderer& operator=(const VkRenderer&) = delete;

  [[nodiscard]] const std::string& name() const { return name_; }
  std::optional<VkTarget> make_target(uint32_t width, uint32_t height);
  /// An image only the GPU uses, for busy work and as the copy source.
  bool make_scratch(uint32_t busy_size, uint32_t width, uint32_t height);

  /// One frame's GPU work into `target`: `busy` clears of a big scratch
  /// image (real work that takes time), a clear of the source to `xrgb`, and a
  /// copy of it into the target. Signals `done` (exportable) and `fence`.
  bool submit_frame(const VkTarget& target, uint32_t xrgb, int busy, VkSemaphore done,
                    VkFence fence, VkCommandBuffer cmd);
  /// A binary semaphore exportable as SYNC_FD.
  std::optional<VkOwned<VkSemaphore>> make_export_semaphore();
  std::optional<VkOwned<VkFence>> make_fence(bool signalled);
  std::optional<VkOwned<VkCommandBuffer>> make_command_buffer();
  /// vkGetSemaphoreFdKHR(SYNC_FD): the render-done sync_file. Only call it
  /// after a submit that waits on nothing unsignalled (lavapipe blocks
  /// otherwise, see tests/vm/README.md).
  UniqueFd export_sync_file(VkSemaphore semaphore);
  /// vkWaitForFences; `reset` only where no other thread waits on it.
  bool wait_fence(VkFence fence, uint64_t timeout_ns, bool reset);
  void wait_idle();

 private:
  VkRenderer() = default;
  bool init();

  std::string name_;
  VkOwned<VkInstance> instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkOwned<VkDevice> device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkOwned<VkCommandPool> pool_;
  VkOwned<VkImage> busy_, source_;
  VkOwned<VkDeviceMemory> busy_memory_, source_memory_;
  uint32_t busy_size_ = 0, width_ = 0, height_ = 0;
  PFN_vkGetMemoryFdKHR get_memory_fd_ = nullptr;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd_ = nullptr;
  PFN_vkGetImageDrmFormatModifierPropertiesEXT get_modifier_ = nullptr;
};

}  // namespace baton::testing
