#include "renderer/vulkan/device/device_select.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace baton::vulkan {
namespace {

// Lower is better: real GPUs before software rasterizers.
int kind_rank(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::discrete:
      return 0;
    case DeviceKind::integrated:
      return 1;
    case DeviceKind::virtual_gpu:
      return 2;
    case DeviceKind::other:
      return 3;
    case DeviceKind::cpu:
      return 4;
  }
  return 5;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<uint32_t> parse_index(const std::string& text) {
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool on_node(const DeviceCandidate& c, uint64_t node) {
  return (c.primary_node && *c.primary_node == node) || (c.render_node && *c.render_node == node);
}

std::string describe(const DeviceCandidate& c) {
  std::string line =
      "  [" + std::to_string(c.index) + "] " + c.name + " (" + device_kind_name(c.kind) + ")";
  line += c.refusal.empty() ? ": usable" : ": refused, " + c.refusal;
  return line + "\n";
}

}  // namespace

const char* device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::discrete:
      return "discrete GPU";
    case DeviceKind::integrated:
      return "integrated GPU";
    case DeviceKind::virtual_gpu:
      return "virtual GPU";
    case DeviceKind::cpu:
      return "CPU";
    case DeviceKind::other:
      return "other";
  }
  return "?";
}

DeviceSelection select_device(const std::vector<DeviceCandidate>& candidates,
                              const DeviceRequest& request) {
  DeviceSelection result;
  if (candidates.empty()) result.report = "  (no Vulkan devices found)\n";
  for (const DeviceCandidate& c : candidates) result.report += describe(c);

  auto pick = [&](size_t i, std::string reason) {
    result.chosen = static_cast<int>(i);
    result.reason = std::move(reason);
    return result;
  };
  // A CPU only where the request accepts one; a device the user names
  // (below) is taken whatever its kind.
  auto acceptable = [&](const DeviceCandidate& c) {
    return c.refusal.empty() && (c.kind != DeviceKind::cpu || request.accept_cpu);
  };

  if (request.name_or_index) {
    const std::string& wanted = *request.name_or_index;
    std::optional<uint32_t> index = parse_index(wanted);
    for (size_t i = 0; i < candidates.size(); ++i) {
      const DeviceCandidate& c = candidates[i];
      bool match =
          index ? c.index == *index : lower(c.name).find(lower(wanted)) != std::string::npos;
      if (!match) continue;
      if (!c.refusal.empty()) {
        result.reason = "the requested device '" + wanted + "' cannot be used: " + c.refusal;
        return result;
      }
      return pick(i, "requested with --vulkan-device " + wanted);
    }
    result.reason = "no Vulkan device matches --vulkan-device " + wanted;
    return result;
  }

  if (request.drm_node) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (acceptable(candidates[i]) && on_node(candidates[i], *request.drm_node))
        return pick(i, "it drives the outputs' DRM node");
    }
  }

  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!acceptable(candidates[i])) continue;
    if (best < 0 || kind_rank(candidates[i].kind) < kind_rank(candidates[best].kind))
      best = static_cast<int>(i);
  }
  if (best < 0) {
    // A usable device left unchosen can only be a CPU the request declines.
    result.declined_cpu = std::any_of(candidates.begin(), candidates.end(),
                                      [](const DeviceCandidate& c) { return c.refusal.empty(); });
    result.reason = result.declined_cpu ? "every usable Vulkan device is a CPU"
                                        : "no Vulkan device has what baton needs";
    return result;
  }
  std::string reason = request.drm_node
                           ? "no usable device matches the outputs' DRM node; best other device"
                           : "best usable device";
  return pick(static_cast<size_t>(best), reason);
}

}  // namespace baton::vulkan
