// How a buffer's pixel values are to be read: its colour representation
// (wp_color_representation_v1). The protocol layer, which knows the surface a
// buffer was committed to, sets it on the buffer; the renderer reads it when
// it samples the buffer. A buffer nobody set a representation on is read with
// the defaults below.
#pragma once

#include <cstdint>

struct wlr_buffer;

namespace baton {

/// The matrix from Y'CbCr to R'G'B'. Identity: the buffer is RGB.
enum class YcbcrCoefficients : uint8_t { identity, bt601, bt709, bt2020 };
/// Limited: luma in 16..235, chroma in 16..240 (8-bit; scaled for more bits).
enum class QuantizationRange : uint8_t { full, limited };
/// Where a subsampled chroma sample sits relative to the luma samples it
/// covers (wp_color_representation_surface_v1.chroma_location types 1..6).
enum class ChromaLocation : uint8_t { type0, type1, type2, type3, type4, type5 };
enum class AlphaMode : uint8_t { premultiplied_electrical, premultiplied_optical, straight };

struct ColorRepresentation {
  YcbcrCoefficients coefficients = YcbcrCoefficients::identity;
  QuantizationRange range = QuantizationRange::full;
  ChromaLocation chroma_location = ChromaLocation::type0;
  AlphaMode alpha = AlphaMode::premultiplied_electrical;
  /// Whether a client said anything: unset YUV buffers get the defaults
  /// players expect (BT.601, limited range, chroma type 0, as MPEG-2/H.264).
  bool client_set = false;

  bool operator==(const ColorRepresentation&) const = default;
};

/// The representation a buffer of `drm_format` is read with when its client
/// said nothing: identity and full range for RGB, BT.601 limited for YUV.
[[nodiscard]] ColorRepresentation default_color_representation(uint32_t drm_format);

/// Sets (or replaces) the representation of `buffer` for as long as it lives.
void set_color_representation(wlr_buffer* buffer, const ColorRepresentation& representation);
/// What was set on `buffer`, or nullptr.
[[nodiscard]] const ColorRepresentation* color_representation_of(wlr_buffer* buffer);

}  // namespace baton
