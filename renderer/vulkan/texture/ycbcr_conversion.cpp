#include "renderer/vulkan/texture/ycbcr_conversion.hpp"

#include <cmath>

namespace baton::vulkan {
namespace {

struct LumaWeights {
  double kr, kb;
};

LumaWeights weights(YcbcrCoefficients c) {
  switch (c) {
    case YcbcrCoefficients::bt709:
      return {0.2126, 0.0722};
    case YcbcrCoefficients::bt2020:
      return {0.2627, 0.0593};
    case YcbcrCoefficients::bt601:
    case YcbcrCoefficients::identity:
      break;
  }
  return {0.299, 0.114};
}

// Column (x, y) of the chroma sample relative to its top-left luma sample,
// for H.273 chroma_sample_loc_type 0..5.
void chroma_offset(ChromaLocation location, double& x, double& y) {
  const int type = static_cast<int>(location);
  x = (type % 2 == 0) ? 0.0 : 0.5;                    // even types: co-sited with the left column
  static constexpr double kRow[3] = {0.5, 0.0, 1.0};  // 0,1: between rows; 2,3: top; 4,5: bottom
  y = kRow[type / 2];
}

}  // namespace

YcbcrConversion ycbcr_conversion(const PlaneLayout& layout, const ColorRepresentation& rep) {
  // A sampled UNORM value times `code` is the sample's integer code value:
  // a 10-bit value in the top of 16 bits samples as code · 64 / 65535.
  const double code =
      (std::ldexp(1.0, layout.container) - 1.0) / std::ldexp(1.0, layout.container - layout.bits);
  const double max = std::ldexp(1.0, layout.bits) - 1.0;
  const double step = std::ldexp(1.0, layout.bits - 8);  // one 8-bit step in this depth
  const bool identity = rep.coefficients == YcbcrCoefficients::identity;
  // Y' (and, for identity, every channel) and Cb, Cr as scale · value + bias.
  double y_scale, y_bias, c_scale, c_bias;
  if (rep.range == QuantizationRange::limited) {
    y_scale = code / (219.0 * step);
    y_bias = -16.0 * step / (219.0 * step);
    c_scale = identity ? y_scale : code / (224.0 * step);
    c_bias = identity ? y_bias : -128.0 * step / (224.0 * step);
  } else {
    y_scale = code / max;
    y_bias = 0.0;
    c_scale = y_scale;
    c_bias = identity ? 0.0 : -std::ldexp(1.0, layout.bits - 1) / max;
  }

  // R'G'B' from Y', Cb, Cr (Cb, Cr in -0.5..0.5).
  double m[3][3];
  if (identity) {  // GBR: Y carries G, Cb carries B, Cr carries R
    const double g[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = g[i][j];
  } else {
    const auto [kr, kb] = weights(rep.coefficients);
    const double kg = 1.0 - kr - kb;
    const double cr_r = 2.0 * (1.0 - kr), cb_b = 2.0 * (1.0 - kb);
    const double r[3][3] = {
        {1.0, 0.0, cr_r},
        {1.0, -kb * cb_b / kg, -kr * cr_r / kg},
        {1.0, cb_b, 0.0},
    };
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = r[i][j];
  }

  YcbcrConversion out{};
  const double scale[3] = {y_scale, c_scale, c_scale};
  const double bias[3] = {y_bias, c_bias, c_bias};
  for (int i = 0; i < 3; ++i) {
    double offset = 0.0;
    for (int j = 0; j < 3; ++j) {
      out.rows[i][j] = static_cast<float>(m[i][j] * scale[j]);
      offset += m[i][j] * bias[j];
    }
    out.rows[i][3] = static_cast<float>(offset);
  }

  double dx = 0.0, dy = 0.0;
  chroma_offset(rep.chroma_location, dx, dy);
  // Without subsampling in a direction there is nothing to site.
  out.chroma[0] = layout.chroma_sub_x;
  out.chroma[1] = layout.chroma_sub_y;
  out.chroma[2] = layout.chroma_sub_x > 1 ? static_cast<float>(dx) : 0.0f;
  out.chroma[3] = layout.chroma_sub_y > 1 ? static_cast<float>(dy) : 0.0f;
  return out;
}

}  // namespace baton::vulkan
