// YUV test frames shared by the dma-buf and wl_shm goldens: the formats
// under test, a pattern over every code value, writing a frame into planes
// as a producer lays them out, and the reference picture of a frame.
#pragma once

#include <cstdint>

#include "renderer/color_representation.hpp"
#include "tests/renderer/yuv_reference.hpp"
#include "util/image.hpp"

namespace baton::test {

/// Every YUV format baton takes, as the tests lay them out.
extern const YuvFormat kYuvFormats[10];

[[nodiscard]] bool packed(const YuvFormat& f);        // YUYV, UYVY: one plane
[[nodiscard]] bool three_planes(const YuvFormat& f);  // YUV420, YVU420

/// Luma and chroma over every code value, changing from sample to sample, so
/// that a wrong plane, channel, range or matrix shows.
[[nodiscard]] YuvFrame pattern(const YuvFormat& f, int w, int h);

/// Writes `frame` into `planes` (rows `strides` bytes apart) laid out as `f`
/// is in memory: samples of more than 8 bits in the top bits of 16,
/// little-endian; YUYV as Y0 Cb Y1 Cr, UYVY as Cb Y0 Cr Y1.
void write_yuv(const YuvFormat& f, const YuvFrame& frame, unsigned char* const planes[3],
               const uint32_t strides[3]);

/// The frame as R'G'B' (opaque XRGB), converted by yuv_reference.hpp.
[[nodiscard]] Image reference_image(const YuvFormat& f, const YuvFrame& frame,
                                    const ColorRepresentation& rep);

}  // namespace baton::test
