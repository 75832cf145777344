// The constants baton's shaders convert Y'CbCr with: one affine map from the
// sampled UNORM values of Y, Cb and Cr to R'G'B' (matrix coefficients, range
// and bit depth folded together on the CPU, in double precision), and where
// the chroma samples sit relative to the luma samples.
#pragma once

#include "renderer/color_representation.hpp"
#include "renderer/vulkan/texture/plane_layout.hpp"

namespace baton::vulkan {

/// Laid out as the shaders read it (std430 / push constants): 64 bytes.
struct YcbcrConversion {
  /// R'G'B'[i] = rows[i] · (Y, Cb, Cr, 1), on values as sampled (0..1 UNORM).
  float rows[3][4];
  /// Luma samples per chroma sample (x, y), and the chroma sample's offset
  /// from the top-left luma sample it belongs to, in luma samples (x, y).
  float chroma[4];
};
static_assert(sizeof(YcbcrConversion) == 64);

[[nodiscard]] YcbcrConversion ycbcr_conversion(const PlaneLayout& layout,
                                               const ColorRepresentation& representation);

}  // namespace baton::vulkan
