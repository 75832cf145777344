// PNG encoding and decoding through libpng's simplified API.
#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/image.hpp"

namespace baton {

Status write_png(const std::string& path, const Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  // 0xAARRGGBB words in little-endian memory are B,G,R,A bytes.
  png.format = PNG_FORMAT_BGRA;
  // Written beside and renamed into place: whoever waits for the file (a
  // test polling for it, a script) never sees it half written.
  const std::string partial = path + ".partial";
  if (png_image_write_to_file(&png, partial.c_str(), 0, image.pixels.data(), 0, nullptr) == 0) {
    Error error = failure("cannot write PNG " + path, png.message);
    png_image_free(&png);
    std::remove(partial.c_str());
    return error;
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    Error error = last_error("cannot write PNG " + path);
    std::remove(partial.c_str());
    return error;
  }
  return {};
}

Result<Image> read_png(const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0)
    return failure("cannot read PNG " + path, png.message);
  png.format = PNG_FORMAT_BGRA;
  Image image(static_cast<int>(png.width), static_cast<int>(png.height));
  if (png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr) == 0) {
    Error error = failure("cannot decode PNG " + path, png.message);
    png_image_free(&png);
    return error;
  }
  return image;
}

}  // namespace baton
