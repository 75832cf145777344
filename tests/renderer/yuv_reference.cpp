#include "tests/renderer/yuv_reference.hpp"

#include <algorithm>
#include <cmath>

namespace baton::test {

void reference_rgb(int bits, const ColorRepresentation& rep, double y, double cb, double cr,
                   double rgb[3]) {
  const double k = std::pow(2.0, bits - 8);  // one 8-bit step at this depth
  const double max = std::pow(2.0, bits) - 1.0;
  double ey, epb, epr;  // E'Y in 0..1, E'PB and E'PR in -0.5..0.5
  if (rep.range == QuantizationRange::limited) {
    ey = (y - 16.0 * k) / (219.0 * k);
    epb = (cb - 128.0 * k) / (224.0 * k);
    epr = (cr - 128.0 * k) / (224.0 * k);
  } else {
    ey = y / max;
    epb = (cb - std::pow(2.0, bits - 1)) / max;
    epr = (cr - std::pow(2.0, bits - 1)) / max;
  }
  double kr = 0.299, kb = 0.114;
  if (rep.coefficients == YcbcrCoefficients::bt709) kr = 0.2126, kb = 0.0722;
  if (rep.coefficients == YcbcrCoefficients::bt2020) kr = 0.2627, kb = 0.0593;
  // E'PR = (R' - E'Y) / (2 (1 - Kr)), E'PB = (B' - E'Y) / (2 (1 - Kb)).
  const double r = ey + 2.0 * (1.0 - kr) * epr;
  const double b = ey + 2.0 * (1.0 - kb) * epb;
  const double g = (ey - kr * r - kb * b) / (1.0 - kr - kb);
  rgb[0] = std::clamp(r, 0.0, 1.0);
  rgb[1] = std::clamp(g, 0.0, 1.0);
  rgb[2] = std::clamp(b, 0.0, 1.0);
}

namespace {

// Where chroma sample 0 sits, in luma samples from luma sample 0 (H.273,
// figure 7-2: type 0 left and between rows; 1 between columns and rows;
// 2 top-left; 3 top, between columns; 4 bottom-left; 5 bottom, between).
void siting(ChromaLocation location, double& x, double& y) {
  switch (location) {
    case ChromaLocation::type0:
      x = 0.0, y = 0.5;
      return;
    case ChromaLocation::type1:
      x = 0.5, y = 0.5;
      return;
    case ChromaLocation::type2:
      x = 0.0, y = 0.0;
      return;
    case ChromaLocation::type3:
      x = 0.5, y = 0.0;
      return;
    case ChromaLocation::type4:
      x = 0.0, y = 1.0;
      return;
    case ChromaLocation::type5:
      x = 0.5, y = 1.0;
      return;
  }
}

// Linear interpolation along one axis: the two samples around `position`
// (in chroma samples) and the weight of the second; clamped at the edges.
void taps(double position, int count, int& a, int& b, double& w) {
  const double f = std::floor(position);
  w = position - f;
  a = std::clamp(static_cast<int>(f), 0, count - 1);
  b = std::clamp(static_cast<int>(f) + 1, 0, count - 1);
}

}  // namespace

void reference_chroma(const YuvFormat& format, const YuvFrame& frame, ChromaLocation location,
                      int x, int y, double& cb, double& cr) {
  double sx = 0.0, sy = 0.0;
  siting(location, sx, sy);
  if (format.sub_x == 1) sx = 0.0;  // not subsampled across: co-sited
  if (format.sub_y == 1) sy = 0.0;
  // Chroma sample i sits at luma position sub * i + siting.
  int x0, x1, y0, y1;
  double wx, wy;
  taps((x - sx) / format.sub_x, frame.chroma_width, x0, x1, wx);
  taps((y - sy) / format.sub_y, frame.chroma_height, y0, y1, wy);
  auto at = [&](const std::vector<uint32_t>& plane, int i, int j) {
    return static_cast<double>(plane[static_cast<size_t>(j) * frame.chroma_width + i]);
  };
  auto mix = [&](const std::vector<uint32_t>& plane) {
    const double top = at(plane, x0, y0) * (1 - wx) + at(plane, x1, y0) * wx;
    const double bottom = at(plane, x0, y1) * (1 - wx) + at(plane, x1, y1) * wx;
    return top * (1 - wy) + bottom * wy;
  };
  cb = mix(frame.cb);
  cr = mix(frame.cr);
}

}  // namespace baton::test
