#include "tests/renderer/udmabuf.hpp"

#include <unistd.h>

namespace baton::test {
namespace {

PlaneBuffer* plane_buffer(wlr_buffer* b) { return reinterpret_cast<PlaneBuffer*>(b); }

const wlr_buffer_impl kPlaneBufferImpl = {
    .destroy =
        [](wlr_buffer* b) {
          wlr_buffer_finish(b);
          delete plane_buffer(b);
        },
    .get_dmabuf =
        [](wlr_buffer* b, wlr_dmabuf_attributes* a) {
          PlaneBuffer* p = plane_buffer(b);
          *a = {};
          a->width = b->width;
          a->height = b->height;
          a->format = p->format;
          a->modifier = p->modifier;
          a->n_planes = p->planes;
          for (int i = 0; i < p->planes; ++i) {
            a->fd[i] = p->fd[i] ? p->fd[i].get() : p->memory[size_t(p->memory_of[i])]->dmabuf();
            a->offset[i] = p->offset[i];
            a->stride[i] = p->stride[i];
          }
          return true;
        },
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

}  // namespace

std::unique_ptr<testing::Udmabuf> make_udmabuf(size_t bytes, std::string& why) {
  if (access("/dev/udmabuf", R_OK | W_OK) != 0) {
    why = "UNTESTED: /dev/udmabuf is missing (run in tests/vm/: vk-dmabuf)";
    return nullptr;
  }
  auto made = testing::Udmabuf::create(bytes);
  if (!made) {
    why = "a udmabuf could not be made: " + made.error().describe();
    return nullptr;
  }
  return std::make_unique<testing::Udmabuf>(std::move(*made));
}

PlaneBuffer* PlaneBuffer::create(int width, int height) {
  auto* b = new PlaneBuffer();
  wlr_buffer_init(&b->base, &kPlaneBufferImpl, width, height);
  return b;
}

}  // namespace baton::test
