#include "renderer/vulkan/texture/import_cache.hpp"

#include <algorithm>
#include <utility>

namespace baton::vulkan {
namespace {

const wlr_addon_interface kImportAddon = {
    .name = "baton-vulkan-import",
    .destroy = ImportCache::buffer_destroyed,
};

CachedImport* entry_of(wlr_addon* addon) {
  return reinterpret_cast<CachedImport::Addon*>(addon)->entry;
}

}  // namespace

CachedImport* ImportCache::find(wlr_buffer* buffer) {
  wlr_addon* addon = wlr_addon_find(&buffer->addons, this, &kImportAddon);
  return addon != nullptr ? entry_of(addon) : nullptr;
}

CachedImport* ImportCache::add(wlr_buffer* buffer, std::vector<ImportedImage> images,
                               std::array<UniqueImageView, 3> views) {
  auto* entry = new CachedImport();
  entry->cache = this;
  entry->images = std::move(images);
  entry->views = std::move(views);
  entry->addon.entry = entry;
  wlr_addon_init(&entry->addon.base, &buffer->addons, this, &kImportAddon);
  entries_.insert(entry);
  ++counts_.imports;
  return entry;
}

void ImportCache::buffer_destroyed(wlr_addon* addon) {
  CachedImport* entry = entry_of(addon);
  ImportCache& cache = *entry->cache;
  wlr_addon_finish(&entry->addon.base);
  cache.entries_.erase(entry);
  // Its textures are gone (each held the buffer), but their last reads may
  // still be in flight, or recorded in passes not yet submitted.
  const uint64_t point = std::max(entry->last_used, cache.device_.next_point());
  for (UniqueImageView& view : entry->views) {
    Retired retired;
    retired.point = point;
    retired.view = std::move(view);
    cache.retire_(std::move(retired));
  }
  for (ImportedImage& image : entry->images) {
    Retired retired;
    retired.point = point;
    retired.image = std::move(image.image);
    retired.memory = std::move(image.memory);
    cache.retire_(std::move(retired));
  }
  delete entry;
}

void ImportCache::clear() {
  for (CachedImport* entry : std::exchange(entries_, {})) {
    wlr_addon_finish(&entry->addon.base);
    delete entry;
  }
}

}  // namespace baton::vulkan
