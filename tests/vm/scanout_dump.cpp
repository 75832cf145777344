// Writes what a CRTC scans out right now to a PNG: the proof that a
// compositor's frame reached the display, not just its renderer.
//
// usage: vm-scanout-dump DRIVER OUT.png   (run as root: GETFB2 hands out
// GEM handles only to CAP_SYS_ADMIN)
#include <drm_fourcc.h>
#include <fcntl.h>
#include <png.h>
#include <sys/mman.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tests/clients/drm_node.hpp"

namespace {

int dump(int card, const char* out) {
  drmModeRes* res = drmModeGetResources(card);
  uint32_t fb_id = 0;
  for (int i = 0; res != nullptr && i < res->count_crtcs && fb_id == 0; ++i) {
    drmModeCrtc* crtc = drmModeGetCrtc(card, res->crtcs[i]);
    if (crtc != nullptr && crtc->mode_valid) fb_id = crtc->buffer_id;
    drmModeFreeCrtc(crtc);
  }
  drmModeFreeResources(res);
  if (fb_id == 0) {
    std::printf("scanout-dump: no active CRTC with a framebuffer\n");
    return 1;
  }
  drmModeFB2* fb = drmModeGetFB2(card, fb_id);
  if (fb == nullptr || fb->handles[0] == 0) {
    std::printf("scanout-dump: GETFB2 of fb %u gave no handle (not root?)\n", fb_id);
    return 1;
  }
  if (fb->pixel_format != DRM_FORMAT_XRGB8888 && fb->pixel_format != DRM_FORMAT_ARGB8888) {
    std::printf("scanout-dump: fb format 0x%08x is not [AX]RGB8888\n", fb->pixel_format);
    return 1;
  }
  int raw = -1;
  if (drmPrimeHandleToFD(card, fb->handles[0], DRM_CLOEXEC, &raw) < 0) {
    std::perror("scanout-dump: PRIME export of the scanout buffer");
    return 1;
  }
  baton::UniqueFd dmabuf(raw);
  size_t size = size_t{fb->pitches[0]} * fb->height + fb->offsets[0];
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, dmabuf.get(), 0);
  if (map == MAP_FAILED) {
    std::perror("scanout-dump: mmap of the scanout buffer");
    return 1;
  }
  // XRGB8888 is little-endian B,G,R,X in memory.
  std::vector<unsigned char> rgba(size_t{fb->width} * fb->height * 4);
  const auto* base = static_cast<const unsigned char*>(map) + fb->offsets[0];
  for (uint32_t y = 0; y < fb->height; ++y)
    for (uint32_t x = 0; x < fb->width; ++x) {
      const unsigned char* s = base + size_t{y} * fb->pitches[0] + size_t{x} * 4;
      unsigned char* d = &rgba[(size_t{y} * fb->width + x) * 4];
      d[0] = s[2];
      d[1] = s[1];
      d[2] = s[0];
      d[3] = 0xff;
    }
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = fb->width;
  png.height = fb->height;
  png.format = PNG_FORMAT_RGBA;
  bool ok = png_image_write_to_file(&png, out, 0, rgba.data(), 0, nullptr) != 0;
  std::printf("scanout-dump: fb %u %ux%u -> %s%s\n", fb_id, fb->width, fb->height, out,
              ok ? "" : " FAILED");
  munmap(map, size);
  drmModeFreeFB2(fb);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DRIVER OUT.png|--card\n", argv[0]);
    return 2;
  }
  auto card = baton::testing::open_drm_node(argv[1], baton::testing::NodeKind::primary);
  if (!card) {
    std::printf("scanout-dump: no %s card: %s\n", argv[1], card.error().describe().c_str());
    return 1;
  }
  if (std::strcmp(argv[2], "--card") == 0) {
    // Which /dev/dri/cardN the driver's card is (for WLR_DRM_DEVICES).
    char* name = drmGetDeviceNameFromFd2(card->get());
    if (name == nullptr) return 1;
    std::printf("%s\n", name);
    std::free(name);
    return 0;
  }
  return dump(card->get(), argv[2]);
}
