// TextureReads: when the GPU has finished every read of one texture's image.
// Part of the renderer's public face (vulkan_renderer.hpp includes it); made
// by texture_reads(), which the Renderer implements.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "util/unique_fd.hpp"

namespace baton::vulkan {

class Device;

/// The passes open at one moment: `point` is set once the last of them was
/// submitted (every pass open then is done at it), or the renderer went away.
struct OpenPasses {
  bool ended = false;
  uint64_t point = 0;
};

/// When the GPU has finished every read of one texture's image, as known at
/// the moment it was asked. Outlives the texture, the renderer and the device:
/// once those are gone their work is over (a renderer waits for its device
/// when destroyed, and a lost device runs nothing), so it is done.
class TextureReads {
 public:
  /// Done at once: what non-Vulkan textures get.
  TextureReads() = default;
  /// Reads that end at `point` of `device`'s timeline, or at the point of
  /// `passes` once they are submitted (null: no open pass reads it).
  TextureReads(const std::shared_ptr<Device>& device, uint64_t point,
               std::shared_ptr<const OpenPasses> passes,
               std::shared_ptr<const UniqueFd> fence = nullptr)
      : device_(device), point_(point), passes_(std::move(passes)), fence_(std::move(fence)) {}
  /// The render-done sync_file of the pass that read it last, when that
  /// covers every read (a duplicate); else invalid.
  [[nodiscard]] UniqueFd fence() const;
  /// Whether every read submitted (or still being recorded) is finished. Never blocks.
  [[nodiscard]] bool done();
  /// CPU-waits (bounded) for done(); teardown only, never the frame loop.
  void wait();
  /// The device whose timeline the reads are on (null once it is gone).
  [[nodiscard]] std::shared_ptr<Device> device() const { return device_.lock(); }
  /// The timeline point after which every read is done; nullopt while a
  /// pass that reads the texture is still being recorded (it is known once
  /// that pass is submitted).
  [[nodiscard]] std::optional<uint64_t> point() const;

 private:
  std::weak_ptr<Device> device_;
  uint64_t point_ = 0;
  // Set when a pass still being recorded drew the texture: its point is only
  // known once the open passes are submitted.
  std::shared_ptr<const OpenPasses> passes_;
  std::shared_ptr<const UniqueFd> fence_;
};

}  // namespace baton::vulkan
