// A CPU copy of pixels: 32-bit ARGB (0xAARRGGBB), rows packed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace baton {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint32_t> pixels;

  Image() = default;
  Image(int w, int h, uint32_t fill = 0)
      : width(w), height(h), pixels(static_cast<size_t>(w) * static_cast<size_t>(h), fill) {}

  [[nodiscard]] bool empty() const { return pixels.empty(); }
  [[nodiscard]] uint32_t at(int x, int y) const {
    return pixels[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
  }
  uint32_t& at(int x, int y) {
    return pixels[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
  }
};

/// Writes `image` as an 8-bit RGBA PNG (beside `path`, then renamed into place).
[[nodiscard]] Status write_png(const std::string& path, const Image& image);
/// Reads a PNG of any colour type into ARGB.
[[nodiscard]] Result<Image> read_png(const std::string& path);

}  // namespace baton
