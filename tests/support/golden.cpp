#include "tests/support/golden.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace baton::test {
namespace {

int channel(uint32_t pixel, int shift) { return static_cast<int>((pixel >> shift) & 0xff); }

}  // namespace

ImageDiff diff_images(const Image& a, const Image& b, int tolerance, Image* diff_out) {
  ImageDiff diff;
  if (a.width != b.width || a.height != b.height) {
    diff.size_matches = false;
    return diff;
  }
  if (diff_out != nullptr) *diff_out = Image(a.width, a.height, 0xff000000);
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    int worst = 0;
    for (int shift : {0, 8, 16, 24})
      worst = std::max(worst, std::abs(channel(a.pixels[i], shift) - channel(b.pixels[i], shift)));
    diff.max_channel_delta = std::max(diff.max_channel_delta, worst);
    if (worst > tolerance) {
      ++diff.pixels_over_tolerance;
      if (diff_out != nullptr) diff_out->pixels[i] = 0xffff0000;
    } else if (diff_out != nullptr) {
      // Keep a dim copy of the image so the red marks can be located.
      uint32_t p = a.pixels[i];
      diff_out->pixels[i] = 0xff000000 | ((p >> 2) & 0x3f3f3f);
    }
  }
  return diff;
}

GoldenResult compare_to_golden(const Image& actual, const std::string& name, int tolerance) {
  namespace fs = std::filesystem;
  GoldenResult result;
  fs::path golden = fs::path(BATON_SOURCE_DIR) / "tests" / "golden" / (name + ".png");
  fs::path out_dir = fs::path(BATON_BUILD_DIR) / "golden-failures";

  const char* update = std::getenv("BATON_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    Status written = write_png(golden.string(), actual);
    result.ok = written.ok();
    result.message = result.ok ? "golden written: " + golden.string() : written.error().describe();
    return result;
  }

  auto read = read_png(golden.string());
  if (!read) {
    result.message =
        read.error().describe() + " (run with BATON_UPDATE_GOLDEN=1 to create it, then look at it)";
    return result;
  }
  Image expected = std::move(*read);
  Image diff_image;
  ImageDiff diff = diff_images(actual, expected, tolerance, &diff_image);
  if (diff.size_matches && diff.pixels_over_tolerance == 0) {
    result.ok = true;
    return result;
  }
  fs::create_directories(out_dir);
  fs::path actual_path = out_dir / (name + ".actual.png");
  fs::path diff_path = out_dir / (name + ".diff.png");
  (void)write_png(actual_path.string(), actual);
  if (diff.size_matches) (void)write_png(diff_path.string(), diff_image);
  result.message = diff.size_matches
                       ? std::to_string(diff.pixels_over_tolerance) + " pixels differ beyond " +
                             std::to_string(tolerance) + " (max delta " +
                             std::to_string(diff.max_channel_delta) +
                             "); actual: " + actual_path.string() + ", diff: " + diff_path.string()
                       : "size " + std::to_string(actual.width) + "x" +
                             std::to_string(actual.height) + " differs from golden " +
                             std::to_string(expected.width) + "x" +
                             std::to_string(expected.height) + "; actual: " + actual_path.string();
  return result;
}

}  // namespace baton::test
