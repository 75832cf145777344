// The conversion constants the shaders get (texture/ycbcr_conversion.hpp),
// checked on the CPU against the tests' own reference: runs on any host,
// where the dma-buf goldens (dmabuf_yuv_test.cpp) need the qemu guest.
#include "renderer/vulkan/texture/ycbcr_conversion.hpp"

#include <drm_fourcc.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tests/renderer/yuv_reference.hpp"

namespace baton::test {
namespace {

// What the shader computes from code values, as a UNORM image samples them.
void shader_rgb(const vulkan::PlaneLayout& layout, const vulkan::YcbcrConversion& c, uint32_t y,
                uint32_t cb, uint32_t cr, double rgb[3]) {
  const double shift = std::ldexp(1.0, layout.container - layout.bits);
  const double unorm = std::ldexp(1.0, layout.container) - 1.0;
  const double v[4] = {y * shift / unorm, cb * shift / unorm, cr * shift / unorm, 1.0};
  for (int i = 0; i < 3; ++i) {
    double sum = 0;
    for (int j = 0; j < 4; ++j) sum += double(c.rows[i][j]) * v[j];
    rgb[i] = std::clamp(sum, 0.0, 1.0);
  }
}

TEST(YcbcrConversion, EveryFormatMatrixAndRangeMatchesTheReference) {
  for (const vulkan::PlaneLayout& layout : vulkan::plane_layouts()) {
    const uint32_t max = (1u << layout.bits) - 1;
    for (YcbcrCoefficients coefficients :
         {YcbcrCoefficients::bt601, YcbcrCoefficients::bt709, YcbcrCoefficients::bt2020}) {
      for (QuantizationRange range : {QuantizationRange::full, QuantizationRange::limited}) {
        ColorRepresentation rep;
        rep.coefficients = coefficients;
        rep.range = range;
        const vulkan::YcbcrConversion c = vulkan::ycbcr_conversion(layout, rep);
        double worst = 0;
        for (uint32_t i = 0; i < 4096; ++i) {
          const uint32_t y = (i * 2654435761u) % (max + 1);
          const uint32_t cb = (i * 40503u + 7) % (max + 1), cr = (i * 97u + 13) % (max + 1);
          double want[3], got[3];
          reference_rgb(layout.bits, rep, y, cb, cr, want);
          shader_rgb(layout, c, y, cb, cr, got);
          for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(want[k] - got[k]));
        }
        // Float constants: far below the half step of 255 the goldens allow.
        EXPECT_LT(worst * 255.0, 0.01) << std::hex << layout.info.drm << " coefficients "
                                       << int(coefficients) << " range " << int(range);
      }
    }
  }
}

TEST(YcbcrConversion, ChromaSitingOffsetsFollowH273) {
  const vulkan::PlaneLayout* nv12 = vulkan::find_plane_layout(DRM_FORMAT_NV12);
  const vulkan::PlaneLayout* nv16 = vulkan::find_plane_layout(DRM_FORMAT_NV16);
  ASSERT_NE(nv12, nullptr);
  ASSERT_NE(nv16, nullptr);
  const float x[6] = {0, 0.5f, 0, 0.5f, 0, 0.5f}, y[6] = {0.5f, 0.5f, 0, 0, 1, 1};
  for (int type = 0; type < 6; ++type) {
    ColorRepresentation rep;
    rep.coefficients = YcbcrCoefficients::bt709;
    rep.chroma_location = static_cast<ChromaLocation>(type);
    const vulkan::YcbcrConversion c420 = vulkan::ycbcr_conversion(*nv12, rep);
    EXPECT_EQ(c420.chroma[2], x[type]) << type;
    EXPECT_EQ(c420.chroma[3], y[type]) << type;
    const vulkan::YcbcrConversion c422 = vulkan::ycbcr_conversion(*nv16, rep);
    EXPECT_EQ(c422.chroma[2], x[type]) << type;
    EXPECT_EQ(c422.chroma[3], 0.0f) << "4:2:2 is not subsampled down, type " << type;
  }
}

}  // namespace
}  // namespace baton::test
