// The tests' own Y'CbCr -> R'G'B' conversion, in double precision and written
// from the standards (ITU-R BT.601/709/2020, H.273 chroma siting), not from
// the renderer's constants: the renderer is compared against it.
#pragma once

#include <cstdint>
#include <vector>

#include "renderer/color_representation.hpp"

namespace baton::test {

/// A YUV format as the tests lay it out in memory.
struct YuvFormat {
  uint32_t drm;
  const char* name;
  int bits;          // significant bits per sample
  int sub_x, sub_y;  // luma samples per chroma sample
};

/// Code values of one frame: luma at full size, chroma at chroma size.
struct YuvFrame {
  int width = 0, height = 0, chroma_width = 0, chroma_height = 0;
  std::vector<uint32_t> y, cb, cr;
};

/// R'G'B' in 0..1 (clamped) of luma code `y` and (interpolated) chroma codes.
void reference_rgb(int bits, const ColorRepresentation& rep, double y, double cb, double cr,
                   double rgb[3]);

/// The chroma codes at luma sample (x, y), interpolated linearly between the
/// chroma samples around it, each placed where `location` sites it.
void reference_chroma(const YuvFormat& format, const YuvFrame& frame, ChromaLocation location,
                      int x, int y, double& cb, double& cr);

}  // namespace baton::test
