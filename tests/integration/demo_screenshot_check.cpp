// Checks the screenshot `tools/run` writes when it starts baton headless with
// its two demo clients: the output's size, the desktop background in the
// corners, weston-simple-shm's many-coloured rings, and foot's dark terminal
// with light text on it. CI runs it on the screenshot taken on a bare Debian.
//
// usage: baton-demo-screenshot-check PNG
// Exit 0 when all hold; 1 with the reason otherwise. Prints what it measured.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "util/image.hpp"

namespace {

using baton::Image;

constexpr uint32_t kBackground = 0xff292e38;  // baton's default clear colour
constexpr int kWidth = 1280, kHeight = 720;   // tools/run's --headless-size
// weston-simple-shm's window is 250x250 of rings whose colours change with x,
// y and time: a 200x200 square inside it holds hundreds of saturated colours,
// where anti-aliased text (grey) or a title bar (one colour) hold few.
constexpr int kShmSquare = 200;
constexpr long kShmMinColours = 200;
// foot's terminal: one dark colour over a large area, light grey glyphs on it.
constexpr long kTerminalMinPixels = 100000;
constexpr long kTerminalMinGlyphPixels = 150;

int channel(uint32_t p, int shift) { return static_cast<int>((p >> shift) & 0xff); }
int luminance(uint32_t p) { return (channel(p, 16) * 3 + channel(p, 8) * 6 + channel(p, 0)) / 10; }
int saturation(uint32_t p) {
  auto [lo, hi] = std::minmax({channel(p, 16), channel(p, 8), channel(p, 0)});
  return hi - lo;
}

long colours_in(const Image& image, int x0, int y0, int size, bool& all_foreground) {
  std::set<uint32_t> colours;
  all_foreground = true;
  for (int y = y0; y < y0 + size; ++y)
    for (int x = x0; x < x0 + size; ++x) {
      uint32_t p = image.at(x, y);
      if (p == kBackground) all_foreground = false;
      if (saturation(p) >= 64) colours.insert(p);
    }
  return static_cast<long>(colours.size());
}

// A light grey pixel (not white: weston-simple-shm has a white frame) with the
// terminal's background right beside it.
bool is_glyph(const Image& image, int x, int y, uint32_t terminal) {
  uint32_t p = image.at(x, y);
  if (luminance(p) <= 150 || saturation(p) >= 48 || (p & 0xffffff) == 0xffffff) return false;
  for (int dx = -2; dx <= 2; ++dx) {
    int nx = x + dx;
    if (nx >= 0 && nx < image.width && image.at(nx, y) == terminal) return true;
  }
  return false;
}

bool shows_rings(const Image& image) {
  long best = 0;
  int best_x = 0, best_y = 0;
  for (int y = 0; y + kShmSquare <= image.height; y += 10)
    for (int x = 0; x + kShmSquare <= image.width; x += 10) {
      bool all_foreground = false;
      long n = colours_in(image, x, y, kShmSquare, all_foreground);
      if (all_foreground && n > best) best = n, best_x = x, best_y = y;
    }
  std::printf(
      "demo-screenshot-check: weston-simple-shm: %ld saturated colours in the %dx%d square at "
      "(%d,%d)\n",
      best, kShmSquare, kShmSquare, best_x, best_y);
  return best >= kShmMinColours;
}

bool shows_terminal(const Image& image) {
  std::map<uint32_t, long> dark;
  for (uint32_t p : image.pixels)
    if (p != kBackground && luminance(p) < 64) ++dark[p];
  auto most = std::max_element(dark.begin(), dark.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  if (most == dark.end()) {
    std::printf("demo-screenshot-check: foot: no dark terminal background at all\n");
    return false;
  }
  uint32_t terminal = most->first;
  int x0 = image.width, y0 = image.height, x1 = 0, y1 = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      if (image.at(x, y) == terminal) {
        x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x + 1),
        y1 = std::max(y1, y + 1);
      }
  long glyph = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) glyph += is_glyph(image, x, y, terminal);
  std::printf(
      "demo-screenshot-check: foot: #%06x on %ld pixels in %d,%d %dx%d, %ld light glyph pixels on "
      "it\n",
      terminal & 0xffffff, most->second, x0, y0, x1 - x0, y1 - y0, glyph);
  return most->second >= kTerminalMinPixels && glyph >= kTerminalMinGlyphPixels;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PNG\n", argv[0]);
    return 2;
  }
  auto read = baton::read_png(argv[1]);
  if (!read) {
    std::printf("demo-screenshot-check: %s\n", read.error().describe().c_str());
    return 1;
  }
  Image image = std::move(*read);
  if (image.width != kWidth || image.height != kHeight) {
    std::printf("demo-screenshot-check: %dx%d, expected tools/run's %dx%d\n", image.width,
                image.height, kWidth, kHeight);
    return 1;
  }
  for (auto [x, y] :
       {std::pair{0, 0}, {kWidth - 1, 0}, {0, kHeight - 1}, {kWidth - 1, kHeight - 1}})
    if (image.at(x, y) != kBackground) {
      std::printf("demo-screenshot-check: corner (%d,%d) is #%06x, not the background\n", x, y,
                  image.at(x, y) & 0xffffff);
      return 1;
    }
  bool rings = shows_rings(image);
  bool terminal = shows_terminal(image);
  if (!rings)
    std::printf("demo-screenshot-check: weston-simple-shm's window is not on the screenshot\n");
  if (!terminal)
    std::printf("demo-screenshot-check: foot's terminal with text is not on the screenshot\n");
  if (!rings || !terminal) return 1;
  std::printf("demo-screenshot-check: both demo clients are on the screenshot\n");
  return 0;
}
