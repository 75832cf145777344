#include "tests/clients/dmabuf_feedback.hpp"

#include <sys/mman.h>
#include <wayland-client.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "util/unique_fd.hpp"

namespace baton::testing {

std::string describe(const Pair& p) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4s:0x%016" PRIx64, reinterpret_cast<const char*>(&p.first),
                p.second);
  return text;
}

std::string describe(const Pairs& pairs) {
  std::string out;
  for (const Pair& p : pairs) out += " " + describe(p);
  return out.empty() ? " (none)" : out;
}

namespace {

dev_t dev_of(wl_array* array) {
  dev_t dev = 0;
  if (array->size == sizeof dev) std::memcpy(&dev, array->data, sizeof dev);
  return dev;
}

}  // namespace

const zwp_linux_dmabuf_feedback_v1_listener kFeedbackListener = {
    .done =
        [](void* data, zwp_linux_dmabuf_feedback_v1*) {
          auto* f = static_cast<Feedback*>(data);
          f->tranches = std::move(f->building);
          f->building.clear();
          ++f->dones;
        },
    .format_table =
        [](void* data, zwp_linux_dmabuf_feedback_v1*, int32_t fd, uint32_t size) {
          auto* f = static_cast<Feedback*>(data);
          UniqueFd owned(fd);
          f->table.clear();
          void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
          if (map == MAP_FAILED) return;
          struct Entry {
            uint32_t format, pad;
            uint64_t modifier;
          };
          const auto* entries = static_cast<const Entry*>(map);
          for (size_t i = 0; i < size / sizeof(Entry); ++i)
            f->table.emplace_back(entries[i].format, entries[i].modifier);
          munmap(map, size);
        },
    .main_device = [](void*, zwp_linux_dmabuf_feedback_v1*, wl_array*) {},
    .tranche_done =
        [](void* data, zwp_linux_dmabuf_feedback_v1*) {
          auto* f = static_cast<Feedback*>(data);
          f->building.push_back(std::move(f->tranche));
          f->tranche = {};
        },
    .tranche_target_device =
        [](void* data, zwp_linux_dmabuf_feedback_v1*, wl_array* device) {
          static_cast<Feedback*>(data)->tranche.target = dev_of(device);
        },
    .tranche_formats =
        [](void* data, zwp_linux_dmabuf_feedback_v1*, wl_array* indices) {
          auto* f = static_cast<Feedback*>(data);
          const auto* index = static_cast<const uint16_t*>(indices->data);
          for (size_t i = 0; i < indices->size / sizeof(uint16_t); ++i)
            if (index[i] < f->table.size()) f->tranche.pairs.insert(f->table[index[i]]);
        },
    .tranche_flags = [](void* data, zwp_linux_dmabuf_feedback_v1*,
                        uint32_t flags) { static_cast<Feedback*>(data)->tranche.flags = flags; },
};

}  // namespace baton::testing
