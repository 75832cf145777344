// Compares a baton screenshot with a raw frame a V4L2 device produced
// (vivid, through v4l2-ctl --stream-to): a YUV frame converted to RGB by the
// tests' own double-precision reference (BT.601, limited range: vivid's
// encoding for its sRGB colorspace, and what baton reads a YUV buffer as
// when its client says nothing), an XR24 frame (B, G, R, X bytes) as it is;
// pixel by pixel, at (X, Y) of the screenshot.
//
// Only pixels whose 5x5 neighbourhood in the reference is one colour are
// compared: where colours meet, the chroma siting the producer used (V4L2
// does not say) decides the value, so edges are not the renderer's to match.
//
// usage: vm-video-frame-check RAW NV12|YUYV|XR24 WIDTH HEIGHT PNG [X Y]
// Exit 0 when at least half the frame's pixels were compared, at least 4
// distinct colours among them, and none is more than kTolerance off; 1 with
// the figures otherwise.
#include <drm_fourcc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "tests/renderer/yuv_reference.hpp"
#include "util/image.hpp"

namespace {

// Steps of 255: the renderer's golden tests hold 1 against this reference;
// one more for the screenshot's readback of the composited output.
constexpr int kTolerance = 2;

using baton::test::YuvFormat;
using baton::test::YuvFrame;

// The frame's samples as code values (V4L2's NV12: a luma plane then
// interleaved CbCr at half size; YUYV: Y0 Cb Y1 Cr), each plane packed at
// its width: vivid's bytesperline for these sizes.
bool unpack(const std::vector<unsigned char>& raw, const YuvFormat& format, YuvFrame& frame) {
  const size_t w = static_cast<size_t>(frame.width), h = static_cast<size_t>(frame.height);
  const size_t cw = static_cast<size_t>(frame.chroma_width);
  const size_t ch = static_cast<size_t>(frame.chroma_height);
  frame.y.resize(w * h);
  frame.cb.resize(cw * ch);
  frame.cr.resize(cw * ch);
  if (format.drm == DRM_FORMAT_NV12) {
    if (raw.size() < w * h + cw * ch * 2) return false;
    std::copy_n(raw.begin(), w * h, frame.y.begin());
    for (size_t i = 0; i < cw * ch; ++i) {
      frame.cb[i] = raw[w * h + 2 * i];
      frame.cr[i] = raw[w * h + 2 * i + 1];
    }
    return true;
  }
  if (raw.size() < w * h * 2) return false;
  for (size_t i = 0; i < w * h / 2; ++i) {
    frame.y[2 * i] = raw[4 * i];
    frame.cb[i] = raw[4 * i + 1];
    frame.y[2 * i + 1] = raw[4 * i + 2];
    frame.cr[i] = raw[4 * i + 3];
  }
  return true;
}

int run(int argc, char** argv) {
  if (argc != 6 && argc != 8) {
    std::fprintf(stderr, "usage: %s RAW NV12|YUYV|XR24 WIDTH HEIGHT PNG [X Y]\n", argv[0]);
    return 2;
  }
  const std::string name = argv[2];
  YuvFormat format{};
  if (name == "NV12")
    format = {DRM_FORMAT_NV12, "NV12", 8, 2, 2};
  else if (name == "YUYV")
    format = {DRM_FORMAT_YUYV, "YUYV", 8, 2, 1};
  else if (name == "XR24")
    format = {DRM_FORMAT_XRGB8888, "XR24", 8, 1, 1};
  else {
    std::fprintf(stderr, "video-frame-check: format %s is not NV12, YUYV or XR24\n", argv[2]);
    return 2;
  }
  YuvFrame frame;
  frame.width = std::atoi(argv[3]);
  frame.height = std::atoi(argv[4]);
  frame.chroma_width = frame.width / format.sub_x;
  frame.chroma_height = frame.height / format.sub_y;
  const int ox = argc == 8 ? std::atoi(argv[6]) : 0;
  const int oy = argc == 8 ? std::atoi(argv[7]) : 0;

  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<unsigned char> raw{std::istreambuf_iterator<char>(in),
                                       std::istreambuf_iterator<char>()};
  const bool rgb = format.drm == DRM_FORMAT_XRGB8888;
  const size_t rgb_bytes = static_cast<size_t>(frame.width) * static_cast<size_t>(frame.height) * 4;
  if (frame.width <= 0 || frame.height <= 0 ||
      (rgb ? raw.size() < rgb_bytes : !unpack(raw, format, frame))) {
    std::printf("video-frame-check: %s holds %zu bytes, too few for a %dx%d %s frame\n", argv[1],
                raw.size(), frame.width, frame.height, argv[2]);
    return 1;
  }
  auto shot = baton::read_png(argv[5]);
  if (!shot) {
    std::printf("video-frame-check: %s\n", shot.error().describe().c_str());
    return 1;
  }
  if (ox < 0 || oy < 0 || ox + frame.width > shot->width || oy + frame.height > shot->height) {
    std::printf("video-frame-check: a %dx%d frame at %d,%d does not fit the %dx%d screenshot\n",
                frame.width, frame.height, ox, oy, shot->width, shot->height);
    return 1;
  }

  // The reference, in 8-bit steps.
  baton::ColorRepresentation rep;
  rep.coefficients = baton::YcbcrCoefficients::bt601;
  rep.range = baton::QuantizationRange::limited;
  const size_t w = static_cast<size_t>(frame.width);
  std::vector<double> ref(w * static_cast<size_t>(frame.height) * 3);
  for (int y = 0; y < frame.height; ++y)
    for (int x = 0; x < frame.width; ++x) {
      if (rgb) {  // B, G, R, X
        for (int c = 0; c < 3; ++c) ref[(y * w + x) * 3 + c] = raw[(y * w + x) * 4 + 2 - c];
        continue;
      }
      double cb = 0, cr = 0, converted[3];
      baton::test::reference_chroma(format, frame, baton::ChromaLocation::type0, x, y, cb, cr);
      baton::test::reference_rgb(8, rep, frame.y[y * w + x], cb, cr, converted);
      for (int c = 0; c < 3; ++c) ref[(y * w + x) * 3 + c] = converted[c] * 255.0;
    }
  auto same = [&](size_t a, size_t b) {
    for (int c = 0; c < 3; ++c)
      if (std::abs(ref[a * 3 + c] - ref[b * 3 + c]) > 0.5) return false;
    return true;
  };

  long compared = 0;
  double worst = 0;
  int worst_x = 0, worst_y = 0;
  std::set<unsigned> colours;
  for (int y = 2; y + 2 < frame.height; ++y)
    for (int x = 2; x + 2 < frame.width; ++x) {
      const size_t i = y * w + x;
      bool flat = true;
      for (int dy = -2; dy <= 2 && flat; ++dy)
        for (int dx = -2; dx <= 2 && flat; ++dx) flat = same(i, (y + dy) * w + (x + dx));
      if (!flat) continue;
      // util/image.hpp: 0xAARRGGBB words.
      const uint32_t px = shot->at(ox + x, oy + y);
      const int got[3] = {static_cast<int>((px >> 16) & 0xff), static_cast<int>((px >> 8) & 0xff),
                          static_cast<int>(px & 0xff)};
      for (int c = 0; c < 3; ++c) {
        const double off = std::abs(got[c] - ref[i * 3 + c]);
        if (off > worst) worst = off, worst_x = x, worst_y = y;
      }
      colours.insert(px & 0xffffffu);
      ++compared;
    }
  const long total = static_cast<long>(w) * frame.height;
  std::printf(
      "video-frame-check: %s %dx%d at %d,%d: %ld of %ld pixels compared (flat areas), %zu "
      "colours, largest difference %.2f steps of 255 at %d,%d (tolerance %d)\n",
      argv[2], frame.width, frame.height, ox, oy, compared, total, colours.size(), worst, worst_x,
      worst_y, kTolerance);
  return compared * 2 >= total && colours.size() >= 4 && worst <= kTolerance ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::printf("video-frame-check: %s\n", e.what());
    return 1;
  }
}
