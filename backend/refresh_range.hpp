// The variable-refresh range of an output, from its EDID.
//
// VRR frame pacing must stay within the panel's range: above max_hz the
// panel cannot scan out sooner, and below min_hz it would refresh by itself
// (blank or flicker), so low framerate compensation repeats the last frame
// before the panel's maximum frame time (1 / min_hz) runs out.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

struct wlr_output;

namespace baton {

struct RefreshRange {
  double min_hz = 0;
  double max_hz = 0;
};

/// The vertical rate range of the EDID's display range limits descriptor;
/// nullopt when the EDID does not parse, has no such descriptor, or its range
/// is not a variable one (min <= 0 or min >= max).
std::optional<RefreshRange> refresh_range_from_edid(std::span<const uint8_t> edid);

/// The range of a DRM output, read from its connector's EDID property;
/// nullopt for other backends' outputs and connectors without an EDID.
std::optional<RefreshRange> refresh_range_of(wlr_output* output);

}  // namespace baton
