// Checks a baton screenshot: the expected size, the desktop background in the
// corners, and a client's many-coloured pixels somewhere on it.
//
// usage: vm-screenshot-check PNG WIDTH HEIGHT
// Exit 0 when all hold; 1 with the reason otherwise.
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <vector>

namespace {

struct Rgba {
  int r, g, b, a;
};

// baton's clear colour (#292e38), give or take rounding in the renderer.
constexpr Rgba kBackground{0x29, 0x2e, 0x38, 0xff};
constexpr int kBackgroundTolerance = 6;
// What counts as a client pixel: far from the background in some channel.
constexpr int kForegroundDistance = 24;
// weston-simple-shm draws a 250x250 window: well over this many pixels.
constexpr long kMinForeground = 20000;
constexpr size_t kMinColours = 16;

int distance(Rgba a, Rgba b) {
  int d = std::abs(a.r - b.r);
  d = std::max(d, std::abs(a.g - b.g));
  return std::max(d, std::abs(a.b - b.b));
}

struct Image {
  unsigned width = 0, height = 0;
  std::vector<unsigned char> rgba;
  Rgba at(unsigned x, unsigned y) const {
    const unsigned char* p = &rgba[(size_t{y} * width + x) * 4];
    return {p[0], p[1], p[2], p[3]};
  }
};

bool load(const char* path, Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path)) {
    std::printf("screenshot-check: cannot read %s: %s\n", path, png.message);
    return false;
  }
  png.format = PNG_FORMAT_RGBA;
  image.width = png.width;
  image.height = png.height;
  // NOLINTNEXTLINE(bugprone-implicit-widening-of-multiplication-result): libpng's macro
  image.rgba.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr)) {
    std::printf("screenshot-check: cannot decode %s: %s\n", path, png.message);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PNG WIDTH HEIGHT\n", argv[0]);
    return 2;
  }
  Image image;
  if (!load(argv[1], image)) return 1;
  unsigned want_w = static_cast<unsigned>(std::atoi(argv[2]));
  unsigned want_h = static_cast<unsigned>(std::atoi(argv[3]));
  if (image.width != want_w || image.height != want_h) {
    std::printf("screenshot-check: %ux%u, expected the output's %ux%u\n", image.width, image.height,
                want_w, want_h);
    return 1;
  }
  const unsigned corners[4][2] = {
      {0, 0}, {image.width - 1, 0}, {0, image.height - 1}, {image.width - 1, image.height - 1}};
  for (auto [x, y] : corners) {
    Rgba p = image.at(x, y);
    if (distance(p, kBackground) > kBackgroundTolerance) {
      std::printf("screenshot-check: corner (%u,%u) is #%02x%02x%02x, not the background\n", x, y,
                  p.r, p.g, p.b);
      return 1;
    }
  }
  long foreground = 0;
  std::set<int> colours;
  for (unsigned y = 0; y < image.height; ++y)
    for (unsigned x = 0; x < image.width; ++x) {
      Rgba p = image.at(x, y);
      if (distance(p, kBackground) <= kForegroundDistance) continue;
      ++foreground;
      colours.insert((p.r << 16) | (p.g << 8) | p.b);
    }
  std::printf("screenshot-check: %ux%u, %ld client pixels in %zu colours\n", image.width,
              image.height, foreground, colours.size());
  if (foreground < kMinForeground || colours.size() < kMinColours) {
    std::printf("screenshot-check: the client's window is not on the screenshot\n");
    return 1;
  }
  return 0;
}
