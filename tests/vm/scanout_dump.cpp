// Writes what a CRTC scans out right now to a PNG: the proof that a
// compositor's frame reached the display, not just its renderer.
//
// usage: vm-scanout-dump DRIVER OUT.png [CONNECTOR]   (run as root: GETFB2
// hands out GEM handles only to CAP_SYS_ADMIN; CONNECTOR, e.g. Virtual-2:
// its CRTC, else the first active one)
//        vm-scanout-dump DRIVER --watch SECONDS FORBIDDEN SEEN [OUT.png]
// --watch samples what the CRTC scans out, as fast as it can, for SECONDS
// or until SIGTERM (a test stops it once its clients are done, so that the
// watch spans them however slow the machine is):
// fails (and writes the first offending scanout to OUT.png) when any sample
// holds a pixel of a FORBIDDEN colour (comma-separated RRGGBB); also counts the samples
// with a pixel of each SEEN colour (comma-separated RRGGBB), so a test can
// tell that the client really was on screen while it watched. A pixel
// within 2 steps of 255 of a colour in every channel counts as that colour:
// a YUV client's colours reach the screen through a Y'CbCr conversion. Prints
// "scanout-watch: started" after its first sample, for a test to wait on.
//        vm-scanout-dump DRIVER --master
// exits 0 when DRM master on the card is free (nobody holds it), 1 when a
// compositor holds it.
//        vm-scanout-dump DRIVER --card|--render
// prints the path of the driver's card (/dev/dri/cardN) or render node
// (/dev/dri/renderDN): how guest-test.sh's drm_node finds one.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <png.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/clients/drm_node.hpp"

namespace {

// The CRTC driving the connector named `name` (e.g. Virtual-2), or 0.
uint32_t crtc_of(int card, drmModeRes* res, const char* name) {
  uint32_t crtc_id = 0;
  for (int i = 0; res != nullptr && i < res->count_connectors && crtc_id == 0; ++i) {
    drmModeConnector* connector = drmModeGetConnector(card, res->connectors[i]);
    if (connector == nullptr) continue;
    const char* type = drmModeGetConnectorTypeName(connector->connector_type);
    const std::string full = std::string(type != nullptr ? type : "?") + "-" +
                             std::to_string(connector->connector_type_id);
    if (full == name && connector->encoder_id != 0) {
      drmModeEncoder* encoder = drmModeGetEncoder(card, connector->encoder_id);
      if (encoder != nullptr) crtc_id = encoder->crtc_id;
      drmModeFreeEncoder(encoder);
    }
    drmModeFreeConnector(connector);
  }
  return crtc_id;
}

// The framebuffer of the CRTC of `connector`, or of the first active CRTC.
int dump(int card, const char* out, const char* connector = nullptr) {
  drmModeRes* res = drmModeGetResources(card);
  uint32_t fb_id = 0;
  const uint32_t wanted = connector != nullptr ? crtc_of(card, res, connector) : 0;
  if (connector != nullptr && wanted == 0) {
    drmModeFreeResources(res);
    std::printf("scanout-dump: no CRTC drives %s\n", connector);
    return 1;
  }
  for (int i = 0; res != nullptr && i < res->count_crtcs && fb_id == 0; ++i) {
    drmModeCrtc* crtc = drmModeGetCrtc(card, res->crtcs[i]);
    if (crtc != nullptr && crtc->mode_valid && (wanted == 0 || crtc->crtc_id == wanted))
      fb_id = crtc->buffer_id;
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

// One sample of the scanout: the CRTC's framebuffer now, mapped.
struct Sample {
  uint32_t fb_id = 0, width = 0, height = 0, pitch = 0;
  std::vector<uint32_t> pixels;  // XRGB, X dropped
};

// The CRTC's framebuffer and vblank count now (count 0: no vblanks, as on
// virtio-gpu).
uint32_t current_fb(int card, uint64_t& vblank) {
  drmModeRes* res = drmModeGetResources(card);
  uint32_t fb_id = 0;
  vblank = 0;
  for (int i = 0; res != nullptr && i < res->count_crtcs && fb_id == 0; ++i) {
    drmModeCrtc* crtc = drmModeGetCrtc(card, res->crtcs[i]);
    if (crtc != nullptr && crtc->mode_valid) {
      fb_id = crtc->buffer_id;
      if (drmCrtcGetSequence(card, crtc->crtc_id, &vblank, nullptr) != 0) vblank = 0;
    }
    drmModeFreeCrtc(crtc);
  }
  drmModeFreeResources(res);
  return fb_id;
}

// The framebuffers a watch has read, each mapped once. Mapping a buffer and
// faulting its pages in is slow in the emulated guest, and a read counts
// only if it fits between two vblanks: done for every sample, it made most
// reads straddle one (on vkms, 95% of them were thrown away).
class Mappings {
 public:
  Mappings() = default;
  Mappings(const Mappings&) = delete;
  Mappings& operator=(const Mappings&) = delete;
  ~Mappings() {
    for (const Mapping& m : maps_) munmap(m.map, m.size);
  }

  // The pixels of the buffer that framebuffer fb_id names now, or false.
  bool copy(int card, uint32_t fb_id, Sample& out) {
    drmModeFB2* fb = drmModeGetFB2(card, fb_id);
    if (fb == nullptr || fb->handles[0] == 0) {
      drmModeFreeFB2(fb);
      return false;
    }
    int raw = -1;
    const bool exported = drmPrimeHandleToFD(card, fb->handles[0], DRM_CLOEXEC, &raw) == 0;
    baton::UniqueFd dmabuf(raw);
    // GETFB2 made a new GEM handle: close it, or every sample leaks one.
    drm_gem_close close_handle{fb->handles[0], 0};
    drmIoctl(card, DRM_IOCTL_GEM_CLOSE, &close_handle);
    const Mapping* m = exported ? find_or_map(dmabuf.get(), *fb) : nullptr;
    drmModeFreeFB2(fb);
    if (m == nullptr) return false;
    out.fb_id = fb_id;
    out.width = m->width;
    out.height = m->height;
    out.pixels.resize(size_t{m->width} * m->height);
    const auto* base = static_cast<const unsigned char*>(m->map) + m->offset;
    for (uint32_t y = 0; y < m->height; ++y)
      std::memcpy(&out.pixels[size_t{y} * m->width], base + size_t{y} * m->pitch,
                  size_t{m->width} * 4);
    return true;
  }

 private:
  struct Mapping {
    ino_t inode;  // the dma-buf's: held mapped, no other buffer can take it
    void* map;
    size_t size;
    uint32_t width, height, pitch, offset;
  };
  static constexpr size_t kMost = 8;  // a few swapchains' worth

  const Mapping* find_or_map(int dmabuf, const drmModeFB2& fb) {
    struct stat st {};
    if (fstat(dmabuf, &st) != 0) return nullptr;
    for (const Mapping& m : maps_)
      if (m.inode == st.st_ino && m.width == fb.width && m.height == fb.height &&
          m.pitch == fb.pitches[0] && m.offset == fb.offsets[0])
        return &m;
    const size_t size = size_t{fb.pitches[0]} * fb.height + fb.offsets[0];
    void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, dmabuf, 0);
    if (map == MAP_FAILED) return nullptr;
    if (maps_.size() == kMost) {
      munmap(maps_.front().map, maps_.front().size);
      maps_.erase(maps_.begin());
    }
    maps_.push_back({st.st_ino, map, size, fb.width, fb.height, fb.pitches[0], fb.offsets[0]});
    return &maps_.back();
  }

  std::vector<Mapping> maps_;
};

// What the CRTC showed for the whole read, or false. A flip can only
// complete at a vblank, and a buffer goes back to its client only after its
// flip away: a sample that saw no vblank (and, without vblanks, the same
// framebuffer before and after) read a buffer nobody had handed back yet.
bool sample(int card, Mappings& maps, Sample& out) {
  uint64_t vblank_before = 0, vblank_after = 0;
  const uint32_t fb_id = current_fb(card, vblank_before);
  if (fb_id == 0 || !maps.copy(card, fb_id, out)) return false;
  if (current_fb(card, vblank_after) != fb_id || vblank_after != vblank_before) return false;
  for (uint32_t& px : out.pixels) px &= 0xffffff;  // X dropped, outside the window
  return true;
}

bool write_png(const Sample& s, const char* path) {
  std::vector<unsigned char> rgba(s.pixels.size() * 4);
  for (size_t i = 0; i < s.pixels.size(); ++i) {
    rgba[i * 4] = (s.pixels[i] >> 16) & 0xff;
    rgba[i * 4 + 1] = (s.pixels[i] >> 8) & 0xff;
    rgba[i * 4 + 2] = s.pixels[i] & 0xff;
    rgba[i * 4 + 3] = 0xff;
  }
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = s.width;
  png.height = s.height;
  png.format = PNG_FORMAT_RGBA;
  return png_image_write_to_file(&png, path, 0, rgba.data(), 0, nullptr) != 0;
}

// "f0f000,ff00ff" -> {0xf0f000, 0xff00ff}
std::vector<uint32_t> colours(const std::string& list) {
  std::vector<uint32_t> out;
  for (size_t at = 0; at < list.size();) {
    size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    out.push_back(
        static_cast<uint32_t>(std::strtoul(list.substr(at, comma - at).c_str(), nullptr, 16)));
    at = comma + 1;
  }
  return out;
}

volatile std::sig_atomic_t watch_stopped = 0;

// Whether XRGB pixel `px` is `colour`, give or take kWatchTolerance a channel.
constexpr int kWatchTolerance = 2;
bool near(uint32_t px, uint32_t colour) {
  for (int shift : {0, 8, 16}) {
    const int a = static_cast<int>((px >> shift) & 0xff);
    const int b = static_cast<int>((colour >> shift) & 0xff);
    if (a - b > kWatchTolerance || b - a > kWatchTolerance) return false;
  }
  return true;
}

int watch(int card, double seconds, const std::vector<uint32_t>& forbidden,
          const std::vector<uint32_t>& seen, const char* out) {
  struct sigaction stop {};
  stop.sa_handler = [](int) { watch_stopped = 1; };
  sigaction(SIGTERM, &stop, nullptr);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<int> seen_in(seen.size(), 0);
  int samples = 0, failed = 0, hits = 0;
  std::vector<uint32_t> fbs;
  Sample s;
  Mappings maps;
  while (watch_stopped == 0 && std::chrono::steady_clock::now() < end) {
    if (!sample(card, maps, s)) {
      ++failed;
      continue;
    }
    ++samples;
    if (samples == 1) {  // a test starts its clients once the watch is looking
      std::printf("scanout-watch: started\n");
      std::fflush(stdout);
    }
    if (std::find(fbs.begin(), fbs.end(), s.fb_id) == fbs.end()) fbs.push_back(s.fb_id);
    bool hit = false;
    std::vector<bool> has(seen.size(), false);
    for (uint32_t px : s.pixels) {
      hit = hit || std::any_of(forbidden.begin(), forbidden.end(),
                               [px](uint32_t colour) { return near(px, colour); });
      for (size_t i = 0; i < seen.size(); ++i) has[i] = has[i] || near(px, seen[i]);
    }
    for (size_t i = 0; i < seen.size(); ++i) seen_in[i] += has[i] ? 1 : 0;
    if (hit && hits++ == 0 && out != nullptr) write_png(s, out);
  }
  std::printf(
      "scanout-watch: %d samples of %zu framebuffers (%d discarded: a flip during the read), %d "
      "showed a forbidden colour",
      samples, fbs.size(), failed, hits);
  for (size_t i = 0; i < seen.size(); ++i) std::printf(", %d showed %06x", seen_in[i], seen[i]);
  std::printf("\n");
  return hits == 0 && samples > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[2], "--watch") == 0 && argc < 6)) {
    std::fprintf(stderr,
                 "usage: %s DRIVER OUT.png [CONNECTOR]|--card|--render|--master\n"
                 "       %s DRIVER --watch SECONDS FORBIDDEN SEEN[,SEEN...] [OUT.png]\n",
                 argv[0], argv[0]);
    return 2;
  }
  const bool render = std::strcmp(argv[2], "--render") == 0;
  auto card = baton::testing::open_drm_node(
      argv[1], render ? baton::testing::NodeKind::render : baton::testing::NodeKind::primary);
  if (!card) {
    std::printf("scanout-dump: no %s %s: %s\n", argv[1], render ? "render node" : "card",
                card.error().describe().c_str());
    return 1;
  }
  if (std::strcmp(argv[2], "--master") == 0) {
    // Whether DRM master is free: taken (and given back) when no one holds
    // it, refused (EBUSY) while a compositor does.
    if (drmSetMaster(card->get()) == 0) {
      drmDropMaster(card->get());
      std::printf("scanout-dump: master is free\n");
      return 0;
    }
    std::printf("scanout-dump: master is held elsewhere (%s)\n", std::strerror(errno));
    return 1;
  }
  if (render || std::strcmp(argv[2], "--card") == 0) {
    // Which /dev/dri/cardN (for WLR_DRM_DEVICES) or renderDN the driver's is.
    char* name = drmGetDeviceNameFromFd2(card->get());
    if (name == nullptr) return 1;
    std::printf("%s\n", name);
    std::free(name);
    return 0;
  }
  if (std::strcmp(argv[2], "--watch") == 0)
    return watch(card->get(), std::atof(argv[3]), colours(argv[4]), colours(argv[5]),
                 argc > 6 ? argv[6] : nullptr);
  return dump(card->get(), argv[2], argc > 3 ? argv[3] : nullptr);
}
