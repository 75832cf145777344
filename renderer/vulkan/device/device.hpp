// The Vulkan instance and logical device baton renders with.
//
// Shared (std::shared_ptr) by the renderer, its textures, the swapchain
// allocator and its buffers: wlroots may keep buffers and textures alive
// after the renderer is gone, and each must still be able to free itself.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "renderer/vulkan/device/device_select.hpp"
#include "util/result.hpp"

namespace baton::vulkan {

class CompletionWatch;

/// Device::create's Error.call when the request declined the only usable
/// devices for being CPUs (DeviceRequest::accept_cpu).
inline constexpr std::string_view kDeclinedCpu = "no Vulkan GPU";

struct DeviceOptions {
  DeviceRequest request;
  /// Count validation / debug-utils messages of warning or error severity.
  bool debug_messenger = false;
};

class Device {
 public:
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  /// An error names every device seen and why it was refused.
  [[nodiscard]] static Result<std::shared_ptr<Device>> create(const DeviceOptions& options);

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkDevice get() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const std::string& name() const { return name_; }
  DeviceKind kind() const { return kind_; }
  /// The device's own DRM render node (VK_EXT_physical_device_drm); none on
  /// a CPU driver (lavapipe).
  const std::optional<uint64_t>& render_node() const { return render_node_; }

  /// A memory type index with all of `required` among `type_bits`, or -1.
  [[nodiscard]] int memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const;
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }

  /// Extensions that were found and enabled.
  struct Features {
    bool dmabuf_import = false;      // external_memory_fd + dma_buf + drm_format_modifier
    bool semaphore_sync_fd = false;  // external_semaphore_fd
    /// A binary semaphore's SYNC_FD can be exported: render-done as a sync_file.
    bool sync_fd_export = false;
    /// Exporting that SYNC_FD waits until the GPU signalled it (lavapipe:
    /// found by its driver id), so the event loop must not export right after
    /// a submit; it waits for the work first and signals from there.
    bool sync_fd_export_waits = false;
    bool drm_node = false;            // physical_device_drm
    bool host_memory_import = false;  // external_memory_host: memfd-backed slots
    bool compute_composite = false;   // what shaders/composite.comp needs
    bool compute_upload = false;      // what shaders/upload.comp needs
  };
  const Features& features() const { return features_; }

  PFN_vkCmdPushDescriptorSetKHR push_descriptor = nullptr;
  PFN_vkGetMemoryFdPropertiesKHR get_memory_fd_properties = nullptr;
  PFN_vkGetImageDrmFormatModifierPropertiesEXT get_image_modifier = nullptr;
  PFN_vkGetMemoryFdKHR get_memory_fd = nullptr;  // dma-buf export of slots
  PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_properties = nullptr;
  PFN_vkImportSemaphoreFdKHR import_semaphore_fd = nullptr;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd = nullptr;
  /// Host allocations imported as device memory start and end on this multiple.
  VkDeviceSize host_pointer_alignment = 4096;

  /// The timeline semaphore every submission signals, one point per submit.
  VkSemaphore timeline() const { return timeline_; }
  /// The point the next submission will signal.
  uint64_t next_point() const { return submitted_ + 1; }
  /// Records that a submission signalling next_point() was made; returns its point.
  uint64_t advance() { return ++submitted_; }
  uint64_t submitted() const { return submitted_; }
  /// The last point the GPU finished (0 on a lost device: nothing completes).
  uint64_t completed();
  /// CPU-waits for `point` (read-back and teardown only, never the frame
  /// loop); an error when the wait failed or the device is lost. `site`
  /// names the caller: a wait that blocks the thread that made the device
  /// (the event loop's) is counted under it.
  [[nodiscard]] Status wait(uint64_t point, std::string_view site);
  /// The completion watch made for this device, while someone holds it
  /// (CompletionWatch::of: one per device).
  [[nodiscard]] const std::weak_ptr<CompletionWatch>& completion_watch() const {
    return completion_watch_;
  }
  void set_completion_watch(std::weak_ptr<CompletionWatch> watch) {
    completion_watch_ = std::move(watch);
  }
  /// Blocking waits made on the event loop's thread, by site.
  [[nodiscard]] const std::map<std::string, uint64_t, std::less<>>& loop_waits() const {
    return loop_waits_;
  }
  /// vk_status() of a call, noting a lost device; logs nothing.
  [[nodiscard]] Status check(VkResult result, const char* call);

  /// Warnings and errors the debug messenger saw (tests assert zero).
  int debug_messages() const { return debug_messages_.load(); }
  /// Keeps `resources` (what submitted work may still use) until the device
  /// is past `point`, then drops them; at once when it already is, or is
  /// lost. Never waits: what the event loop frees must not stall it.
  void free_after(uint64_t point, std::shared_ptr<void> resources);
  /// Drops what free_after kept whose point the device is past (the
  /// renderer calls it as it collects its own; its teardown, after the
  /// device went idle, drops everything).
  void collect_freed();
  [[nodiscard]] size_t pending_frees() const { return freed_after_.size(); }

  /// Set once VK_ERROR_DEVICE_LOST was seen; the renderer must be rebuilt.
  bool lost() const { return lost_.load(); }
  void mark_lost() { lost_ = true; }

 private:
  Device() = default;
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPhysicalDeviceProperties properties_{};
  std::thread::id loop_thread_ = std::this_thread::get_id();
  std::map<std::string, uint64_t, std::less<>> loop_waits_;
  std::weak_ptr<CompletionWatch> completion_watch_;
  VkPhysicalDeviceMemoryProperties memory_{};
  std::string name_;
  DeviceKind kind_ = DeviceKind::other;
  std::optional<uint64_t> render_node_;
  Features features_;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  std::vector<std::pair<uint64_t, std::shared_ptr<void>>> freed_after_;
  std::atomic<int> debug_messages_{0};
  std::atomic<bool> lost_{false};
};

}  // namespace baton::vulkan
