#include "bench/video_frames.hpp"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "util/unique_fd.hpp"

namespace baton::bench {
namespace {

// memfd pages, mapped for the producer to write, and their dma-buf.
struct Memory {
  UniqueFd dmabuf;
  uint8_t* bytes = nullptr;
  size_t size = 0;
  Memory() = default;
  Memory(Memory&& other) noexcept
      : dmabuf(std::move(other.dmabuf)),
        bytes(std::exchange(other.bytes, nullptr)),
        size(other.size) {}
  Memory& operator=(Memory&&) = delete;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  ~Memory() {
    if (bytes != nullptr) munmap(bytes, size);
  }
};

// Pages of this process only: a wl_shm client's pool, to the renderer.
Result<Memory> make_plain_memory(size_t bytes) {
  Memory m;
  m.size = (bytes + 4095) / 4096 * 4096;
  void* mapped = mmap(nullptr, m.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return last_error("mmap");
  m.bytes = static_cast<uint8_t*>(mapped);
  return m;
}

Result<Memory> make_dmabuf_memory(size_t bytes) {
  UniqueFd device(open("/dev/udmabuf", O_RDWR | O_CLOEXEC));
  if (!device) return last_error("/dev/udmabuf (the qemu guest has it: tests/vm/)");
  Memory m;
  m.size = (bytes + 4095) / 4096 * 4096;
  UniqueFd memfd(memfd_create("baton-bench-video", MFD_ALLOW_SEALING | MFD_CLOEXEC));
  if (!memfd || ftruncate(memfd.get(), off_t(m.size)) != 0 ||
      fcntl(memfd.get(), F_ADD_SEALS, F_SEAL_SHRINK) != 0)
    return last_error("memfd");
  void* mapped = mmap(nullptr, m.size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd.get(), 0);
  if (mapped == MAP_FAILED) return last_error("mmap");
  m.bytes = static_cast<uint8_t*>(mapped);
  udmabuf_create create{};
  create.memfd = uint32_t(memfd.get());
  create.flags = UDMABUF_FLAGS_CLOEXEC;
  create.size = m.size;
  m.dmabuf = UniqueFd(ioctl(device.get(), UDMABUF_CREATE, &create));
  if (!m.dmabuf) return last_error("UDMABUF_CREATE");
  return m;
}

struct VideoBuffer {
  wlr_buffer base;  // first: the wlr_buffer is the VideoBuffer
  Memory memory;
  uint32_t format = 0;
  int planes = 0;
  uint32_t offset[2] = {}, stride[2] = {};
};

VideoBuffer* video(wlr_buffer* b) { return reinterpret_cast<VideoBuffer*>(b); }

const wlr_buffer_impl kVideoImpl = {
    .destroy =
        [](wlr_buffer* b) {
          wlr_buffer_finish(b);
          delete video(b);
        },
    .get_dmabuf =
        [](wlr_buffer* b, wlr_dmabuf_attributes* a) {
          VideoBuffer* v = video(b);
          if (!v->memory.dmabuf) return false;
          *a = {};
          a->width = b->width;
          a->height = b->height;
          a->format = v->format;
          a->modifier = DRM_FORMAT_MOD_LINEAR;
          a->n_planes = v->planes;
          for (int i = 0; i < v->planes; ++i) {
            a->fd[i] = v->memory.dmabuf.get();
            a->offset[i] = v->offset[i];
            a->stride[i] = v->stride[i];
          }
          return true;
        },
    .get_shm = nullptr,
    // Memory frames are read as a wl_shm buffer is: one pointer and stride,
    // the CbCr plane right after the luma plane.
    .begin_data_ptr_access =
        [](wlr_buffer* b, uint32_t, void** data, uint32_t* format, size_t* stride) {
          VideoBuffer* v = video(b);
          if (v->memory.dmabuf) return false;
          *data = v->memory.bytes;
          *format = v->format;
          *stride = v->stride[0];
          return true;
        },
    .end_data_ptr_access = [](wlr_buffer*) {},
};

uint32_t align(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// A picture that differs from frame to frame: diagonal luma ramps, chroma
// drifting across the frame (limited-range codes for NV12).
void fill(VideoBuffer& b, int width, int height, int seed) {
  uint8_t* bytes = b.memory.bytes;
  if (b.format == DRM_FORMAT_XRGB8888) {
    for (int y = 0; y < height; ++y) {
      auto* row = reinterpret_cast<uint32_t*>(bytes + size_t(y) * b.stride[0]);
      for (int x = 0; x < width; ++x)
        row[x] = 0xff000000u | uint32_t((x + seed * 16) & 0xff) << 16 |
                 uint32_t((y + seed * 8) & 0xff) << 8 | uint32_t((x ^ y) & 0xff);
    }
    return;
  }
  for (int y = 0; y < height; ++y) {
    uint8_t* row = bytes + b.offset[0] + size_t(y) * b.stride[0];
    for (int x = 0; x < width; ++x) row[x] = uint8_t(16 + (x + y + seed * 16) % 220);
  }
  for (int y = 0; y < height / 2; ++y) {
    uint8_t* row = bytes + b.offset[1] + size_t(y) * b.stride[1];
    for (int x = 0; x < width / 2; ++x) {
      row[size_t(x) * 2] = uint8_t(16 + (x + seed * 8) % 225);
      row[size_t(x) * 2 + 1] = uint8_t(16 + (y + seed * 4) % 225);
    }
  }
}

}  // namespace

Result<std::vector<wlr_buffer*>> make_video_frames(uint32_t drm_format, int width, int height,
                                                   int count, VideoMemory kind) {
  if (drm_format != DRM_FORMAT_NV12 && drm_format != DRM_FORMAT_XRGB8888)
    return failure("video frames", "only NV12 and XRGB8888 are made here");
  std::vector<wlr_buffer*> frames;
  for (int i = 0; i < count; ++i) {
    const bool nv12 = drm_format == DRM_FORMAT_NV12;
    uint32_t stride[2] = {align(uint32_t(width) * (nv12 ? 1 : 4), 256),
                          nv12 ? align(uint32_t(width), 256) : 0};
    const size_t luma = size_t(stride[0]) * uint32_t(height);
    const bool dmabuf = kind == VideoMemory::dmabuf;
    // A dma-buf's planes at page-aligned offsets; wl_shm's back to back.
    const size_t chroma_offset = !nv12 ? 0 : dmabuf ? align(uint32_t(luma), 4096) : luma;
    const size_t total = nv12 ? chroma_offset + size_t(stride[1]) * uint32_t(height / 2) : luma;
    auto memory = dmabuf ? make_dmabuf_memory(total) : make_plain_memory(total);
    if (!memory) {
      for (wlr_buffer* f : frames) wlr_buffer_drop(f);
      return memory.error();
    }
    auto* b = new VideoBuffer{{},           std::move(*memory),           drm_format,
                              nv12 ? 2 : 1, {0, uint32_t(chroma_offset)}, {stride[0], stride[1]}};
    wlr_buffer_init(&b->base, &kVideoImpl, width, height);  // freed by kVideoImpl.destroy
    fill(*b, width, height, i);
    frames.push_back(&b->base);
  }
  return frames;
}

}  // namespace baton::bench
