// Chooses the Vulkan physical device baton renders with.
//
// Pure logic over what was seen of each device, so the policy is testable
// without a GPU: the caller describes every device (and why it cannot be
// used, if so), this picks one and explains the choice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace baton::vulkan {

enum class DeviceKind { discrete, integrated, virtual_gpu, cpu, other };

struct DeviceCandidate {
  uint32_t index = 0;
  std::string name;
  DeviceKind kind = DeviceKind::other;
  /// Empty when the device has everything baton needs; else why not.
  std::string refusal;
  /// The DRM nodes the device reported (VK_EXT_physical_device_drm), if any.
  std::optional<uint64_t> primary_node;
  std::optional<uint64_t> render_node;
};

struct DeviceRequest {
  /// --vulkan-device: a decimal index or a case-insensitive part of the name.
  std::optional<std::string> name_or_index;
  /// st_rdev of the DRM node the outputs are on, when there is one.
  std::optional<uint64_t> drm_node;
  /// Whether a CPU device (lavapipe) may be chosen without being named.
  /// `--renderer auto` says no: pixman is cheaper there (8 animating
  /// windows, headless 1080p: 62 µs of compositor CPU per client frame and
  /// 27 MiB RSS, against lavapipe's 481 µs and 127 MiB).
  bool accept_cpu = true;
};

struct DeviceSelection {
  /// Index into the candidate list, or -1 when none fits.
  int chosen = -1;
  /// None chosen only because every usable device is a CPU and the request
  /// does not accept one.
  bool declined_cpu = false;
  /// Why this device: one line.
  std::string reason;
  /// Every device seen and, for the refused ones, why: one line each.
  std::string report;
};

[[nodiscard]] DeviceSelection select_device(const std::vector<DeviceCandidate>& candidates,
                                            const DeviceRequest& request);

[[nodiscard]] const char* device_kind_name(DeviceKind kind);

}  // namespace baton::vulkan
