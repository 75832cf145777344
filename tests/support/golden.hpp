// Golden-image comparison: an image against a PNG in tests/golden/, with a
// per-channel tolerance. On failure the actual image and a diff image (red
// where channels differ beyond the tolerance) are written next to the build.
#pragma once

#include <string>

#include "util/image.hpp"

namespace baton::test {

struct ImageDiff {
  bool size_matches = true;
  int max_channel_delta = 0;
  long pixels_over_tolerance = 0;
};

/// Compares two images channel by channel.
[[nodiscard]] ImageDiff diff_images(const Image& a, const Image& b, int tolerance,
                                    Image* diff_out = nullptr);

struct GoldenResult {
  bool ok = false;
  std::string message;  // why not, and where the actual/diff images went
};

/// Compares `actual` with tests/golden/`name`.png. With BATON_UPDATE_GOLDEN=1
/// in the environment the golden is (re)written instead and the check passes.
[[nodiscard]] GoldenResult compare_to_golden(const Image& actual, const std::string& name,
                                             int tolerance = 2);

}  // namespace baton::test
