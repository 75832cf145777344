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

CachedImport* ImportCache::add(wlr_buffer* buffer, ImportedImage imported, UniqueImageView view) {
  auto* entry = new CachedImport();
  entry->cache = this;
  entry->imported = std::move(imported);
  entry->view = std::move(view);
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
  Retired retired;
  retired.point = std::max(entry->last_used, cache.device_.next_point());
  retired.view = std::move(entry->view);
  retired.image = std::move(entry->imported.image);
  retired.memory = std::move(entry->imported.memory);
  cache.retire_(std::move(retired));
  delete entry;
}

void ImportCache::clear() {
  for (CachedImport* entry : std::exchange(entries_, {})) {
    wlr_addon_finish(&entry->addon.base);
    delete entry;
  }
}

}  // namespace baton::vulkan
