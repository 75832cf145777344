// A CPU copy of pixels: 32-bit ARGB (0xAARRGGBB), rows packed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

/// Writes `image` as an 8-bit RGBA PNG. Returns an error message, empty on success.
[[nodiscard]] std::string write_png(const std::string& path, const Image& image);
/// Reads a PNG of any colour type into ARGB; `error` is set on failure.
[[nodiscard]] Image read_png(const std::string& path, std::string& error);

}  // namespace baton
