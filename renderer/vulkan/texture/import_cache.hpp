// Client dma-bufs imported once per wl_buffer, not once per commit: clients
// cycle two or three buffers, and each import is a new VkImage and memory
// import (on lavapipe in the guest, 60-150 ms of the event loop).
//
// An entry lives as long as its wlr_buffer (a wlr_addon on it). Textures
// made from the buffer share the entry's image; each new one takes the image
// over from the producer again (the client wrote new pixels), and the entry
// frees the image after the last read once the buffer is gone. Entries are
// bounded by the client's own live buffers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/retired.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "renderer/vulkan/texture/dmabuf_import.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {

class ImportCache;

struct CachedImport {
  struct Addon {
    wlr_addon base;  // first: a wlr_addon* is an Addon*
    CachedImport* entry;
  };
  Addon addon{};  // on the buffer: finished when the buffer is destroyed
  ImportCache* cache = nullptr;
  // One image, or a YUV buffer's plane images (texture/plane_layout.hpp).
  std::vector<ImportedImage> images;
  // RGB: [0] only; YUV: the views with Y, Cb and Cr in their red channel.
  std::array<UniqueImageView, 3> views;
  bool filters_linearly = false;
  uint64_t last_used = 0;  // the last read by any texture made from it
  // Owned by our queue (SHADER_READ_ONLY) since the last texture made from it.
  bool acquired = false;
};

class ImportCache {
 public:
  /// `retire` keeps an entry's image until the GPU is past its last read.
  ImportCache(Device& device, std::function<void(Retired)> retire)
      : device_(device), retire_(std::move(retire)) {}
  ~ImportCache() { clear(); }
  ImportCache(const ImportCache&) = delete;
  ImportCache& operator=(const ImportCache&) = delete;

  /// The import kept for `buffer`, or null.
  CachedImport* find(wlr_buffer* buffer);
  /// Keeps `images` (seen through `views`) for as long as `buffer` lives.
  CachedImport* add(wlr_buffer* buffer, std::vector<ImportedImage> images,
                    std::array<UniqueImageView, 3> views);
  /// Frees every entry now: only when nothing is in flight (renderer teardown).
  void clear();

  struct Counts {
    uint64_t imports = 0;  // buffers imported
    uint64_t reuses = 0;   // textures made from an earlier import
  };
  Counts& counts() { return counts_; }
  size_t size() const { return entries_.size(); }

  /// The addon's destroy: the buffer is gone, its image goes after its last read.
  static void buffer_destroyed(wlr_addon* addon);

 private:
  Device& device_;
  std::function<void(Retired)> retire_;
  std::unordered_set<CachedImport*> entries_;
  Counts counts_;
};

}  // namespace baton::vulkan
