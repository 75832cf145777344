#include "tests/renderer/yuv_frames.hpp"

#include <drm_fourcc.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace baton::test {

const YuvFormat kYuvFormats[10] = {
    {DRM_FORMAT_NV12, "NV12", 8, 2, 2},     {DRM_FORMAT_NV21, "NV21", 8, 2, 2},
    {DRM_FORMAT_NV16, "NV16", 8, 2, 1},     {DRM_FORMAT_P010, "P010", 10, 2, 2},
    {DRM_FORMAT_P012, "P012", 12, 2, 2},    {DRM_FORMAT_P016, "P016", 16, 2, 2},
    {DRM_FORMAT_YUV420, "YUV420", 8, 2, 2}, {DRM_FORMAT_YVU420, "YVU420", 8, 2, 2},
    {DRM_FORMAT_YUYV, "YUYV", 8, 2, 1},     {DRM_FORMAT_UYVY, "UYVY", 8, 2, 1},
};

bool packed(const YuvFormat& f) { return f.drm == DRM_FORMAT_YUYV || f.drm == DRM_FORMAT_UYVY; }
bool three_planes(const YuvFormat& f) {
  return f.drm == DRM_FORMAT_YUV420 || f.drm == DRM_FORMAT_YVU420;
}

void write_yuv(const YuvFormat& f, const YuvFrame& frame, unsigned char* const planes[3],
               const uint32_t strides[3]) {
  const uint32_t sample = f.bits > 8 ? 2 : 1;
  // Samples of more than 8 bits sit in the top bits of 16, little-endian.
  auto put = [&](unsigned char* at, uint32_t value) {
    if (sample == 1) {
      *at = static_cast<unsigned char>(value);
      return;
    }
    const uint32_t word = value << (16 - f.bits);
    at[0] = static_cast<unsigned char>(word & 0xff);
    at[1] = static_cast<unsigned char>(word >> 8);
  };
  const bool swapped = f.drm == DRM_FORMAT_NV21 || f.drm == DRM_FORMAT_YVU420;
  const std::vector<uint32_t>& first = swapped ? frame.cr : frame.cb;
  const std::vector<uint32_t>& second = swapped ? frame.cb : frame.cr;
  for (int y = 0; y < frame.height; ++y) {
    for (int x = 0; x < frame.width; ++x) {
      const uint32_t luma = frame.y[size_t(y) * frame.width + x];
      if (!packed(f)) {
        put(planes[0] + size_t(y) * strides[0] + size_t(x) * sample, luma);
        continue;
      }
      // YUYV: Y0 Cb Y1 Cr; UYVY: Cb Y0 Cr Y1.
      unsigned char* pair = planes[0] + size_t(y) * strides[0] + size_t(x / 2) * 4;
      const size_t c = size_t(y) * frame.chroma_width + x / 2;
      const bool yuyv = f.drm == DRM_FORMAT_YUYV;
      pair[(yuyv ? 0 : 1) + 2 * (x % 2)] = static_cast<unsigned char>(luma);
      pair[yuyv ? 1 : 0] = static_cast<unsigned char>(frame.cb[c]);
      pair[yuyv ? 3 : 2] = static_cast<unsigned char>(frame.cr[c]);
    }
  }
  if (!packed(f)) {
    for (int y = 0; y < frame.chroma_height; ++y)
      for (int x = 0; x < frame.chroma_width; ++x) {
        const size_t c = size_t(y) * frame.chroma_width + x;
        if (three_planes(f)) {
          put(planes[1] + size_t(y) * strides[1] + x, first[c]);
          put(planes[2] + size_t(y) * strides[2] + x, second[c]);
        } else {
          unsigned char* at = planes[1] + size_t(y) * strides[1] + size_t(x) * 2 * sample;
          put(at, first[c]);
          put(at + sample, second[c]);
        }
      }
  }
}

// Luma and chroma over every code value, changing from sample to sample, so
// that a wrong plane, channel, range or matrix shows.
YuvFrame pattern(const YuvFormat& f, int w, int h) {
  YuvFrame frame;
  frame.width = w, frame.height = h;
  frame.chroma_width = (w + f.sub_x - 1) / f.sub_x;
  frame.chroma_height = (h + f.sub_y - 1) / f.sub_y;
  const uint32_t max = (1u << f.bits) - 1;
  auto spread = [&](uint64_t i) { return uint32_t((i * 2654435761ULL) % (uint64_t(max) + 1)); };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) frame.y.push_back(spread(uint64_t(y) * w + x + 7));
  for (int y = 0; y < frame.chroma_height; ++y)
    for (int x = 0; x < frame.chroma_width; ++x) {
      frame.cb.push_back(spread(uint64_t(y) * 131 + uint64_t(x) * 17 + 3));
      frame.cr.push_back(spread(uint64_t(y) * 71 + uint64_t(x) * 29 + 11));
    }
  return frame;
}

Image reference_image(const YuvFormat& f, const YuvFrame& frame, const ColorRepresentation& rep) {
  Image image(frame.width, frame.height);
  for (int y = 0; y < frame.height; ++y)
    for (int x = 0; x < frame.width; ++x) {
      double cb = 0, cr = 0, rgb[3];
      reference_chroma(f, frame, rep.chroma_location, x, y, cb, cr);
      reference_rgb(f.bits, rep, frame.y[size_t(y) * frame.width + x], cb, cr, rgb);
      auto byte = [](double v) { return uint32_t(std::lround(v * 255.0)); };
      image.at(x, y) = 0xff000000u | byte(rgb[0]) << 16 | byte(rgb[1]) << 8 | byte(rgb[2]);
    }
  return image;
}

}  // namespace baton::test
