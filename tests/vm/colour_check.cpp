// Checks that a screenshot shows a client's final colour and never its
// "not yet rendered" magenta.
//
// usage: vm-colour-check PNG RRGGBB MIN_PIXELS
// Exit 0 when at least MIN_PIXELS pixels are RRGGBB (give or take rounding)
// and none is magenta; 1 with the counts otherwise.
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kTolerance = 6;

bool near(const unsigned char* p, unsigned rgb, int tolerance) {
  const int want[3] = {static_cast<int>((rgb >> 16) & 0xff), static_cast<int>((rgb >> 8) & 0xff),
                       static_cast<int>(rgb & 0xff)};
  for (int c = 0; c < 3; ++c)
    if (std::abs(p[c] - want[c]) > tolerance) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PNG RRGGBB MIN_PIXELS\n", argv[0]);
    return 2;
  }
  const unsigned colour = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 16));
  const long min_pixels = std::atol(argv[3]);
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, argv[1])) {
    std::printf("colour-check: cannot read %s: %s\n", argv[1], png.message);
    return 1;
  }
  png.format = PNG_FORMAT_RGBA;
  // NOLINTNEXTLINE(bugprone-implicit-widening-of-multiplication-result): libpng's macro
  std::vector<unsigned char> rgba(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, rgba.data(), 0, nullptr)) {
    std::printf("colour-check: cannot decode %s: %s\n", argv[1], png.message);
    return 1;
  }
  long matching = 0, magenta = 0;
  for (size_t i = 0; i + 3 < rgba.size(); i += 4) {
    if (near(&rgba[i], colour, kTolerance)) ++matching;
    if (near(&rgba[i], 0xff00ff, 24)) ++magenta;
  }
  std::printf("colour-check: %s: %ld pixels of #%06x (need %ld), %ld magenta (need 0)\n", argv[1],
              matching, colour, min_pixels, magenta);
  return matching >= min_pixels && magenta == 0 ? 0 : 1;
}
